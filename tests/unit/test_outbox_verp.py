"""The outbox with VERP: a copy per recipient from its own return path, observers' copies apart.

A real SQLite store; the relay is a small scripted ``Sender`` keeping every transaction.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from speakerbot.adapters.smtp import DeliveryResult
from speakerbot.adapters.store import OutgoingMail, Store, sqlite_url
from speakerbot.mail.outbound.compose import GameIdentity
from speakerbot.mail.verp import recipient_of, token_of
from speakerbot.service.outbox import Outbox, OutboxPolicy
from tests.support.relays import OneByOne

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
GAME = "nomic@camford.example"
IDENTITY = GameIdentity("Camford Nomic", GAME, secret="a secret of the game's")
PLAYERS = tuple(f"player{n:02}@example.org" for n in range(7))
OBSERVERS = ("olive@watchers.example", "oscar@watchers.example")
RAW = b"Subject: x\r\nList-Id: Camford Nomic <camford-nomic.camford.example>\r\n\r\nbody\r\n"


class Relay(OneByOne):
    """Takes every message, but for the transaction numbered ``fail_on`` (a 421)."""

    def __init__(self, fail_on: int = 0) -> None:
        self.fail_on = fail_on
        self.tried = 0
        self.sent: list[tuple[str, tuple[str, ...], bytes]] = []

    def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> DeliveryResult:
        """Keep the transaction; answer 421 to the one numbered ``fail_on``."""
        self.tried += 1
        if self.tried == self.fail_on:
            return DeliveryResult(accepted=(), refused={}, temporary_failure="421 busy")
        self.sent.append((mail_from, tuple(recipients), raw))
        return DeliveryResult(accepted=tuple(recipients), refused={}, temporary_failure=None)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One connection for the block (nothing to keep here)."""
        yield

    def delivered(self) -> Counter[str]:
        """Return how many copies each recipient was sent."""
        return Counter(address for _, taken, _ in self.sent for address in taken)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(sqlite_url(tmp_path / "game.db")) as store:
        store.upgrade()
        with store.transaction() as session:
            for address in OBSERVERS:
                store.add_observer(session, address, T0)
            store.enqueue(session, OutgoingMail(
                "<d@camford.example>", GAME, (*PLAYERS, *OBSERVERS), RAW, "announcement",
                None, T0, observers=OBSERVERS))
        yield store


def _outbox(store: Store, now: datetime = T0, max_recipients: int = 3) -> Outbox:
    return Outbox(store, OutboxPolicy(give_up_after=86400.0, retry_base=1.0,
                                      max_recipients=max_recipients), lambda: now,
                  identity=IDENTITY)


def test_each_copy_leaves_from_a_return_path_naming_its_recipient(store: Store) -> None:
    relay = Relay()
    assert _outbox(store).send_due(relay) == 1
    assert relay.delivered() == Counter((*PLAYERS, *OBSERVERS))
    everyone = (*PLAYERS, *OBSERVERS)
    for mail_from, (recipient,), _ in relay.sent:
        token = token_of(mail_from, GAME)
        assert token is not None, mail_from
        named = recipient_of(IDENTITY.secret, token, everyone)
        assert named is not None and named[1] == recipient
        # Another game's secret reads nothing in it.
        assert recipient_of("another game's secret", token, everyone) is None
    assert len({mail_from for mail_from, _, _ in relay.sent}) == len(everyone)


def test_only_an_observers_copy_carries_list_unsubscribe(store: Store) -> None:
    relay = Relay()
    _outbox(store).send_due(relay)
    unsubscribe = f"List-Unsubscribe: <mailto:{GAME}?subject=UNOBSERVE>\r\n".encode()
    for _, (recipient,), raw in relay.sent:
        if recipient in OBSERVERS:
            assert raw == unsubscribe + RAW
        else:
            assert raw == RAW


def test_an_observer_who_stopped_before_it_went_is_left_out(store: Store) -> None:
    with store.transaction() as session:
        store.remove_observers(session, [OBSERVERS[0]])
    relay = Relay()
    assert _outbox(store).send_due(relay) == 1
    assert relay.delivered() == Counter((*PLAYERS, OBSERVERS[1]))
    assert store.outbox_summary().pending == 0


def test_a_failure_part_way_never_sends_a_copy_that_went_again(store: Store) -> None:
    relay = Relay(fail_on=5)  # the second copy of the second chunk of three
    assert _outbox(store).send_due(relay) == 0
    assert relay.delivered() == Counter(PLAYERS[:4])
    (row,) = store.due_outbox(T0 + timedelta(hours=1))
    assert row.recipients == (*PLAYERS[4:], *OBSERVERS)
    assert _outbox(store, now=T0 + timedelta(hours=1)).send_due(relay) == 1
    assert relay.delivered() == Counter((*PLAYERS, *OBSERVERS))  # each exactly once


class Refusing(Relay):
    """Refuses ``gone`` for good at its RCPT TO; otherwise as ``Relay``."""

    def __init__(self, gone: str, fail_on: int) -> None:
        super().__init__(fail_on)
        self.gone = gone
        self.asked: Counter[str] = Counter()

    def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> DeliveryResult:
        """Refuse the copy to ``gone``; pass the others on."""
        self.asked.update(recipients)
        if tuple(recipients) == (self.gone,):
            self.tried += 1
            return DeliveryResult(accepted=(), refused={self.gone: "550 5.1.1 no such user"},
                                  temporary_failure=None)
        return super().send(mail_from, recipients, raw)


def test_a_refusal_before_a_failure_in_one_chunk_is_kept(store: Store) -> None:
    # The first copy of the first chunk is refused for good, the second is put off (421):
    # nothing was taken, but the refusal is final: the retry does not ask for it again.
    relay = Refusing(PLAYERS[0], fail_on=2)
    assert _outbox(store).send_due(relay) == 0
    (row,) = store.due_outbox(T0 + timedelta(hours=1))
    assert row.recipients == (*PLAYERS[1:], *OBSERVERS)
    assert _outbox(store, now=T0 + timedelta(hours=1)).send_due(relay) == 1
    assert relay.asked[PLAYERS[0]] == 1
    assert relay.delivered() == Counter((*PLAYERS[1:], *OBSERVERS))
