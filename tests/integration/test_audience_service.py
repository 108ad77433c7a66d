"""Observers and bounces through the real GameService on SQLite, the clock moved by the test.

The daemon's own tests (``test_audience.py``) play the whole path over IMAP and SMTP; these
go through the cases one by one: who may observe, what a full game, a player, a forger or a
stranger gets, how bounces are scored, and that a bounce is never answered.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from speakerbot.mail.verp import bounce_address, message_ref
from tests.support.dsn import make_dsn
from tests.support.mailgame import ALICE, BOB, CAROL, DAVE, SPEAKER, Mail, MailGame

OLIVE = "olive@watchers.example"
PADDING = "\n-- \n" + "> the quoted lines of an earlier message, as clients keep them\n" * 30
_CODE = re.compile(r"CONFIRM ([0-9a-f]{32})\b")


def make(tmp_path: Path, **limits: int) -> MailGame:
    return MailGame(tmp_path, "nomicam", (ALICE, BOB, CAROL), limits=limits or None)


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    game = make(tmp_path)
    yield game
    game.close()


def to(game: MailGame, address: str, start: int = 0) -> list[Mail]:
    return [mail for mail in game.outbox()[start:] if address in mail.recipients]


def observe(game: MailGame, address: str = OLIVE) -> None:
    """OBSERVE and its confirmation, as a stranger who owns ``address`` sends them."""
    start = len(game.outbox())
    game.send(address, "watching", "OBSERVE\n" + PADDING)
    [request] = [mail for mail in to(game, address, start) if mail.row.kind == "confirm"]
    [code] = _CODE.findall(request.body)
    game.send(address, "yes", f"CONFIRM {code}\n")
    assert address in game.service.audience()[0]


def propose(game: MailGame, title: str) -> Mail:
    """Alice proposes; return the distribution."""
    game.send(ALICE, f"PROPOSE: {title}", f"{title} is served at four.\n")
    [mail] = [mail for mail in game.outbox() if mail.subject.endswith(f": {title}")
              and mail.row.kind == "announcement"]
    return mail


def test_public_mail_goes_to_observers_and_names_them_apart(game: MailGame) -> None:
    observe(game)
    distribution = propose(game, "Tea")
    assert OLIVE in distribution.recipients
    assert distribution.row.observers == (OLIVE,)
    assert set(distribution.recipients) - {OLIVE} == {ALICE, BOB, CAROL, SPEAKER}
    # Nothing private: the reply to Alice's proposal is hers alone.
    [reply] = [mail for mail in game.outbox() if mail.subject.endswith("Re: PROPOSE: Tea")]
    assert reply.recipients == (ALICE,)


def test_an_unconfirmed_observe_makes_no_observer(game: MailGame) -> None:
    game.send(OLIVE, "watching", "OBSERVE\n" + PADDING, authenticated=True)
    assert game.service.audience()[0] == {}
    [request] = to(game, OLIVE)
    assert request.row.kind == "confirm"
    assert OLIVE not in propose(game, "Tea").recipients


def test_a_request_is_never_larger_than_a_forgeable_message_that_asked(game: MailGame) -> None:
    game.send(OLIVE, "w", "OBSERVE\n", authenticated=False)  # smaller than a request
    assert to(game, OLIVE) == []


@pytest.mark.parametrize(("subject", "body"), [("w", "OBSERVE\n"), ("OBSERVE", "")])
def test_an_authenticated_observe_of_any_size_gets_its_request(
        game: MailGame, subject: str, body: str) -> None:
    game.send(OLIVE, subject, body)
    [request] = to(game, OLIVE)
    assert request.row.kind == "confirm"
    assert request.subject.endswith("Please confirm your subscription")
    flat = " ".join(request.body.split())
    assert "You asked to observe this game" in flat
    assert "could not be authenticated" not in flat
    [code] = _CODE.findall(request.body)
    game.send(OLIVE, "yes", f"CONFIRM {code}\n")
    assert OLIVE in game.service.audience()[0]


def test_an_address_gets_one_request_a_day_however_often_it_asks(game: MailGame) -> None:
    game.send(OLIVE, "w", "OBSERVE\n")
    game.clock.now += timedelta(hours=2)  # past the gap between requests, within the day
    game.send(OLIVE, "again", "OBSERVE\n")
    assert [mail.row.kind for mail in to(game, OLIVE)] == ["confirm"]


def test_a_full_game_takes_no_more_observers(tmp_path: Path) -> None:
    game = make(tmp_path, max_observers=1)
    try:
        observe(game)
        start = len(game.outbox())
        game.send(DAVE, "me too", "OBSERVE\n" + PADDING)
        [answer] = to(game, DAVE, start)
        assert answer.row.kind == "stranger" and "as many observers" in answer.body
        assert list(game.service.audience()[0]) == [OLIVE]
    finally:
        game.close()


def test_observing_can_be_turned_off(tmp_path: Path) -> None:
    game = make(tmp_path, max_observers=0)
    try:
        game.send(OLIVE, "watching", "OBSERVE\n" + PADDING)
        [answer] = to(game, OLIVE)
        assert answer.row.kind == "stranger" and "as many observers" in answer.body
    finally:
        game.close()


def test_an_observer_who_joins_is_a_player_and_no_longer_an_observer(
        game: MailGame) -> None:
    observe(game)
    game.send(OLIVE, "join", "JOIN Olive\n" + PADDING)
    assert OLIVE in game.service.state().players
    assert game.service.audience()[0] == {}
    distribution = propose(game, "Tea")
    assert distribution.row.observers == () and OLIVE in distribution.recipients


def test_unauthenticated_unobserve_waits_for_its_code(game: MailGame) -> None:
    observe(game)
    # Olive had her one mail of the day (the request, then the answer to her OBSERVE):
    # a forged UNOBSERVE today gets no request, and changes nothing.
    start = len(game.outbox())
    game.send(OLIVE, "UNOBSERVE", PADDING, authenticated=False)
    assert to(game, OLIVE, start) == [] and OLIVE in game.service.audience()[0]
    game.clock.now += timedelta(days=1)
    game.send(OLIVE, "UNOBSERVE", PADDING + "\n", authenticated=False)
    assert OLIVE in game.service.audience()[0]
    [request] = [mail for mail in to(game, OLIVE, start) if mail.row.kind == "confirm"]
    [code] = _CODE.findall(request.body)
    game.send(OLIVE, "yes", f"CONFIRM {code}\n")
    assert game.service.audience()[0] == {}


def test_an_observer_can_do_nothing_else(game: MailGame) -> None:
    observe(game)
    propose(game, "Tea")
    game.clock.now += timedelta(days=1)
    start = len(game.outbox())
    game.send(OLIVE, "my vote", "VOTE 301 FOR\n" + PADDING)
    assert OLIVE not in game.service.state().proposals[301].ballots
    assert [mail.row.kind for mail in to(game, OLIVE, start)] == ["stranger"]


def test_unobserve_from_no_observer_changes_nothing(game: MailGame) -> None:
    game.send(DAVE, "UNOBSERVE", PADDING)
    assert game.service.audience()[0] == {}
    assert [mail.row.kind for mail in to(game, DAVE)] == ["stranger"]


# --- Bounces --------------------------------------------------------------------------------


def bounce(game: MailGame, mail: Mail, recipient: str, *, status: str = "5.1.1",
           action: str = "failed", after: timedelta = timedelta(minutes=1)) -> None:
    """The relay's report that ``mail`` did not reach ``recipient``, to its return path."""
    identity = game.service.deps.identity
    return_path = bounce_address(identity.address, identity.secret,
                                 message_ref(mail.row.message_id), recipient)
    game.clock.now += after
    game.service.receive(make_dsn(mail.row.raw, return_path, recipient, status=status,
                                  action=action), game.clock.now, source="test")
    game.process()


