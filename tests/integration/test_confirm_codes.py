"""Confirmation that a forger cannot spend: a code per held message, requests coalesced.

Through the real GameService on SQLite, with the clock moved by the test. The attack: forged
unauthenticated mail in a player's name used up the address's requests for the day, and the
one code that finally came released the forgeries along with the player's own message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json
from tests.support.mailgame import ALICE, BOB, CAROL, Mail, MailGame

_CODE = re.compile(r"^CONFIRM ([0-9a-f]{32})$", re.MULTILINE)
GAP = timedelta(minutes=10)


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    game = MailGame(tmp_path, "nomicam", (ALICE, BOB, CAROL))
    game.send(ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
    yield game
    game.close()


def requests_to(game: MailGame, address: str) -> list[Mail]:
    return [m for m in game.outbox() if m.row.kind == "confirm" and m.recipients == (address,)]


def codes(request: Mail) -> dict[str, str]:
    """Each message a request lists, by its subject, with the code that confirms it."""
    found: dict[str, str] = {}
    start = 0
    for match in _CODE.finditer(request.body):
        subject = re.findall(r'"([^"]*)"', request.body[start:match.start()])
        assert subject, request.body
        found[subject[-1]] = match.group(1)
        start = match.end()
    return found


def ballot(game: MailGame, voter: str) -> str | None:
    found = game.service.state().proposals[301].ballots.get(voter)
    return None if found is None else found.choice.value


def status(game: MailGame, sent: Any) -> str:
    return game.store.inbound(sent.inbound_id).status


def forge(game: MailGame, count: int, first: int = 1,
          apart: timedelta = timedelta(seconds=5)) -> list[Any]:
    """Forged unauthenticated ballots in Bob's name, ``apart`` from each other."""
    return [game.send(BOB, f"forged {n}", "VOTE 301 AGAINST\n", authenticated=False,
                      after=apart) for n in range(first, first + count)]


def test_each_held_message_gets_a_code_that_releases_it_alone(game: MailGame) -> None:
    before = forge(game, 6)
    [first] = requests_to(game, BOB)
    assert list(codes(first)) == ["forged 1"]
    real = game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False,
                     after=timedelta(seconds=5))
    after = forge(game, 3, first=7)
    assert len(requests_to(game, BOB)) == 1, "a second request within the gap"
    game.clock.now += GAP
    game.service.tick()
    [_, second] = requests_to(game, BOB)
    listed = codes(second)
    # Every message not asked about yet, in the order received, each with its own code.
    assert list(listed) == [*(f"forged {n}" for n in range(2, 7)), "my vote",
                            *(f"forged {n}" for n in range(7, 10))]
    assert len(set(listed.values())) == len(listed)
    assert second.subject.endswith("Please confirm your messages")
    game.send(BOB, "yes", f"CONFIRM {listed['my vote']}\n", authenticated=False)
    assert ballot(game, BOB) == "FOR"
    assert status(game, real) == "processed"
    assert {status(game, sent) for sent in before + after} == {"held"}
    cast = [event_from_json(r.data) for r in game.store.load_events()]
    assert [ev.choice.value for ev in cast if isinstance(ev, e.BallotCast)
            and ev.voter == BOB] == ["FOR"]


def test_a_forger_cannot_use_up_the_requests_ahead_of_the_real_message(
        game: MailGame) -> None:
    """The old limit, five a day, went to the first five forgeries; the real mail waited."""
    for n in range(6):
        game.send(BOB, f"forged {n}", "VOTE 301 AGAINST\n", authenticated=False, after=GAP)
    assert len(requests_to(game, BOB)) == 6
    game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False, after=GAP)
    request = requests_to(game, BOB)[-1]
    assert list(codes(request)) == ["my vote"]
    game.send(BOB, "yes", f"CONFIRM {codes(request)['my vote']}\n", authenticated=False)
    assert ballot(game, BOB) == "FOR"


def test_requests_to_an_address_are_bounded_by_the_gap(game: MailGame) -> None:
    forge(game, 30, apart=timedelta(seconds=30))  # 15 minutes of forgeries
    # One at the first, one when the gap had passed: the second took what waited.
    sent = requests_to(game, BOB)
    assert len(sent) == 2
    game.clock.now += GAP
    game.service.tick()
    sent = requests_to(game, BOB)
    assert len(sent) == 3
    assert sum(len(codes(request)) for request in sent) == 30


def test_mail_that_waited_goes_with_the_next_message_once_the_gap_has_passed(
        game: MailGame) -> None:
    forge(game, 2)
    game.clock.now += GAP  # no tick: the next message finds the forgery still waiting
    game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    [_, second] = requests_to(game, BOB)
    assert list(codes(second)) == ["forged 2", "my vote"]


