"""``apply`` copies the state for every command: the copy is equal, and shares nothing mutable."""

from __future__ import annotations

import copy
import dataclasses

from speakerbot.engine import commands as c
from speakerbot.engine import replay
from speakerbot.engine.draw_events import RecordSoFar
from speakerbot.engine.model import Choice, GameState, ProposalStatus, RuleChange
from tests.engine.cast import ALICE, BOB, CAROL
from tests.engine.harness import Game

IMMUTABLE = (str, int, bool, type(None), RecordSoFar)  # RecordSoFar: frozen, of str and int


def a_game_with_everything() -> Game:
    """A suber game with a turn, open and closed proposals, ballots and a CFJ."""
    g = Game("suber", [ALICE, BOB, CAROL])
    g.dice.load(2)
    first = g.propose(ALICE, title="First")
    g.votes(first, alice="FOR", bob="FOR", carol="FOR")
    g.propose(BOB, title="Second")
    g.ok(c.CastBallot(ALICE, first + 1, Choice.FOR))
    g.ok(c.CallForJudgement(CAROL, "Bob may not sing."))
    return g


def test_a_copy_is_equal_and_shares_no_container() -> None:
    g = a_game_with_everything()
    state = g.state
    assert state.turn is not None and state.cfjs and state.proposals
    copied = copy.deepcopy(state)
    assert copied == state
    for field in dataclasses.fields(GameState):
        value = getattr(state, field.name)
        if isinstance(value, IMMUTABLE) or field.name == "mechanics":
            continue
        assert getattr(copied, field.name) is not value, f"{field.name} is shared"


def test_changing_a_copy_leaves_the_state_as_it_was() -> None:
    g = a_game_with_everything()
    before = replay(g.events)
    assert before == g.state
    copied = copy.deepcopy(g.state)
    open_proposal = next(p for p in copied.proposals.values()
                         if p.status is ProposalStatus.OPEN)
    assert open_proposal.ballots
    open_proposal.ballots.clear()
    next(iter(copied.players.values())).score += 5
    rule = next(iter(copied.rules.values()))
    rule.history.append(RuleChange("amended", g.now, 99))
    rule.text = "changed"
    assert copied.turn is not None and copied.cfjs
    copied.turn.consenters.append(BOB)
    copied.cfjs[1].judges.append(BOB)
    copied.sources["x"] = 1
    copied.winners.append(ALICE)
    assert g.state == before
