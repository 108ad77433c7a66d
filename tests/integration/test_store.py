"""The storage adapter on a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from pathlib import Path
from typing import IO, Any, cast

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import func, select, text
from sqlalchemy.exc import IntegrityError

from speakerbot.adapters.store import (
    AlreadyRunning,
    Base,
    Inbound,
    InboundItem,
    Intake,
    NotPending,
    OutboxSummary,
    OutgoingMail,
    Store,
    StoredInbound,
    sqlite_url,
)
from speakerbot.service.policy import REPLY_KINDS
from tests.support.patience import patience

pytestmark = pytest.mark.integration

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
FAR_FUTURE = datetime(2100, 1, 1, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "game.db")
    return cast(str, request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store(store_url) as store:
        store.upgrade()
        yield store


def message(subject: str = "Proposal", message_id: str | None = "auto", body: str = "") -> bytes:
    msg = EmailMessage()
    msg["From"] = "alice@example.test"
    msg["To"] = "speaker@example.test"
    msg["Subject"] = subject
    if message_id == "auto":
        message_id = f"<{random.getrandbits(64):x}@example.test>"
    if message_id is not None:
        msg["Message-ID"] = message_id
    msg.set_content(body or f"{subject}\n")
    return msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))


def outgoing(
    message_id: str,
    *,
    to: tuple[str, ...] = ("alice@example.test",),
    kind: str = "reply",
    created_at: datetime = T0,
    inbound_id: int | None = None,
) -> OutgoingMail:
    return OutgoingMail(
        message_id=message_id,
        mail_from="speaker@example.test",
        recipients=to,
        raw=b"Subject: Re: Proposal\r\n\r\nNoted.\r\n",
        kind=kind,
        inbound_id=inbound_id,
        created_at=created_at,
    )


def count_inbound(store: Store) -> int:
    with store.transaction() as session:
        return session.scalar(select(func.count()).select_from(Inbound)) or 0


# --- Schema ---------------------------------------------------------------------------------


def test_upgrade_is_idempotent_and_reset_starts_afresh(store_url: str) -> None:
    with Store(store_url) as store:
        assert not store.is_initialised()
        store.upgrade()
        assert store.is_initialised()
        store.upgrade()
        assert store.is_initialised()
        assert store.last_event_seq() == 0

        stored = store.store_inbound(message(), T0, source="smtp")
        with store.transaction() as session:
            store.append_events(session, [{"type": "x"}], inbound_id=stored.id)
            store.set_meta(session, "key", 1)
        store.reset()
        assert not store.is_initialised()
        store.upgrade()
        assert store.pending_inbound() == []
        assert store.load_events() == []
        assert store.get_meta("key") is None


def test_migrations_create_exactly_what_the_models_declare(store: Store) -> None:
    with store.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        assert compare_metadata(context, Base.metadata) == []
        assert context.get_current_revision() == "0008"


def test_the_readings_migration_keeps_older_mail_unread(store_url: str) -> None:
    # 0006 adds inbound.reading: mail stored before it has none (it is read again), and
    # the column then takes what intake read.
    from alembic import command

    with Store(store_url) as store:
        config = store._alembic_config()
        with store.engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0005")
            conn.execute(text(
                "INSERT INTO inbound (message_id, sha256, source, received_at, raw, status, "
                "attempts, note) VALUES ('<old@example.test>', :sha, 'smtp', :at, :raw, "
                "'new', 0, '')"), {"sha": "0" * 64, "at": T0, "raw": message()})
        store.upgrade()
        [old] = store.pending_inbound()
        assert (old.message_id, old.reading) == ("<old@example.test>", None)
        new = store.store_inbound_many([InboundItem(message(), T0, "smtp",
                                                    reading=b"\x92\x01")])[0]
        assert store.inbound(new.id).reading == b"\x92\x01"


def test_sqlite_pragmas_on_every_connection(tmp_path: Path) -> None:
    with Store(sqlite_url(tmp_path / "game.db")) as store:
        store.upgrade()
        # Two connections out of the pool at once, so two distinct ones; raw, because a
        # SQLAlchemy connection would BEGIN IMMEDIATE and the second would wait for the first.
        connections = [store.engine.raw_connection() for _ in range(2)]
        try:
            for conn in connections:
                cursor = conn.cursor()
                pragmas = {}
                for pragma in ("journal_mode", "synchronous", "foreign_keys"):
                    cursor.execute(f"PRAGMA {pragma}")
                    (pragmas[pragma],) = cursor.fetchone() or (None,)
                cursor.close()
                assert pragmas == {"journal_mode": "wal", "synchronous": 2, "foreign_keys": 1}
        finally:
            for conn in connections:
                conn.close()
        with store.transaction() as session:
            assert session.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_unsupported_urls_are_refused(tmp_path: Path) -> None:
    for url in ("sqlite://", "sqlite:///:memory:", "mysql://localhost/game"):
        with pytest.raises(ValueError):
            Store(url)


# --- Inbound mail ---------------------------------------------------------------------------


def test_store_and_read_back(store: Store) -> None:
    raw = message("Proposal 301", "<p301@example.test>")
    received = datetime(2024, 3, 1, 14, 0, tzinfo=timezone(timedelta(hours=2)))
    stored = store.store_inbound(raw, received, source="imap", uidvalidity=7, uid=4294967295)
    assert not stored.duplicate
    assert stored.status == "new"
    row = store.inbound(stored.id)
    assert row.raw == raw
    assert row.message_id == "<p301@example.test>"
    assert row.received_at == received
    assert row.received_at.tzinfo is UTC
    assert (row.source, row.uidvalidity, row.uid) == ("imap", 7, 4294967295)
    assert (row.status, row.attempts, row.error, row.processed_at) == ("new", 0, None, None)
    assert store.find_inbound_by_uid(7, 4294967295) == row
    assert store.find_inbound_by_uid(8, 4294967295) is None
    with pytest.raises(LookupError):
        store.inbound(stored.id + 1)


def test_what_intake_read_is_stored_with_the_message(store: Store) -> None:
    # Opaque bytes to the store, returned on every row as given; a message without one has
    # None, and a duplicate keeps the first copy's.
    raw = message("Read")
    read, unread, again = store.store_inbound_many([
        InboundItem(raw, T0, "smtp", reading=b"what was read\x00"),
        InboundItem(message("Unread"), T0, "smtp"),
        InboundItem(raw, T0, "imap", reading=b"other"),
    ])
    assert store.inbound(read.id).reading == b"what was read\x00"
    assert store.inbound(unread.id).reading is None
    assert {row.id: row.reading for row in store.pending_inbound()}[read.id] \
        == b"what was read\x00"
    assert (again.duplicate, again.id) == (True, read.id)
    assert store.inbound(read.id).reading == b"what was read\x00"


def test_duplicates_are_stored_once(store: Store) -> None:
    # The same bytes, from another source, later.
    raw = message()
    first = store.store_inbound(raw, T0, source="smtp")
    again = store.store_inbound(raw, T0 + timedelta(hours=1), source="imap")
    assert again == StoredInbound(id=first.id, duplicate=True, status="new")
    assert store.inbound(first.id).source == "smtp"

    # Other bytes, the same Message-ID: anyone can copy a Message-ID, so only the same
    # sender with the same body makes it the same message (delivered twice, by two routes).
    same = "<same@example.test>"
    alice, eve = "alice@example.test", "eve@example.test"
    body_one, body_two = "1" * 64, "2" * 64
    one = store.store_inbound(message("One", same), T0, source="smtp",
                              intake=Intake(sender=alice, body_sha256=body_one))
    two = store.store_inbound(message("Two", same), T0, source="imap",
                              intake=Intake(sender=alice, body_sha256=body_two))
    assert not two.duplicate
    forged = store.store_inbound(message("Forged", same), T0, source="imap",
                                 intake=Intake(sender=eve, body_sha256=body_one))
    assert not forged.duplicate
    resent = store.store_inbound(b"Received: by another.route\r\n" + message("One", same), T0,
                                 source="imap", intake=Intake(sender=alice, body_sha256=body_one))
    assert resent.duplicate and resent.id == one.id

    # Other bytes and Message-ID, the same IMAP UID (in the same UIDVALIDITY).
    uid = store.store_inbound(message("Three"), T0, source="imap", uidvalidity=1, uid=10)
    same_uid = store.store_inbound(message("Four"), T0, source="imap", uidvalidity=1, uid=10)
    assert same_uid.duplicate and same_uid.id == uid.id
    new_validity = store.store_inbound(message("Five"), T0, source="imap", uidvalidity=2, uid=10)
    assert not new_validity.duplicate
    with pytest.raises(ValueError):
        store.store_inbound(message("Six"), T0, source="imap", uid=11)

    # Without a Message-ID: a synthetic one; another such message is not a duplicate.
    anonymous = store.store_inbound(message("Seven", message_id=None), T0, source="smtp")
    row = store.inbound(anonymous.id)
    assert row.message_id == f"<{row.sha256}@speakerbot.invalid>"
    assert not store.store_inbound(message("Eight", message_id=None), T0, source="smtp").duplicate
    assert count_inbound(store) == 8

    # A duplicate tells what became of the original.
    with store.transaction() as session:
        store.mark_inbound(session, first.id, "processed")
    assert store.store_inbound(raw, T0, source="smtp").status == "processed"


def test_garbage_is_stored_without_raising(store: Store) -> None:
    rng = random.Random(301)
    garbage = [
        b"",
        rng.randbytes(4096),
        rng.randbytes(100) + b"\r\n\r\n" + rng.randbytes(100),
        b"no headers here, just a line of text\n",
        b"Message-ID: <\xff\xfe\xc3\x28@example.test>\r\nSubject: \xc3\x28\xa0\r\n\r\nbody",
        b"Message-ID: <nul\x00inside@example.test>\r\n\r\nbody",
        b"Message-ID:\r\n <folded@example.test>\r\n\r\n",
        b"Message-ID: <" + b"x" * 5000 + b"@example.test>\r\n\r\n",
        b"Message-ID: <>\r\n\r\n",
        b"\x00\x01\x02: \xff\r\n:::\r\nMessage-ID <no colon>\r\n",
    ]
    ids = []
    for raw in garbage:
        stored = store.store_inbound(raw, T0, source="smtp")
        assert not stored.duplicate
        row = store.inbound(stored.id)
        assert row.raw == raw
        assert "\x00" not in row.message_id
        ids.append(row.message_id)
    assert ids[4] == "<\ufffd\ufffd\ufffd(@example.test>"
    assert ids[5] == "<nulinside@example.test>"
    assert ids[6] == "<folded@example.test>"
    assert ids[7].endswith("@speakerbot.invalid>")
    assert ids[8].endswith("@speakerbot.invalid>")


def test_concurrent_store_of_the_same_message_stores_it_once(store_url: str) -> None:
    # Two stores, like two processes (an IMAP poller and the LMTP server, say).
    with Store(store_url) as one, Store(store_url) as two:
        one.upgrade()
        for round_ in range(5):
            raw = message(f"Race {round_}")
            barrier = threading.Barrier(2)

            def store_it(
                store: Store, raw: bytes = raw, barrier: threading.Barrier = barrier
            ) -> StoredInbound:
                barrier.wait()
                return store.store_inbound(raw, T0, source="smtp")

            with ThreadPoolExecutor(2) as pool:
                results = [f.result() for f in [pool.submit(store_it, s) for s in (one, two)]]
            assert sorted(r.duplicate for r in results) == [False, True]
            assert results[0].id == results[1].id
        assert count_inbound(one) == 5


def test_pending_inbound_in_order_of_reception(store: Store) -> None:
    late = store.store_inbound(message("late"), T0 + timedelta(minutes=5), source="smtp")
    early = store.store_inbound(message("early"), T0, source="smtp")
    tie = store.store_inbound(message("tie"), T0 + timedelta(minutes=5), source="smtp")
    done = store.store_inbound(message("done"), T0, source="smtp")
    with store.transaction() as session:
        store.mark_inbound(session, done.id, "skipped", "not for the Speaker")
    assert [r.id for r in store.pending_inbound()] == [early.id, late.id, tie.id]
    earliest = store.earliest_pending()  # the handled message, received first, is not waiting
    assert earliest == T0 and earliest is not None and earliest.tzinfo is not None
    row = store.inbound(done.id)
    assert (row.status, row.note) == ("skipped", "not for the Speaker")
    assert row.processed_at is not None and row.processed_at.tzinfo is UTC


def test_an_unauthenticated_message_waiting_for_a_retry_holds_back_no_deadline(
        store: Store) -> None:
    forged = store.store_inbound(message("forged"), T0, source="smtp",
                                 intake=Intake(authenticated=False))
    store.record_inbound_failure(forged.id, "boom", now=T0, delays=(30.0,))
    assert store.earliest_pending() is None and store.retry_waiting() == []
    real = store.store_inbound(message("real"), T0, source="smtp",
                               intake=Intake(sender="a@x.test", authenticated=True))
    store.record_inbound_failure(real.id, "boom", now=T0, delays=(30.0,))
    assert store.earliest_pending() == T0
    assert [(i, s) for i, s, _ in store.retry_waiting()] == [(real.id, "a@x.test")]


def test_failures_lead_to_set_aside(store: Store) -> None:
    stored = store.store_inbound(message(), T0, source="smtp", intake=Intake(authenticated=True))
    delays = (30.0, 60.0)
    first = store.record_inbound_failure(stored.id, "boom 1", now=T0, delays=delays)
    assert (first.status, first.attempts, first.error) == ("retry", 1, "boom 1")
    assert first.retry_at == T0 + timedelta(seconds=30)
    assert [r.id for r in store.pending_inbound()] == [stored.id]
    # Not due again until its retry time.
    assert store.pending_inbound(T0 + timedelta(seconds=29)) == []
    assert [r.id for r in store.pending_inbound(T0 + timedelta(seconds=30))] == [stored.id]
    assert store.earliest_pending() == T0  # a message waiting for a retry still waits
    second = store.record_inbound_failure(stored.id, "boom 2", now=T0, delays=delays)
    assert (second.status, second.attempts) == ("retry", 2)
    assert second.retry_at == T0 + timedelta(seconds=60)
    third = store.record_inbound_failure(stored.id, "boom 3", now=T0, delays=delays)
    assert (third.status, third.attempts, third.error) == ("set_aside", 3, "boom 3")
    assert store.inbound(stored.id) == third
    assert store.pending_inbound() == [] and store.earliest_pending() is None
    with pytest.raises(NotPending), store.transaction() as session:
        store.mark_inbound(session, stored.id, "processed")

    # A failure reported for a message already handled changes nothing.
    handled = store.store_inbound(message("handled"), T0, source="smtp")
    with store.transaction() as session:
        store.mark_inbound(session, handled.id, "processed")
    after = store.record_inbound_failure(handled.id, "late error", now=T0, delays=delays)
    assert (after.status, after.attempts) == ("processed", 0)


# --- The unit of work -----------------------------------------------------------------------


class Boom(Exception):
    pass


def _handle(store: Store, inbound_id: int, *, fail: bool) -> None:
    with store.transaction() as session:
        store.append_events(
            session, [{"type": "proposal_made", "number": 301}], inbound_id=inbound_id
        )
        store.enqueue(session, outgoing("<reply-301@speaker.test>", inbound_id=inbound_id))
        store.set_meta(session, "last_handled", inbound_id)
        store.mark_inbound(session, inbound_id, "processed")
        if fail:
            raise Boom


def test_a_transaction_is_all_or_nothing(store: Store) -> None:
    stored = store.store_inbound(message(), T0, source="smtp")
    with pytest.raises(Boom):
        _handle(store, stored.id, fail=True)
    assert store.load_events() == []
    assert store.last_event_seq() == 0
    assert store.due_outbox(FAR_FUTURE) == []
    assert store.get_meta("last_handled") is None
    assert store.inbound(stored.id).status == "new"

    _handle(store, stored.id, fail=False)
    assert [e.data for e in store.load_events()] == [{"type": "proposal_made", "number": 301}]
    assert [m.inbound_id for m in store.due_outbox(FAR_FUTURE)] == [stored.id]
    assert store.get_meta("last_handled") == stored.id
    assert store.inbound(stored.id).status == "processed"

    # Handling it again (a second daemon, a replay) fails, and leaves no trace either.
    with pytest.raises(NotPending):
        _handle(store, stored.id, fail=False)
    assert len(store.load_events()) == 1


@pytest.mark.timeout(60)
def test_write_transactions_run_one_at_a_time(store: Store) -> None:
    entered = threading.Event()
    seen: list[int] = []

    def second() -> None:
        with store.transaction() as session:
            seen.append(store.last_event_seq(session))
            entered.set()
            store.append_events(session, [{"type": "second"}])

    with store.transaction() as session:
        store.append_events(session, [{"type": "first"}])
        thread = threading.Thread(target=second)
        thread.start()
        # Reads do not wait (and do not see what is not committed).
        assert store.load_events() == []
        # The second transaction waits for this one to end: give it time to get in wrongly.
        assert not entered.wait(0.3)
    thread.join(timeout=patience(30))
    assert seen == [1]
    assert [e.data["type"] for e in store.load_events()] == ["first", "second"]


# --- Events ---------------------------------------------------------------------------------


def test_events(store: Store) -> None:
    stored = store.store_inbound(message(), T0, source="smtp")
    batch = [
        {"type": f"t{i % 7}", "i": i, "nested": {"list": [i, "é", None, 1.5]}} for i in range(200)
    ]
    with store.transaction() as session:
        assert store.append_events(session, []) == 0
        last = store.append_events(session, batch[:3])
        assert last == store.last_event_seq(session) == 3
        assert [e.data["i"] for e in store.load_events(session)] == [0, 1, 2]
    with store.transaction() as session:
        last = store.append_events(session, batch[3:], inbound_id=stored.id)
    events = store.load_events()
    assert [e.data for e in events] == batch
    assert [e.seq for e in events] == sorted(e.seq for e in events)
    assert events[-1].seq == last == store.last_event_seq()
    with store.transaction() as session:
        types = session.execute(text("SELECT type FROM events ORDER BY seq")).scalars().all()
        assert types == [e["type"] for e in batch]

    # Checked: a type, and a real inbound message (foreign keys are on in SQLite too).
    with pytest.raises(ValueError), store.transaction() as session:
        store.append_events(session, [{"type": "fine"}, {"no": "type"}])
    with pytest.raises(IntegrityError), store.transaction() as session:
        store.append_events(session, [{"type": "x"}], inbound_id=424242)
    assert [e.data for e in store.load_events()] == batch


# --- The outbox -----------------------------------------------------------------------------


def test_outbox_lifecycle_and_summary(store: Store) -> None:
    assert store.wake_marks().next_outbox is None
    assert store.outbox_summary() == OutboxSummary(0, 0, None, [])
    cet = timezone(timedelta(hours=1))
    with store.transaction() as session:
        store.enqueue(session, outgoing("<a@speaker.test>", to=("alice@x.test", "bob@x.test")))
        store.enqueue(session, outgoing("<b@speaker.test>", created_at=T0 + timedelta(minutes=1)))
        store.enqueue(
            session,
            outgoing("<c@speaker.test>", created_at=(T0 + timedelta(minutes=2)).astimezone(cet)),
        )

    # Enqueuing the same message again, in the same transaction or another, does nothing.
    with store.transaction() as session:
        store.enqueue(session, outgoing("<a@speaker.test>", kind="notice"))
        store.enqueue(session, outgoing("<a@speaker.test>", to=("carol@x.test",)))

    assert store.due_outbox(T0 - timedelta(seconds=1)) == []
    (a,) = store.due_outbox(T0)
    assert (a.message_id, a.recipients, a.status, a.attempts) == (
        "<a@speaker.test>",
        ("alice@x.test", "bob@x.test"),
        "pending",
        0,
    )
    assert a.next_attempt_at == a.created_at == T0
    assert a.raw.startswith(b"Subject: Re: Proposal")
    assert [m.message_id for m in store.due_outbox(FAR_FUTURE, limit=2)] == [
        "<a@speaker.test>",
        "<b@speaker.test>",
    ]
    assert store.wake_marks().next_outbox == T0

    # a: bob refused for good, alice deferred; then alice accepted.
    later = T0 + timedelta(minutes=10)
    store.mark_retry(a.id, "451 4.3.0 try later", later, refused={"bob@x.test": "550 5.1.1 no"})
    assert [m.message_id for m in store.due_outbox(T0 + timedelta(minutes=5))] == [
        "<b@speaker.test>",
        "<c@speaker.test>",
    ]
    (a_again,) = [m for m in store.due_outbox(later) if m.id == a.id]
    assert (a_again.attempts, a_again.last_error) == (1, "451 4.3.0 try later")
    store.mark_sent(a.id, later)
    # b: given up.
    b = store.due_outbox(FAR_FUTURE)[0]
    store.mark_failed(b.id, "554 5.0.0 rejected")

    summary = store.outbox_summary()
    assert (summary.pending, summary.failed) == (1, 1)
    assert summary.oldest_pending == T0 + timedelta(minutes=2)
    assert summary.oldest_pending is not None and summary.oldest_pending.tzinfo is UTC
    assert summary.refused == [("<a@speaker.test>", "bob@x.test", "550 5.1.1 no")]
    assert store.wake_marks().next_outbox == T0 + timedelta(minutes=2)

    (c,) = store.due_outbox(FAR_FUTURE)
    store.mark_sent(c.id, later, refused={"alice@example.test": "550 mailbox full for good"})
    summary = store.outbox_summary()
    assert (summary.pending, summary.failed, summary.oldest_pending) == (0, 1, None)
    assert summary.refused[-1] == (
        "<c@speaker.test>",
        "alice@example.test",
        "550 mailbox full for good",
    )
    assert store.wake_marks().next_outbox is None
    assert store.due_outbox(FAR_FUTURE) == []

    with pytest.raises(NotPending):
        store.mark_sent(a.id, later)
    with pytest.raises(NotPending):
        store.mark_retry(b.id, "again?", later)
    with pytest.raises(LookupError):
        store.mark_failed(a.id + 100, "nothing")


def _queue_replies(store: Store) -> None:
    hour = timedelta(hours=1)
    with store.transaction() as session:
        store.enqueue(session, outgoing("<1@s>", to=("alice@x.test",), created_at=T0))
        store.enqueue(
            session, outgoing("<2@s>", to=("alice@x.test",), kind="limit", created_at=T0 + hour)
        )
        # Mail to several is nobody's reply (replies go to one address).
        store.enqueue(
            session,
            outgoing("<2b@s>", to=("bob@x.test", "alice@x.test"), kind="reply",
                     created_at=T0 + hour),
        )
        store.enqueue(
            session,
            outgoing("<3@s>", to=("alice@x.test",), kind="announcement", created_at=T0 + hour),
        )
        store.enqueue(session, outgoing("<4@s>", to=("Alice@X.test",), created_at=T0 + 2 * hour))
        store.enqueue(session, outgoing("<5@s>", to=("bob@x.test",), created_at=T0 + 2 * hour))


def test_replies_since(store: Store) -> None:
    hour = timedelta(hours=1)
    _queue_replies(store)
    assert store.replies_since("alice@x.test", T0, REPLY_KINDS) == 3
    assert store.replies_since("alice@x.test", T0 + hour, REPLY_KINDS) == 2
    assert store.replies_since("ALICE@x.test", T0 + 2 * hour, REPLY_KINDS) == 1
    assert store.replies_since("bob@x.test", T0, REPLY_KINDS) == 1
    assert store.replies_since("carol@x.test", T0, REPLY_KINDS) == 0


def test_replies_since_each_counts_as_replies_since(store: Store) -> None:
    hour = timedelta(hours=1)
    _queue_replies(store)
    for since in (T0, T0 + hour, T0 + 2 * hour):
        each = store.replies_since_each(["alice@x.test", "BOB@x.test", "carol@x.test"], since,
                                        REPLY_KINDS)
        assert each == {address: store.replies_since(address, since, REPLY_KINDS)
                        for address in ("alice@x.test", "bob@x.test", "carol@x.test")}
    assert store.replies_since_each(["alice@x.test"], T0, REPLY_KINDS) == {"alice@x.test": 3}
    assert store.replies_since_each([], T0, REPLY_KINDS) == {}


# --- Metadata -------------------------------------------------------------------------------


def test_meta(store: Store) -> None:
    assert store.get_meta("uidvalidity") is None
    values: list[Any] = [1234, 2**70, 1.0, "2024-03-01T12:00:00+00:00", True, None, [1, "two"]]
    for value in values:
        with store.transaction() as session:
            store.set_meta(session, "key", value)
        assert store.get_meta("key") == value
        assert type(store.get_meta("key")) is type(value)
    config = {"preset": "suber", "quorum": 3, "players": ["a@x.test"], "nested": {"x": None}}
    with store.transaction() as session:
        store.set_meta(session, "config", config)
        assert store.get_meta("config", session) == config
    assert store.get_meta("config") == config
    assert store.get_meta("key") == [1, "two"]


# --- The daemon lock ------------------------------------------------------------------------

HOLDER = """
import sys
from speakerbot.adapters.store import Store

