"""What a new host met in the first hour, through the running daemon.

Real Dovecot, a real SMTP sink, SQLite and PostgreSQL. Each test failed on the main before
the fix it names.
"""

from __future__ import annotations

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
