"""What a new host met in the first hour, through the running daemon.

Real Dovecot, a real SMTP sink, SQLite and PostgreSQL. Each test failed on the main before
the fix it names.
"""

from __future__ import annotations

import json
from email.utils import formatdate

import pytest

from tests.integration.game_harness import MX, PASSWORD, SPEAKER, MakeGame, body_of
from tests.integration.test_attacks import ALICE, start

pytestmark = pytest.mark.integration


def test_an_admin_dated_by_the_standard_library_is_obeyed(make_game: MakeGame) -> None:
    # formatdate() writes "-0000": UTC from a host that does not say its zone. The reader
    # took it for no date at all, so a fresh ADMIN was held as undated.
    game = start(make_game)
    date = formatdate()
    assert date.endswith("-0000")
    raw = (f"Authentication-Results: {MX}; dmarc=pass header.from=nomic.test\r\n"
           f"From: <{SPEAKER}>\r\nTo: game@nomic.test\r\nSubject: a fix\r\n"
           f"Date: {date}\r\nMessage-ID: <fix.1@nomic.test>\r\n\r\n"
           f"PASSWORD {PASSWORD}\r\nADMIN SCORE {ALICE} +5 solved the riddle\r\n").encode()
    game.append(raw)
    done = game.wait_subject("Re: a fix", to=SPEAKER)
    assert "Done" in body_of(done), body_of(done)
    assert game.state().players[ALICE].score == 5
    assert game.stop() == 0


def test_held_mail_says_why_in_the_store_the_command_line_the_log_and_parse(
        make_game: MakeGame) -> None:
    # An ADMIN with no Date at all: held, and until now nobody could see why; parse -c
    # said "authenticated" while the daemon held it.
    game = start(make_game)
    raw = (f"Authentication-Results: {MX}; dmarc=pass header.from=nomic.test\r\n"
           f"From: <{SPEAKER}>\r\nTo: game@nomic.test\r\nSubject: undated\r\n"
           f"Message-ID: <undated.1@nomic.test>\r\n\r\n"
           f"PASSWORD {PASSWORD}\r\nADMIN SCORE {ALICE} +5 solved the riddle\r\n").encode()
    game.append(raw)
    game.wait_subject("Please confirm", to=SPEAKER)
    listed = json.loads(game.cli("inbound", "list", "--json").stdout)
    [row] = [row for row in listed if row["message_id"] == "<undated.1@nomic.test>"]
    assert row["status"] == "held" and row["reason"] == "not-authenticated", row
    assert "not dated within a day" in row["note"], row
    shown = game.cli("inbound", "show", str(row["id"])).stdout
    assert "reason:        not-authenticated" in shown and "not dated within a day" in shown
    plain = game.cli("inbound", "list").stdout
    assert "[not-authenticated]" in plain
    assert game.log_text().count(f"inbound message {row['id']} held (not-authenticated)") == 1
    # speakerbot parse, given the game's configuration, reaches the daemon's verdict in the
    # daemon's words.
    eml = game.tmp / "undated.eml"
    eml.write_bytes(raw)
    parsed = json.loads(game.cli("parse", str(eml)).stdout)
    verdict = parsed["authentication"]
    assert verdict["authenticated"] is False
    assert verdict["why"] in row["note"]
    assert game.stop() == 0
