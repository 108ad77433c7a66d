"""The host's desk while the daemon runs: a command-line write is announced within seconds.

``speakerbot admin`` and ``speakerbot player add`` write from a process of their own; the
running daemon notices (it looks at the store each second) and sends the announcement, and
its next reply reads the new state. The announcement is the one the mail twin causes. Real
Dovecot, a real SMTP sink, SQLite and PostgreSQL.
"""

from __future__ import annotations

import time

from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, body_of, subject_of
from tests.support.patience import patience

ALICE, BOB, CAROL = "alice@nomic.test", "bob@nomic.test", "carol@nomic.test"
MECHANICS = {"voting_period": "1h", "reminder_before": "none", "win_points": "1000"}
SOON = patience(10)
"""Seconds within which the daemon sends what the command line caused (it looks each
second; the rest is a busy test machine's margin, scaled). Without the look it waited up to
300 s."""


def _running(make_game: MakeGame) -> RunningGame:
    game = make_game("nomicam", MECHANICS)
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.wait_log("running the game")
    # What was queued before the start goes out at the first cycle.
    game.wait_for(lambda m: BOB in m.rcpt_tos)
    return game


def _announcement(game: RunningGame, fragment: str, seen: int) -> tuple[str, str, float]:
    """Wait for the next announcement whose subject holds ``fragment``; return it and when."""
    message = game.wait_for(lambda m: fragment in subject_of(m)
                            and len(game.sent(fragment)) > seen, timeout=patience(60))
    return subject_of(message), body_of(message).replace("\r\n", "\n"), time.monotonic()


def test_admin_from_the_desk_is_announced_within_seconds_as_its_mail_twin(
        make_game: MakeGame) -> None:
    game = _running(make_game)
    # The host wrote Alice's address; every player reads her name.
    override = "Speaker's override: changed Alice's score by +5"

    done = game.cli("admin", "SCORE", ALICE, "+5", "solved", "the", "riddle")
    issued = time.monotonic()
    assert "Done: changed alice@nomic.test's score by +5: solved the riddle" in done.stdout
    desk_subject, desk_body, arrived = _announcement(game, override, 0)
    assert arrived - issued < SOON, f"announced {arrived - issued:.1f} s after the command"
    assert {ALICE, BOB, SPEAKER} <= game.wait_reached(override, {ALICE, BOB, SPEAKER})

    # The daemon's next reply reads the new state: its cache follows the record.
    game.send(ALICE, "status", "STATUS\n")
    status = body_of(game.wait_subject("Re: status", to=ALICE))
    assert "Status for Alice (score 5):" in status, status

    # The same words by mail, with the password: the same announcement.
    game.admin("admin", f"ADMIN SCORE {ALICE} +5 solved the riddle")
    mail_subject, mail_body, _ = _announcement(game, override, 1)
    assert (mail_subject, mail_body) == (desk_subject, desk_body)

    # A refusal prints the reason and changes nothing; nothing is announced.
    events = len(list(game.events()))
    refused = game.cli("admin", "CLOSE", "999", check=False)
    assert refused.returncode == 1 and "Refused: there is no proposal 999" in refused.stderr
    unreadable = game.cli("admin", "CLOSE", "soon", check=False)
    assert unreadable.returncode == 2
    assert "ADMIN CLOSE needs just a proposal number" in unreadable.stderr
    assert len(list(game.events())) == events
    assert game.stop() == 0
    assert len(game.sent(override)) == 2
    game.verify_record()


def test_player_add_and_a_new_game_from_the_desk_go_out_at_once(make_game: MakeGame) -> None:
    game = _running(make_game)
    game.cli("player", "add", CAROL, "Carol")
    issued = time.monotonic()
    joined = game.wait_for(lambda m: CAROL in m.rcpt_tos)
    assert time.monotonic() - issued < SOON
    assert "Carol" in body_of(joined)

    game.cli("admin", "END", "GAME", "the", "season", "is", "over")
    game.wait_for(lambda m: "the season is over" in body_of(m))
    game.cli("admin", "NEW", "GAME", "suber")
    issued = time.monotonic()
    _announcement(game, "A new game begins", 0)
    assert time.monotonic() - issued < SOON
    # The daemon plays the new game at once: suber's turns, Alice's score back to 0.
    game.send(ALICE, "status", "STATUS\n")
    status = body_of(game.wait_subject("Re: status", to=ALICE))
    assert "Status for Alice (score 0):" in status and "Turn 1: it is" in status, status
    assert game.stop() == 0
    game.verify_record()
