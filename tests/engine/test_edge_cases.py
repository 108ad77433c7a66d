"""Edges of the rules: forfeit is always possible, votes are scored by the rules they were
held under, a deserted turn-based game restarts, and reminders only when there is time."""

from __future__ import annotations

from datetime import timedelta

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.model import Judgement
from tests.engine.cast import ALICE, BOB, CAROL, DAY, SPEAKER
from tests.engine.harness import Game, set_


def test_a_judge_may_forfeit_even_when_no_other_judge_can_be_selected() -> None:
    g = Game("nomicam", [ALICE, BOB])
    g.ok(c.CallForJudgement(ALICE, "Is it so?"))
    g.dice.load(0)
    g.later(7 * DAY)  # the Speaker misses the deadline; Bob, the only candidate, is drawn
    assert g.state.cfjs[1].judge == BOB
    g.ok(c.Forfeit(BOB))  # rule 113: always possible
    assigned = g.last(e.JudgeAssigned)
    assert assigned.judge == SPEAKER and "no other Judge could be selected" in assigned.how
    g.ok(c.DeliverJudgement(SPEAKER, 1, Judgement.FALSE))


def test_a_suber_judge_may_forfeit_with_no_one_left_to_judge() -> None:
    g = Game("suber", [ALICE, BOB])
    g.ok(c.CallForJudgement(ALICE, "Is it so?"))
    assert g.state.cfjs[1].judge == BOB
    g.ok(c.Forfeit(BOB))
    assert g.state.cfjs[1].judge == SPEAKER  # the host keeps it


def test_a_vote_is_scored_by_the_rules_it_was_held_under() -> None:
    g = Game("nomicam", [ALICE, BOB])
    number = g.propose(ALICE, set_("proposer_adopted_points", "100"))
    g.votes(number, alice="FOR", bob="FOR")
    g.later(7 * DAY)
    assert g.score(ALICE) == 10 and not g.of(e.GameWon)  # not 100: no retroactive effect
    second = g.propose(ALICE)
    g.votes(second, alice="FOR", bob="FOR")
    g.later(7 * DAY)
    won = g.last(e.GameWon)
    assert won.winners == (ALICE,) and dict(won.scores)[ALICE] == 110  # the new value now


def test_a_turn_based_game_restarts_when_players_join_after_everyone_left() -> None:
    g = Game("suber", [ALICE])
    g.ok(c.Forfeit(ALICE))
    g.ok(c.AddPlayer(SPEAKER, BOB, "Bob"))
    g.ok(c.AddPlayer(SPEAKER, CAROL, "Carol"))
    assert g.state.turn is not None and g.state.turn.mover == BOB
    g.propose(BOB)


def test_no_judge_reminder_when_the_judging_period_is_shorter_than_the_lead() -> None:
    g = Game("nomicam", [ALICE, BOB], mechanics={"judge_period": "12h"})
    g.ok(c.CallForJudgement(ALICE, "Is it so?"))
    g.step(timedelta(seconds=1))  # nothing due: no reminder at once
    g.dice.load(0)  # the new Judge, drawn when the deadline is missed
    missed = g.later(timedelta(hours=12))
    assert not g.of(pe.Reminded) and g.of(e.JudgeDeadlineMissed, missed)