with Store(sys.argv[1]) as store, store.daemon_lock():
    print("locked", flush=True)
    sys.stdin.read()
print("released", flush=True)
"""


@contextmanager
def lock_holder(url: str) -> Iterator[subprocess.Popen[str]]:
    """Run a process that holds the daemon lock until its stdin closes; yield once it does."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert cast(IO[str], proc.stdout).readline() == "locked\n"
            yield proc
        finally:
            proc.kill()


def _assert_refused_at_once(store: Store) -> None:
    start = time.monotonic()
    with (
        pytest.raises(AlreadyRunning, match=r"^another speakerbot daemon is running against "),
        store.daemon_lock(),
    ):
        pytest.fail("acquired a lock that is held")
    assert time.monotonic() - start < patience(2)


@pytest.mark.timeout(60)
def test_daemon_lock_excludes_another_process(store: Store) -> None:
    with lock_holder(store.url) as proc:
        _assert_refused_at_once(store)
        cast(IO[str], proc.stdin).close()
        assert cast(IO[str], proc.stdout).readline() == "released\n"
        assert proc.wait(timeout=patience(30)) == 0
    with store.daemon_lock():
        # Held by this process now: a second acquisition, even here, is refused.
        _assert_refused_at_once(store)
    with store.daemon_lock():
        pass


@pytest.mark.timeout(60)
def test_daemon_lock_dies_with_its_process(store: Store) -> None:
    with lock_holder(store.url) as proc:
        _assert_refused_at_once(store)
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=patience(30)) == -signal.SIGKILL
    # The kernel drops a flock as the process goes, but PostgreSQL ends the session of a
    # dead client a moment later, and says nothing when it has: try again until then.
    deadline = time.monotonic() + patience(20)
    while True:
        try:
            with store.daemon_lock():
                break
        except AlreadyRunning:
            if store.engine.dialect.name == "sqlite" or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