def unreachable(game: MailGame) -> set[str]:
    return set(game.service.audience()[1])


def notices(game: MailGame) -> list[Mail]:
    return [mail for mail in game.outbox() if mail.subject.endswith("bounces")]


def test_five_hard_bounces_mark_a_player_and_tell_the_host_once(game: MailGame) -> None:
    sent = [propose(game, f"Rule {n}") for n in range(6)]
    answered = len(game.outbox())
    for mail in sent[:4]:
        bounce(game, mail, BOB)
    assert unreachable(game) == set()
    bounce(game, sent[4], BOB)
    assert unreachable(game) == {BOB}
    [notice] = notices(game)
    assert notice.recipients == (SPEAKER,) and "Bob" in notice.body
    bounce(game, sent[5], BOB)
    assert len(notices(game)) == 1
    # No bounce was answered: the only mail since is the host's notice.
    assert [mail.row.kind for mail in game.outbox()[answered:]] == ["notice"]
    assert game.service.state().players[BOB].active  # nothing in the game changed
    # Every player's STATUS says so.
    received = game.send(CAROL, "status", "STATUS\n")
    [reply] = game.replies_to(received.message_id)
    assert "The Speaker's mail to Bob bounces" in reply.body


def test_soft_bounces_count_half_and_one_message_counts_once(game: MailGame) -> None:
    sent = [propose(game, f"Rule {n}") for n in range(10)]
    for mail in sent[:9]:
        bounce(game, mail, BOB, status="4.2.2")
        bounce(game, mail, BOB, status="4.4.1", after=timedelta(seconds=5))  # again
    assert unreachable(game) == set()  # 4.5 points
    bounce(game, sent[0], BOB)  # the same message, now a hard bounce: 1 for it, not 1.5
    assert unreachable(game) == {BOB}


