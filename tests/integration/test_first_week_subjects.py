"""A player's first week through the running daemon: one tag in a reply's subject, the host's
notice by the channel the host has, and no to-do of the host's in the players' results.

Real Dovecot, a real SMTP sink and SQLite, as the other daemon tests.
"""

from __future__ import annotations

import pytest

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import SPEAKER, MakeGame, body_of, subject_of
from tests.support.patience import period

pytestmark = pytest.mark.integration

ALICE, BOB = "alice@nomic.test", "bob@nomic.test"
PLAYERS = ((ALICE, "Alice"), (BOB, "Bob"))
NOTICE = "Action needed by the Speaker"

db_url = db_url_on("sqlite")


def test_a_reply_to_a_tagged_subject_keeps_one_tag(make_game: MakeGame) -> None:
    game = make_game("nomicam", {"reminder_before": "none"})
    game.begin(*PLAYERS)
    game.send(ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
    distributed = subject_of(game.wait_subject("Proposal 301: Tea"))
    assert distributed == "[Test Nomic] Proposal 301: Tea"
    game.send(BOB, f"Re: {distributed}", "VOTE 301 FOR\n")
    reply = game.wait_for(lambda m: BOB in m.rcpt_tos and "Re:" in subject_of(m))
    assert " ".join(subject_of(reply).split()) == "[Test Nomic] Re: Proposal 301: Tea"
    game.send(BOB, "AW: Re: [Test Nomic] Re: Proposal 301: Tea", "VOTE 301 AGAINST\n")
    game.wait_for(lambda m: BOB in m.rcpt_tos and "Re:" in subject_of(m)
                  and m is not reply and "AGAINST" in body_of(m))
    subjects = {" ".join(subject_of(m).split()) for m in game.sent("Re:", to=BOB)}
    assert subjects == {"[Test Nomic] Re: Proposal 301: Tea"}, subjects
    assert game.stop() == 0


def test_without_an_admin_password_the_notice_names_speakerbot_admin_and_stays_private(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", {"voting_period": period(4), "reminder_before": "none"})
    config = game.config.read_text()
    game.config.write_text("\n".join(line for line in config.splitlines()
                                     if not line.startswith("admin_password")))
    game.begin(*PLAYERS)
    game.send(ALICE, "PROPOSE: Turns", "Amend Rule 204 to read: A proposal shall be made by "
              "the Voter whose turn it is.\n")
    game.wait_subject("Proposal 301: Turns")
    for voter in (ALICE, BOB):
        game.send(voter, "vote", "VOTE 301 FOR\n")
    results = body_of(game.wait_subject("Proposal 301 ADOPTED", to=ALICE))
    notice = " ".join(body_of(game.wait_subject(NOTICE, to=SPEAKER)).split())
    assert "speakerbot admin SET flow = ..." in notice, notice
    assert "flow = open" in notice and "Rule 204 changed by proposal 301" in notice, notice
    assert "PASSWORD" not in notice, notice
    assert "should check" not in results and "SET flow" not in results, results
    assert not [m for m in game.sent(NOTICE) if set(m.rcpt_tos) - {SPEAKER}]
    assert game.stop() == 0
