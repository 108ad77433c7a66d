"""Public mail in chunks of envelope recipients, and headers that name no list of players.

The outbox runs on a real SQLite store; the relay is a small scripted ``Sender`` that keeps
every transaction it was given, so that each test can count who got the message how often.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from speakerbot.adapters.smtp import DeliveryResult
from speakerbot.adapters.store import OutgoingMail, Store, sqlite_url
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, compose
from speakerbot.service.outbox import Outbox, OutboxPolicy, backlog, backlog_kind
from tests.support.relays import OneByOne

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
PLAYERS = tuple(f"player{n:03}@example.org" for n in range(120))


class Crash(BaseException):
    """The process dies here (nothing below it runs, nothing is committed)."""


class Relay(OneByOne):
    """A scripted relay: takes at most ``limit`` recipients per transaction (452 after).

    ``fail_on`` is the number of the transaction (from 1) answered with a temporary
    failure; ``crash_on`` the one during which the process dies.
    """

    def __init__(self, limit: int = 1000, fail_on: int = 0, crash_on: int = 0) -> None:
        self.limit = limit
        self.fail_on = fail_on
        self.crash_on = crash_on
        self.transactions: list[tuple[str, ...]] = []
        self.tried = 0

    def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> DeliveryResult:
        """Take the message for the first ``limit`` recipients, say "too many" for the rest."""
        self.tried += 1
        if self.tried == self.crash_on:
            raise Crash
        if self.tried == self.fail_on:
            return DeliveryResult(accepted=(), refused={}, temporary_failure="421 busy")
        taken = tuple(recipients[:self.limit])
        self.transactions.append(taken)
        return DeliveryResult(accepted=taken, refused={}, temporary_failure=None,
                              over_limit=tuple(recipients[self.limit:]))

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One connection for the block (nothing to keep here)."""
        yield

    def delivered(self) -> Counter[str]:
        """Return how many times each recipient was sent the message."""
        return Counter(address for taken in self.transactions for address in taken)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(sqlite_url(tmp_path / "game.db")) as store:
        store.upgrade()
        with store.transaction() as session:
            store.enqueue(session, OutgoingMail("<d@nomic.test>", "nomic@nomic.test", PLAYERS,
                                                b"Subject: x\r\n\r\nbody\r\n", "announcement",
                                                None, T0))
        yield store


def _outbox(store: Store, max_recipients: int = 50, now: datetime = T0) -> Outbox:
    return Outbox(store, OutboxPolicy(give_up_after=86400.0, retry_base=1.0,
                                      max_recipients=max_recipients), lambda: now)


def test_public_mail_goes_in_chunks_of_max_recipients(store: Store) -> None:
    relay = Relay()
    assert _outbox(store).send_due(relay) == 1
    assert [len(taken) for taken in relay.transactions] == [50, 50, 20]
    assert relay.delivered() == Counter(PLAYERS)
    assert store.outbox_summary().pending == 0


def test_a_failed_chunk_never_sends_the_others_again(store: Store) -> None:
    relay = Relay(fail_on=2)
    assert _outbox(store).send_due(relay) == 0
    assert [len(taken) for taken in relay.transactions] == [50]
    (row,) = store.due_outbox(T0 + timedelta(hours=1))
    assert row.recipients == PLAYERS[50:] and row.attempts == 1
    assert _outbox(store, now=T0 + timedelta(hours=1)).send_due(relay) == 1
    assert relay.delivered() == Counter(PLAYERS)  # each exactly once


def test_a_crash_between_chunks_resends_nothing_already_taken(store: Store) -> None:
    relay = Relay(crash_on=3)
    with pytest.raises(Crash):
        _outbox(store).send_due(relay)
    # A new process finds the message with the first two chunks done.
    assert _outbox(store).send_due(relay) == 1
    assert [len(taken) for taken in relay.transactions] == [50, 50, 20]
    assert relay.delivered() == Counter(PLAYERS)