def test_old_bounces_no_longer_count(game: MailGame) -> None:
    sent = [propose(game, f"Rule {n}") for n in range(5)]
    for mail in sent[:4]:
        bounce(game, mail, BOB)
    bounce(game, sent[4], BOB, after=timedelta(days=15))
    assert unreachable(game) == set()


@pytest.mark.parametrize("reset", ["delivered", "authenticated mail"])
def test_a_delivery_or_the_players_own_mail_forgets_the_bounces(
        game: MailGame, reset: str) -> None:
    sent = [propose(game, f"Rule {n}") for n in range(9)]
    for mail in sent[:5]:
        bounce(game, mail, BOB)
    assert unreachable(game) == {BOB}
    if reset == "delivered":
        bounce(game, sent[5], BOB, status="2.0.0", action="delivered")
    else:
        game.send(BOB, "hello", "STATUS\n")
    assert unreachable(game) == set()
    for mail in sent[6:9]:
        bounce(game, mail, BOB)
    assert unreachable(game) == set(), "the score started again from nothing"


def test_a_forged_from_does_not_forget_the_bounces(game: MailGame) -> None:
    sent = [propose(game, f"Rule {n}") for n in range(5)]
    for mail in sent:
        bounce(game, mail, BOB)
    game.send(BOB, "hello", "STATUS\n", authenticated=False)
    assert unreachable(game) == {BOB}


def test_an_observers_bounces_end_the_observing(game: MailGame) -> None:
    observe(game)
    sent = [propose(game, f"Rule {n}") for n in range(5)]
    for mail in sent:
        bounce(game, mail, OLIVE)
    assert game.service.audience()[0] == {}
    assert notices(game) == []


def test_a_bounce_naming_no_recipient_of_ours_counts_nothing(game: MailGame) -> None:
    sent = [propose(game, f"Rule {n}") for n in range(5)]
    for mail in sent:
        bounce(game, mail, DAVE)  # never sent to Dave: his token is no recipient's
    assert unreachable(game) == set()
    assert DAVE not in game.service.store.bounced()
