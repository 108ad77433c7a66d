"""No message can take a game down: the edit bomb, and a message that kills every reader.

Through the real daemon, restarted on every exit as systemd's ``Restart=always`` would, on
real Dovecot, a real SMTP sink, SQLite and PostgreSQL. The edit bomb (nine lines of
"replace every e with ten e's") once exhausted any memory limit and, killed, was read again
after every restart; a message that kills the process reading it (here a crash point, as
the out-of-memory killer would) is now set aside after three starts, the host told once,
and the mail behind it goes on.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from speakerbot.adapters.store import InboundRow, Store
from speakerbot.engine.edits import MAX_RULE_BYTES
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, body_of
from tests.support.patience import patience
from tests.support.supervisor import Supervisor

pytestmark = pytest.mark.integration

ALICE, BOB, MALLORY = "alice@nomic.test", "bob@nomic.test", "mallory@webmail.test"
QUIET = {"reminder_before": "none", "voting_period": "1h"}
GIGABYTE = 1024**3


def bomb(lines: int) -> str:
    edits = "\n".join('Amend Rule 202 by replacing every occurrence of "e" with "eeeeeeeeee".'
                      for _ in range(lines))
    return f"PROPOSE Longer rules\n{edits}\nEND PROPOSE\n"


def inbound(game: RunningGame) -> list[InboundRow]:
    with Store(game.db_url) as store:
        return list(reversed(store.list_inbound(limit=1000)))


def wait_until(what: str, done: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not done():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def game(make_game: MakeGame) -> Iterator[RunningGame]:
    running = make_game("nomicam", QUIET)
    running.cli("init")
    for address, name in ((ALICE, "Alice"), (BOB, "Bob")):
        running.cli("player", "add", address, name)
    yield running


def test_the_six_line_bomb_is_refused_with_its_size_and_no_large_mail_is_sent(
        game: RunningGame) -> None:
    with Supervisor(game):
        game.send(MALLORY, "joining", "JOIN Mallory\n")
        game.wait_subject("Re: joining", to=MALLORY)
        game.send(MALLORY, "a small change", bomb(6))
        reply = game.wait_subject("Re: a small change", to=MALLORY)
        game.send(BOB, "bob asks", "STATUS\n")
        game.wait_subject("Re: bob asks", to=BOB)
    text = " ".join(body_of(reply).split())
    assert "rule 202 would be" in text and f"limit of {MAX_RULE_BYTES} bytes" in text, text
    assert not any(kind == "ProposalSubmitted" for kind in
                   (str(event["type"]) for event in game.events()))
    assert max(len(message.data) for message in game.sink.messages) < 64 * 1024


def test_the_nine_line_bomb_under_a_gigabyte_stalls_nobody(game: RunningGame) -> None:
    with Supervisor(game, address_space=GIGABYTE) as supervisor:
        game.send(MALLORY, "joining", "JOIN Mallory\n")
        game.wait_subject("Re: joining", to=MALLORY)
        game.send(MALLORY, "nine lines", bomb(9))
        game.send(BOB, "bob asks", "STATUS\n")
        started = time.monotonic()
        game.wait_subject("Re: bob asks", to=BOB, timeout=patience(60))
        answered = time.monotonic() - started
        refusal = game.wait_subject("Re: nine lines", to=MALLORY)
    assert answered < patience(60)
    assert "rule 202 would be" in " ".join(body_of(refusal).split())
    assert supervisor.exits == [], game.log_text()[-3000:]
    assert max(len(message.data) for message in game.sink.messages) < 64 * 1024


def test_a_message_that_kills_every_reader_is_set_aside_and_the_mail_behind_it_goes_on(
        game: RunningGame) -> None:
    # Both wait in the mailbox before the daemon starts: one batch, as after an outage.
    game.send(ALICE, "POISON", "STATUS\n")
    game.send(BOB, "bob asks", "STATUS\n")
    with Supervisor(game, SPEAKERBOT_CRASHPOINT="processing",
                    SPEAKERBOT_CRASHPOINT_MATCH="POISON") as supervisor:
        game.wait_subject("Re: bob asks", to=BOB, timeout=patience(60))
        notice = game.wait_subject("set aside", to=SPEAKER)
        wait_until("the mailbox emptied", lambda: game.inbox() == [], patience(30))
    # Killed three times in it (the batch, then twice alone), set aside at the fourth start.
    assert supervisor.exits == [-9, -9, -9], supervisor.exits
    rows = {row.message_id: row for row in inbound(game)}
    poison = [row for row in rows.values() if row.sender == ALICE]
    assert [row.status for row in poison] == ["set_aside"]
    assert "never finished" in (poison[0].error or "")
    assert [row.status for row in rows.values() if row.sender == BOB] == ["processed"]
    assert ALICE in body_of(notice) and "never finished" in body_of(notice)
    assert len(game.sent("set aside", to=SPEAKER)) == 1
    assert not game.sent("Re: POISON")
