"""Properties of the pace of play: a pause never brings a deadline nearer; an absence never
changes a tally beyond what a missing ballot does."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.model import Choice, GameState
from speakerbot.engine.pace import turn_deadline
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, ERIN, SPEAKER
from tests.engine.harness import Dice, Game

PLAYERS = [ALICE, BOB, CAROL, DAVE, ERIN]
FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
HOURS = st.integers(min_value=0, max_value=24 * 20).map(lambda h: timedelta(hours=h))


class Lowest(Dice):
    """Every draw gives the lowest value: these properties are not about chance."""

    def randint(self, a: int, b: int) -> int:
        return a


def _game(preset: str, players: list[str]) -> Game:
    g = Game(preset, players, mechanics={"turn_period": "3d"})
    g.dice = Lowest()
    return g


def deadlines(state: GameState) -> dict[str, datetime]:
    """Every deadline of the game that is running, by what it is the deadline of."""
    found = {f"vote {p.number}": p.closes_at for p in state.open_proposals()
             if p.closes_at is not None}
    found |= {f"debate {p.number}": p.debate_until for p in state.open_proposals()
              if p.debate_until is not None}
    found |= {f"cfj {j.number}": j.deadline for j in state.open_cfjs() if j.deadline is not None}
    turn = turn_deadline(state)
    if turn is not None:
        found["turn"] = turn
    return found


@FAST
@given(preset=st.sampled_from(["nomicam", "suber", "speaker"]),
       steps=st.lists(st.tuples(st.sampled_from(["propose", "cfj", "wait"]), HOURS),
                      max_size=6),
       paused_for=HOURS, extend_while_paused=st.booleans())
def test_pausing_and_resuming_never_brings_a_deadline_nearer(
    preset: str, steps: list[tuple[str, timedelta]], paused_for: timedelta,
    extend_while_paused: bool,
) -> None:
    g = _game(preset, PLAYERS[:3])
    for what, wait in steps:
        mover = g.state.turn.mover if g.state.turn is not None else ALICE
        if what == "propose" and (g.state.turn is None or g.state.turn.proposal is None):
            g.send(c.Propose(mover, "A proposal", "Text."))
        elif what == "cfj":
            g.send(c.CallForJudgement(BOB, "Rule 101 holds"))
        g.later(wait)
    if g.state.ended:
        return
    before = deadlines(g.state)
    g.ok(c.PauseGame(SPEAKER))
    during = g.later(paused_for)
    assert not [ev for ev in during if not isinstance(ev, pe.AbsenceEnded)]
    open_votes = [p.number for p in g.state.open_proposals()]
    if extend_while_paused and open_votes:
        g.ok(c.ExtendVote(SPEAKER, open_votes[0], timedelta(hours=1)))
    g.ok(c.ResumeGame(SPEAKER))
    after = deadlines(g.state)
    for what, when in before.items():
        if what in after:
            assert after[what] >= when + paused_for, what


@dataclasses.dataclass(frozen=True)
class _Setup:
    preset: str
    ballots: dict[str, Choice]
    absent: frozenset[str]


@st.composite
def setups(draw: st.DrawFn) -> _Setup:
    preset = draw(st.sampled_from(["nomicam", "speaker", "suber", "rurru"]))
    voters = draw(st.lists(st.sampled_from(PLAYERS), unique=True))
    ballots = {v: draw(st.sampled_from([Choice.FOR, Choice.AGAINST])) for v in voters}
    absent = frozenset(draw(st.lists(st.sampled_from(PLAYERS), unique=True)))
    return _Setup(preset, ballots, absent)


def _closed_vote(setup: _Setup, *, with_absences: bool) -> e.VoteClosed:
    g = _game(setup.preset, PLAYERS)
    if with_absences:
        for player in sorted(setup.absent):
            g.ok(c.DeclareAbsence(player, g.now + timedelta(days=30)))
    number = g.propose(ALICE)
    for voter, choice in setup.ballots.items():
        g.vote(voter, number, choice)
    g.later(timedelta(days=8))
    closed = [ev for ev in g.events if isinstance(ev, e.VoteClosed) and ev.proposal == number]
    assert len(closed) == 1
    return closed[0]


@FAST
@given(setup=setups())
def test_an_absence_counts_exactly_as_a_missing_ballot(setup: _Setup) -> None:
    """The same ballots, with or without absences declared, close the vote the same way."""
    assert _closed_vote(setup, with_absences=True) == _closed_vote(setup, with_absences=False)
