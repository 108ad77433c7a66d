"""The storage adapter's pure parts (Message-ID parsing, argument checks), on SQLite only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

from speakerbot.adapters.store import (
    OutgoingMail,
    Store,
    UtcDateTime,
    message_id_of,
    sqlite_url,
)

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(sqlite_url(tmp_path / "game.db")) as store:
        store.upgrade()
        yield store


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"Message-ID: <a@b.test>\r\n\r\nbody", "<a@b.test>"),
        (b"message-id:   <a@b.test>  \n\nbody", "<a@b.test>"),
        (b"Subject: x\r\nMessage-Id:\r\n\t<folded@b.test>\r\n\r\n", "<folded@b.test>"),
        (b"From: a\r\n\r\nMessage-ID: <in-the-body@b.test>\r\n", None),
        (b"Message-ID: <first@b.test>\r\nMessage-ID: <second@b.test>\r\n\r\n", "<first@b.test>"),
        (b"Message-ID: <caf\xc3\xa9@b.test>\r\n\r\n", "<caf\u00e9@b.test>"),
        (b"Message-ID: <\xff@b.test>\r\n\r\n", "<\ufffd@b.test>"),
        (b"Message-ID: <a\x00\x07b@b.test>\r\n\r\n", "<ab@b.test>"),
        (b"Message-ID: <>\r\n\r\n", None),
        (b"Message-ID:\r\n\r\n", None),
        (b"Message-ID: <" + b"x" * 1000 + b"@b.test>\r\n\r\n", None),
        (b"", None),
        (b"\xff\xfe\x00garbage", None),
    ],
)
def test_message_id_of(raw: bytes, expected: str | None) -> None:
    assert message_id_of(raw) == expected


@given(st.binary(max_size=2000))
def test_message_id_of_never_raises(raw: bytes) -> None:
    found = message_id_of(raw)
    if found is not None:
        assert found and found.isprintable() and len(found.encode()) <= 998


@given(st.binary(max_size=300))
def test_message_id_of_any_header_value(value: bytes) -> None:
    found = message_id_of(b"Subject: x\r\nMessage-ID: " + value + b"\r\n\r\nbody")
    if found is not None:
        assert found.isprintable()


def test_utc_datetime_type() -> None:
    kind = UtcDateTime()
    lite = SQLiteDialect_pysqlite()
    pg = PGDialect_psycopg()  # type: ignore[no-untyped-call]
    one_pm_cet = datetime(2024, 3, 1, 13, 0, tzinfo=timezone(timedelta(hours=1)))
    stored = kind.process_bind_param(one_pm_cet, lite)
    assert stored == datetime(2024, 3, 1, 12, 0)
    back = kind.process_result_value(stored, lite)
    assert back == T0 and back is not None and back.tzinfo is UTC
    on_pg = kind.process_bind_param(one_pm_cet, pg)
    assert on_pg == T0 and on_pg is not None and on_pg.tzinfo is UTC
    with pytest.raises(ValueError, match="naive"):
        kind.process_bind_param(datetime(2024, 3, 1), lite)


def test_naive_datetimes_are_refused(store: Store) -> None:
    naive = datetime(2024, 3, 1)
    with pytest.raises(ValueError, match="naive"):
        store.store_inbound(b"Subject: x\r\n\r\n", naive, source="smtp")
    with pytest.raises(ValueError, match="naive"):
        store.due_outbox(naive)
    with pytest.raises(ValueError, match="naive"):
        store.replies_since("a@b.test", naive, ("reply",))
    mail = OutgoingMail("<m@s>", "s@s", ("a@b.test",), b"", "reply", None, naive)
    with pytest.raises(ValueError, match="naive"), store.transaction() as session:
        store.enqueue(session, mail)
    assert store.pending_inbound() == []
    assert store.due_outbox(datetime(2100, 1, 1, tzinfo=UTC)) == []


def test_argument_checks(store: Store) -> None:
    stored = store.store_inbound(b"Subject: x\r\n\r\n", T0, source="smtp")
    with pytest.raises(ValueError), store.transaction() as session:
        store.mark_inbound(session, stored.id, "set_aside")
    with pytest.raises(LookupError), store.transaction() as session:
        store.mark_inbound(session, stored.id + 1, "processed")
    with pytest.raises(LookupError):
        store.record_inbound_failure(stored.id + 1, "boom", now=datetime.now(UTC), delays=(30,))
    with pytest.raises(ValueError), store.transaction() as session:
        store.enqueue(session, OutgoingMail("<m@s>", "s@s", (), b"", "reply", None, T0))
    assert store.inbound(stored.id).status == "new"


def test_is_initialised_does_not_create_the_file(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    with Store(sqlite_url(path)) as store:
        assert not store.is_initialised()
        assert not path.exists()
        store.upgrade()
        assert store.is_initialised()


@pytest.mark.timeout(20)
def test_reads_do_not_wait_for_a_writer(store: Store) -> None:
    stored = store.store_inbound(b"Subject: x\r\n\r\n", T0, source="smtp")
    with store.transaction() as session:
        # This transaction holds SQLite's write lock (BEGIN IMMEDIATE) until its end; a
        # read that also asked for it would wait the busy timeout (30 s) and fail.
        store.mark_inbound(session, stored.id, "processed")
        assert [row.id for row in store.pending_inbound()] == [stored.id]
        assert store.outbox_summary().pending == 0
        assert store.last_event_seq() == 0
    assert store.pending_inbound() == []
