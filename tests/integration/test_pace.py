"""The pace of play through the running daemon: a pause across a voting deadline, a silent
mover reminded and skipped (by mail, then with ``speakerbot admin SKIP`` from the server),
an absent player neither reminded nor drawn as Judge.

Real Dovecot, a real SMTP sink, SQLite and PostgreSQL; the periods are seconds long.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.codec import event_from_json
from tests.integration.conftest import db_url_on
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, body_of, subject_of
from tests.support.patience import period

ALICE, BOB, CAROL = "alice@nomic.test", "bob@nomic.test", "carol@nomic.test"

# These scenarios wait out periods of seconds: their subject is the game's time, not the
# store, so they run on SQLite (SPEAKERBOT_ALL_BACKENDS=1 adds PostgreSQL; both pass).
db_url = db_url_on("sqlite")


def _running(make_game: MakeGame, ruleset: str, mechanics: dict[str, str]) -> RunningGame:
    game = make_game(ruleset, mechanics)
    game.begin((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"))
    game.wait_log("running the game")
    return game


def _recorded(game: RunningGame, kind: type[e.Event]) -> list[e.Event]:
    return [event for event in (event_from_json(dict(data)) for data in game.events())
            if isinstance(event, kind)]


def _until(moment: datetime) -> None:
    """Wait until the wall clock has passed ``moment`` (the deadline itself is what is tested)."""
    while datetime.now(UTC) <= moment:
        time.sleep(0.1)


def test_a_vote_paused_across_its_deadline_closes_only_after_resume_at_the_moved_deadline(
        make_game: MakeGame) -> None:
    game = _running(make_game, "nomicam", {"voting_period": period(6), "reminder_before": "none",
                                           "win_points": "1000"})
    game.send(ALICE, "PROPOSE: Sing", "Players may sing.\n")
    game.wait_subject("Proposal 301: Sing")
    assert "Done: paused the game: snow" in game.admin("pause", "ADMIN PAUSE snow")
    game.wait_reached("Speaker's override: paused the game: snow", {ALICE, BOB, CAROL, SPEAKER})
    deadline = game.state().proposals[301].closes_at
    assert deadline is not None

    _until(deadline + timedelta(seconds=2))
    game.send(BOB, "vote", "VOTE 301 FOR\nSTATUS\n")  # ballots are still taken in
    reply = body_of(game.wait_subject("Re: vote", to=BOB))
    assert "Your ballot on proposal 301 is FOR" in reply and "The game is paused" in reply
    assert game.sent("Proposal 301 ADOPTED") == game.sent("Proposal 301 REJECTED") == []
    assert _recorded(game, e.VoteClosed) == []

    game.admin("resume", "ADMIN RESUME")
    game.wait_subject("Speaker's override: resumed the game")
    (resumed,) = _recorded(game, pe.GameResumed)
    assert isinstance(resumed, pe.GameResumed)
    moved = deadline + (resumed.at - resumed.paused_at)
    assert game.state().proposals[301].closes_at == moved
    results = game.wait_for(lambda m: "Proposal 301" in subject_of(m)
                            and ("ADOPTED" in subject_of(m) or "REJECTED" in subject_of(m)))
    (closed,) = _recorded(game, e.VoteClosed)
    assert closed.at >= moved > deadline
    assert "Bob" in body_of(results)
    game.stop()


def test_a_silent_suber_mover_is_reminded_everyone_told_and_the_host_skips_by_mail_and_cli(
        make_game: MakeGame) -> None:
    game = _running(make_game, "suber", {"turn_period": period(8),
                                         "reminder_before": period(4)})
    reminder = game.wait_subject("Reminder: your turn 1 ends", to=ALICE)
    assert "have not proposed yet" in " ".join(body_of(reminder).split())
    told = game.wait_subject("Turn 1: waiting for Alice")
    game.wait_reached("Turn 1: waiting for Alice", {ALICE, BOB, CAROL, SPEAKER})
    assert "ADMIN SKIP" in body_of(told)
    assert len(game.sent("Reminder: your turn 1")) == 1

    assert "Done: skipped Alice's turn" in game.admin("skip", "ADMIN SKIP")
    skipped = game.wait_subject("Speaker's override: skipped Alice's turn")
    assert "Turn 2: it is Bob's turn to propose" in body_of(skipped)
    state = game.state()
    assert state.turn is not None and (state.turn.number, state.turn.mover) == (2, BOB)
    assert len(game.sent("Turn 1: waiting for Alice")) == 1  # told once

    # Bob is silent too; the host skips him from the server, while the daemon runs.
    game.wait_subject("Turn 2: waiting for Bob")
    done = game.cli("admin", "SKIP")
    assert "skipped Bob's turn" in done.stdout
    by_desk = game.wait_subject("Speaker's override: skipped Bob's turn")
    assert "Turn 3: it is Carol's turn to propose" in body_of(by_desk)
    state = game.state()
    assert state.turn is not None and (state.turn.number, state.turn.mover) == (3, CAROL)
    game.stop()


def test_an_absent_player_gets_no_reminder_and_is_not_drawn_as_judge(
        make_game: MakeGame) -> None:
    game = _running(make_game, "nomicam", {"voting_period": period(8),
                                           "reminder_before": period(5),
                                           "win_points": "1000"})
    back = (datetime.now(UTC) + timedelta(days=5)).date().isoformat()
    game.send(BOB, "away", f"ABSENT UNTIL {back} sailing\n")
    assert "You are away until" in body_of(game.wait_subject("Re: away", to=BOB))
    game.wait_subject(f"Bob is away until {back}")

    game.send(SPEAKER, "CFJ: Rule 101 holds", "")  # the Speaker's CFJ: a random Voter judges
    game.wait_subject("CFJ 1:")
    (assigned,) = _recorded(game, e.JudgeAssigned)
    assert isinstance(assigned, e.JudgeAssigned)
    assert assigned.judge != BOB and BOB not in assigned.drawn_from and assigned.drawn_from

    game.send(ALICE, "PROPOSE: Sing", "Players may sing.\n")
    game.wait_subject("Proposal 301: Sing")
    for voter in (ALICE, CAROL):
        game.wait_subject("Reminder: vote on proposal 301", to=voter)
    game.wait_subject("Proposal 301 REJECTED")  # no quorum: nobody voted
    assert game.sent("Reminder", to=BOB) == []
    game.stop()
