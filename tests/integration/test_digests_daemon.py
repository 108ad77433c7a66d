"""Digests by choice through the running daemon, over IMAP and SMTP (issue 39).

Alice sends DIGEST ON: a distribution and its result go to every other player as they
happen, none to her. At the digest time (set a few seconds ahead in the game's time zone,
the daemon restarted to read it) she gets one MIME digest holding both, whole; DIGEST OFF
then brings her the next distribution as it goes.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import MakeGame, RunningGame, body_of, subject_of
from tests.support.digests import enclosed
from tests.support.patience import patience, period

ALICE, BOB = "alice@nomic.test", "bob@nomic.test"
MECHANICS = {"voting_period": period(600), "reminder_before": "none", "win_points": "1000"}
ZONE = "Asia/Kolkata"  # UTC+05:30: the digest time is the game's, not UTC's

# The mail path is the subject, not the store: SQLite serves.
db_url = db_url_on("sqlite")


def _set_digest_time(game: RunningGame, when: datetime) -> None:
    """Write ``[game] digest_time`` (and ``timezone``) into the game's config."""
    local = when.astimezone(ZoneInfo(ZONE)).strftime("%H:%M:%S")
    lines = [line for line in game.config.read_text().splitlines()
             if not line.startswith(("digest_time", "timezone"))]
    at = lines.index("open_registration = true")
    lines[at + 1:at + 1] = [f'digest_time = "{local}"', f'timezone = "{ZONE}"']
    game.config.write_text("\n".join(lines) + "\n")


def _enclosed(message: EmailMessage) -> list[EmailMessage]:
    """Return the messages a MIME digest holds, in order."""
    return enclosed(message)


def test_a_reader_gets_one_digest_of_a_distribution_and_a_result_and_no_copies(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    # Twelve hours off while the day is played: no digest falls due before the test asks.
    _set_digest_time(game, datetime.now(UTC) + timedelta(hours=12))
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(ALICE, "digests", "DIGEST ON\n")
    assert "Digest mode is on" in body_of(game.wait_subject("Re: digests", to=ALICE))

    game.send(BOB, "PROPOSE: Tea", "Tea is served at four.\n")
    distribution = game.wait_subject("Proposal 301: Tea", to=BOB)
    for voter in (ALICE, BOB):
        game.send(voter, f"vote {voter}", "VOTE 301 FOR\n")
        game.wait_subject(f"Re: vote {voter}", to=voter)
    game.cli("admin", "CLOSE", "301")
    result = game.wait_subject("Proposal 301 ADOPTED", to=BOB)
    assert game.copies("Proposal 301", to=ALICE) == []
    assert game.stop() == 0

    # The digest time a few seconds ahead: the daemon reads it when it starts.
    _set_digest_time(game, datetime.now(UTC) + timedelta(seconds=patience(8)))
    game.start()
    game.wait_log("running the game")
    digest = game.wait_subject("Digest for", to=ALICE, timeout=patience(60))
    assert digest.rcpt_tos == (ALICE,)
    inner = _enclosed(digest.parsed())
    ids = [message["Message-ID"] for message in inner]
    assert distribution.parsed()["Message-ID"] in ids
    assert result.parsed()["Message-ID"] in ids
    assert ids.index(distribution.parsed()["Message-ID"]) < ids.index(
        result.parsed()["Message-ID"])
    assert "Proposal 301: Tea" in body_of(digest)  # the table of contents
    assert game.copies("Proposal 301", to=ALICE) == []

    game.send(ALICE, "singles", "DIGEST OFF\n")
    assert "Digest mode is off" in body_of(game.wait_subject("Re: singles", to=ALICE))
    game.send(BOB, "PROPOSE: Cake", "Cake is served at five.\n")
    assert game.wait_reached("Proposal 302: Cake", {ALICE, BOB}) >= {ALICE, BOB}
    assert len(game.sent("Digest for", to=ALICE)) == 1
    assert [subject_of(m) for m in game.copies("Digest for")] == [subject_of(digest)]
    assert game.stop() == 0