def test_the_daemon_wakes_when_a_waiting_request_may_go_out(game: MailGame) -> None:
    assert game.service.next_wakes()["confirm-request"] is None
    forge(game, 2)
    [request] = requests_to(game, BOB)
    due = game.service.next_wakes()["confirm-request"]
    assert due is not None and due == request.row.created_at + GAP
    game.clock.now = due
    game.service.tick()
    assert len(requests_to(game, BOB)) == 2
    assert game.service.next_wakes()["confirm-request"] is None


def test_the_gap_is_a_setting(tmp_path: Path) -> None:
    game = MailGame(tmp_path, "nomicam", (ALICE, BOB), auth={"confirm_gap": "30s"})
    try:
        game.send(ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
        forge(game, 2)
        assert len(requests_to(game, BOB)) == 1
        game.clock.now += timedelta(seconds=30)
        game.service.tick()
        assert len(requests_to(game, BOB)) == 2
    finally:
        game.close()


def several_held(game: MailGame) -> tuple[Mail, list[Any], Any]:
    """A request listing two forgeries and Bob's own vote between them."""
    forge(game, 1)
    forged = forge(game, 1, first=2)
    real = game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False,
                     after=timedelta(seconds=5))
    forged += forge(game, 1, first=3)
    game.clock.now += GAP
    game.service.tick()
    return requests_to(game, BOB)[-1], forged, real


def test_a_reply_quoting_a_whole_request_of_several_messages_confirms_none(
        game: MailGame) -> None:
    request, forged, real = several_held(game)
    thread = [("In-Reply-To", str(request.header("Message-ID")))]
    quoted = "\n".join("> " + line for line in request.body.splitlines())
    reply = game.send(BOB, "Re: confirm", f"Yes.\n\n{quoted}\n", authenticated=False,
                      headers=thread)
    assert ballot(game, BOB) is None
    assert {status(game, sent) for sent in [*forged, real]} == {"held"}
    assert "carries the code of every message" in " ".join(
        game.replies_to(reply.message_id)[0].body.split())
    # Quoted without marks, every CONFIRM line reads as the sender's own: the same.
    game.send(BOB, "Re: confirm", request.body, authenticated=False, headers=thread)
    assert ballot(game, BOB) is None
    # The reply keeping only the real message's line confirms it, and it alone.
    kept = "\n".join("> " + line for line in request.body.splitlines()
                     if not line.startswith("CONFIRM ")
                     or line == f"CONFIRM {codes(request)['my vote']}")
    game.send(BOB, "Re: confirm", f"Yes, that one.\n\n{kept}\n", authenticated=False,
              headers=thread)
    assert ballot(game, BOB) == "FOR"
    assert status(game, real) == "processed"
    assert {status(game, sent) for sent in forged} == {"held"}


def test_a_request_quoted_back_after_one_code_was_used_releases_nothing_more(
        game: MailGame) -> None:
    request, forged, real = several_held(game)
    game.send(BOB, "yes", f"CONFIRM {codes(request)['my vote']}\n", authenticated=False)
    assert status(game, real) == "processed"
    quoted = "\n".join("> " + line for line in request.body.splitlines())
    game.send(BOB, "Re: confirm", f"Thanks.\n\n{quoted}\n", authenticated=False)
    assert ballot(game, BOB) == "FOR"
    assert {status(game, sent) for sent in forged} == {"held"}


def test_typed_codes_confirm_their_messages_in_the_order_received(game: MailGame) -> None:
    first = game.send(BOB, "first", "VOTE 301 AGAINST\n", authenticated=False)
    game.send(BOB, "second", "VOTE 301 FOR\n", authenticated=False, after=timedelta(seconds=5))
    third = game.send(BOB, "third", "VOTE 301 AGAINST\n", authenticated=False,
                      after=timedelta(seconds=5))
    game.clock.now += GAP
    game.service.tick()
    [opening, second] = requests_to(game, BOB)
    listed = codes(second)
    assert list(listed) == ["second", "third"]
    # Two of the three, named in the other order: applied in the order they were received.
    game.send(BOB, "yes", f"CONFIRM {listed['second']}\nCONFIRM {codes(opening)['first']}\n",
              authenticated=False)
    assert ballot(game, BOB) == "FOR"
    assert status(game, first) == "processed" and status(game, third) == "held"
    # Another address's code confirms nothing of Bob's.
    game.send(CAROL, "mine?", f"CONFIRM {listed['third']}\n", authenticated=False)
    assert status(game, third) == "held"


def test_what_is_said_about_the_codes_goes_to_the_confirming_message_alone(
        game: MailGame) -> None:
    held = game.send(BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
    [request] = requests_to(game, BOB)
    confirm = game.send(BOB, "yes", f"CONFIRM {codes(request)['my vote']}\n"
                        f"CONFIRM {'0' * 32}\n", authenticated=False)
    assert ballot(game, BOB) == "FOR"
    [released] = game.replies_to(held.message_id)
    assert "no request for confirmation has that code" not in released.body
    [answer] = game.replies_to(confirm.message_id)
    assert "no request for confirmation has that code" in " ".join(answer.body.split())