def test_too_many_recipients_shrinks_the_chunk_and_goes_on_at_once(store: Store) -> None:
    relay = Relay(limit=30)
    assert _outbox(store, max_recipients=100).send_due(relay) == 1
    # 100 offered, 30 taken; then chunks of 30, in the same pass, without backoff.
    assert [len(taken) for taken in relay.transactions] == [30, 30, 30, 30]
    assert relay.delivered() == Counter(PLAYERS)
    assert store.outbox_summary().pending == 0


def test_giving_up_mid_way_names_only_those_not_reached(store: Store) -> None:
    relay = Relay(fail_on=2)
    late = T0 + timedelta(days=2)
    assert _outbox(store, now=late).send_due(relay) == 0
    given_up = {recipient for _, recipient, _ in store.outbox_summary().refused}
    assert given_up == set(PLAYERS[50:])


IDENTITY = GameIdentity("Camford Nomic", "nomic@camford.example")
LISTED = GameIdentity("Camford Nomic", "nomic@camford.example", "players@lists.example")


@pytest.mark.parametrize(
    ("identity", "outgoing", "to"),
    [
        (IDENTITY, Outgoing("announcement", PLAYERS, "Proposal 301: x", "b", "k", public=True),
         "nomic@camford.example"),
        (LISTED, Outgoing("announcement", ("players@lists.example",), "Proposal 301: x", "b",
                          "k", public=True), "players@lists.example"),
        (IDENTITY, Outgoing("announcement", PLAYERS[:1], "Proposal 301: x", "b", "k",
                            public=True), "nomic@camford.example"),
        (IDENTITY, Outgoing("reply", PLAYERS[:1], "Re: x", "b", "k"), PLAYERS[0]),
        (IDENTITY, Outgoing("reminder", PLAYERS[:1], "Reminder", "b", "k"), PLAYERS[0]),
        (IDENTITY, Outgoing("notice", PLAYERS[:2], "Action needed", "b", "k"),
         "nomic@camford.example"),
    ],
)
def test_no_header_names_more_than_one_player(identity: GameIdentity, outgoing: Outgoing,
                                              to: str) -> None:
    _, raw = compose(identity, outgoing, T0)
    message = message_from_bytes(raw, policy=policy.default)
    assert [address.addr_spec for address in message["To"].addresses] == [to]
    assert message["Cc"] is None and message["Bcc"] is None
    head = raw.split(b"\r\n\r\n", 1)[0].decode()
    assert sum(player in head for player in PLAYERS) <= 1


def test_the_backlog_counts_waiting_mail_by_kind_and_age(store: Store) -> None:
    def queue(kind: str, subject: str, public: bool, minutes: int,
              topic: str | None = None) -> None:
        outgoing = Outgoing(kind, PLAYERS[:1], subject, "b", f"{subject}{minutes}", public=public)
        message_id, raw = compose(IDENTITY, outgoing, T0)
        with store.transaction() as session:
            store.enqueue(session, OutgoingMail(message_id, IDENTITY.address, PLAYERS[:1], raw,
                                                kind, None, T0 - timedelta(minutes=minutes),
                                                topic=topic))

    queue("announcement", "Proposal 301 ADOPTED: Tea", True, 0, "results")
    queue("announcement", "Proposal 302 REJECTED: Caf\u00e9 \u00e0 cinq heures", True, 90,
          "results")
    queue("announcement", "Proposal 303: Cake", True, 2, "distribution")
    queue("announcement", "CFJ 1: Tea is hot", True, 2000)
    queue("reminder", "Reminder: vote on proposal 303 closes soon", False, 0)
    queue("reply", "Re: Proposal 301: Tea", False, 0)
    queue("limit", "No more replies today", False, 30)
    counts = backlog(store.outbox_summary(), T0).counts
    # The fixture's own message (queued at T0) is an announcement with no proposal's subject.
    assert counts == {"results": [1, 0, 1, 0], "distributions": [0, 1, 0, 0],
                      "announcements": [1, 0, 0, 1], "reminders": [1, 0, 0, 0],
                      "replies": [1, 1, 0, 0]}
    assert backlog_kind("announcement", None) == "announcements"
