"""The pace of play: the host's pause, absences, and a turn's deadline (pace.py, absence.py)."""

from __future__ import annotations

from datetime import timedelta

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import next_deadline
from speakerbot.engine import pace_events as pe
from speakerbot.engine.model import ProposalStatus
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, DAY, SPEAKER
from tests.engine.harness import Game

HOUR = timedelta(hours=1)
# Tests of the pace keep the debate out of the way: the vote starts with the proposal.
TURNS = {"turn_period": "3d"}


def test_a_pause_holds_the_vote_and_resuming_moves_its_deadline_on() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL])
    number = g.propose(ALICE)
    closes = g.state.proposals[number].closes_at
    assert closes is not None
    g.later(5 * DAY)
    g.ok(c.PauseGame(SPEAKER, "  the  holidays "))
    assert g.last(pe.GamePaused).reason == "the holidays"
    assert g.last(e.SpeakerOverride).summary == "paused the game: the holidays"
    g.refused(c.PauseGame(SPEAKER), "already paused", "the holidays", "ADMIN RESUME")
    # Across the deadline nothing falls due: no reminder, no close; ballots are taken in.
    assert g.later(4 * DAY) == []
    assert next_deadline(g.state) is None
    g.vote(BOB, number, "FOR")
    assert g.state.proposals[number].status is ProposalStatus.OPEN
    g.ok(c.ResumeGame(SPEAKER))
    assert g.last(e.SpeakerOverride).summary.startswith("resumed the game (paused since ")
    moved = g.state.proposals[number].closes_at
    assert moved == closes + 4 * DAY
    g.refused(c.ResumeGame(SPEAKER), "not paused", "ADMIN PAUSE")
    reminded = g.later(moved - g.now - HOUR)
    assert g.reminded(reminded) == {(number, ALICE), (number, CAROL)}
    closed = g.later(HOUR)
    assert g.of(e.VoteClosed, closed)[0].at == moved


def test_a_vote_everyone_voted_on_while_paused_closes_when_the_game_resumes() -> None:
    g = Game("suber", [ALICE, BOB], mechanics=TURNS)
    number = g.propose(ALICE)
    g.ok(c.PauseGame(SPEAKER))
    g.vote(ALICE, number, "FOR")
    g.vote(BOB, number, "FOR")
    assert g.state.proposals[number].status is ProposalStatus.OPEN
    g.dice.load(2)
    resumed = g.ok(c.ResumeGame(SPEAKER))
    assert g.of(e.VoteClosed, resumed)[0].adopted


def test_only_the_host_pauses_and_a_judge_deadline_waits_too() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL])
    g.refused(c.PauseGame(ALICE), "only the Speaker")
    g.ok(c.CallForJudgement(BOB, "Rule 101 holds"))
    deadline = g.state.cfjs[1].deadline
    assert deadline is not None
    g.ok(c.PauseGame(SPEAKER))
    assert g.later(10 * DAY) == []
    g.ok(c.ResumeGame(SPEAKER))
    assert g.state.cfjs[1].deadline == deadline + 10 * DAY


def test_an_absent_player_is_not_reminded_nor_drawn_as_judge() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    g.ok(c.DeclareAbsence(BOB, g.now + 10 * DAY, "at  sea", longest=14 * DAY))
    assert g.last(pe.AbsenceDeclared).reason == "at sea"
    number = g.propose(ALICE)
    reminded = g.later(7 * DAY - HOUR)
    assert g.reminded(reminded) == {(number, ALICE), (number, CAROL), (number, DAVE)}
    # The Speaker's CFJ goes to a random Voter other than the caller: Bob is not drawn.
    g.dice.load(0)
    g.ok(c.CallForJudgement(SPEAKER, "Rule 101 holds"))
    assert BOB not in g.last(e.JudgeAssigned).drawn_from
    closed = g.later(HOUR)
    assert BOB in g.of(e.VoteClosed, closed)[0].non_voters
    ended = g.later(3 * DAY)
    assert g.of(pe.AbsenceEnded, ended) == [pe.AbsenceEnded(g.now, BOB, False)]
    assert number and BOB not in g.state.absences


def test_absence_refusals_and_back() -> None:
    g = Game("nomicam", [ALICE, BOB])
    g.refused(c.DeclareAbsence(ALICE, g.now - DAY), "must end after now", "later date")
    g.refused(c.DeclareAbsence(ALICE, g.now + 20 * DAY, longest=14 * DAY),
              "at most 14d", "ADMIN ABSENT")
    g.refused(c.EndAbsence(ALICE), "you are not absent", "ABSENT UNTIL")
    g.ok(c.SetAbsence(SPEAKER, "Alice", g.now + 40 * DAY, "sabbatical"))
    assert g.last(pe.AbsenceDeclared).by_speaker
    assert g.last(e.SpeakerOverride).summary == "declared Alice absent until 2026-02-14"
    g.ok(c.EndAbsence(ALICE))
    assert g.last(pe.AbsenceEnded).early and ALICE not in g.state.absences


def test_a_silent_mover_is_reminded_everyone_told_and_the_host_skips_the_turn() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], mechanics=TURNS)
    assert g.state.turn is not None and g.state.turn.mover == ALICE
    reminded = g.later(2 * DAY)
    assert g.of(pe.TurnReminder, reminded) == [pe.TurnReminder(g.now, 1, ALICE, g.now + DAY)]
    told = g.later(DAY)
    assert g.of(pe.TurnOverdue, told) == [pe.TurnOverdue(g.now, 1, ALICE, g.now)]
    g.step(5 * DAY)  # told once
    g.refused(c.SkipTurn(ALICE), "only the Speaker")
    skipped = g.ok(c.SkipTurn(SPEAKER))
    assert g.of(e.SpeakerOverride, skipped)[0].summary == "skipped Alice's turn"
    assert g.of(e.TurnPassed, skipped)[0].mover == BOB
    number = g.propose(BOB)
    g.refused(c.SkipTurn(SPEAKER), "Bob has proposed", f"ADMIN CLOSE {number}")
    closes = g.state.proposals[number].closes_at
    assert closes is not None and next_deadline(g.state) == closes - DAY  # the vote's reminder


def test_an_absent_mover_is_not_reminded_but_everyone_is_told() -> None:
    g = Game("suber", [ALICE, BOB], mechanics=TURNS)
    g.ok(c.DeclareAbsence(ALICE, g.now + 10 * DAY))
    told = g.later(3 * DAY)
    assert not g.of(pe.TurnReminder, told)
    assert g.of(pe.TurnOverdue, told)[0].absent


def test_a_pause_moves_the_turns_deadline_and_skipping_needs_turns() -> None:
    g = Game("suber", [ALICE, BOB], mechanics=TURNS)
    g.ok(c.PauseGame(SPEAKER))
    assert g.later(5 * DAY) == []
    g.ok(c.ResumeGame(SPEAKER))
    assert next_deadline(g.state) == g.now + 2 * DAY  # the reminder, a day before
    open_game = Game("nomicam", [ALICE])
    open_game.refused(c.SkipTurn(SPEAKER), "no turn to skip")


def test_old_records_have_no_turn_deadline() -> None:
    g = Game("suber", [ALICE, BOB], mechanics={**TURNS, "turn_period": "none"})
    g.step(30 * DAY)
