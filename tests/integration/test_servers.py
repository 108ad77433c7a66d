"""Smoke tests proving the server fixtures are real servers that behave as tests expect."""

from __future__ import annotations

import shutil
import smtplib
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from imapclient import IMAPClient  # type: ignore[import-untyped,unused-ignore]
from sqlalchemy import create_engine, text

from tests.support import dovecot as dovecot_module
from tests.support import postgres as postgres_module
from tests.support.dovecot import DovecotServer
from tests.support.messages import plain_message
from tests.support.patience import patience
from tests.support.ports import MissingServerBinary
from tests.support.postgres import PostgresServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


def _new_user(server: DovecotServer) -> str:
    user = f"player-{uuid.uuid4().hex[:8]}"
    server.add_user(user, "s3cret")
    return user


def _raw(subject: str) -> bytes:
    return plain_message(subject, "I propose that the Speaker be a robot.\n")


# -- Dovecot -------------------------------------------------------------------------


def test_dovecot_login_append_and_fetch(dovecot: DovecotServer) -> None:
    user = _new_user(dovecot)
    raw = _raw("Proposal 301")
    when = datetime(2024, 3, 1, 12, 30, tzinfo=UTC)
    with IMAPClient(dovecot.host, dovecot.port, ssl=False, timeout=patience(10)) as client:
        client.login(user, "s3cret")
        client.append("INBOX", raw, msg_time=when)
        client.select_folder("INBOX", readonly=True)
        uids = client.search("ALL")
        assert len(uids) == 1
        fetched = client.fetch(uids, [b"BODY.PEEK[]", b"INTERNALDATE"])[uids[0]]
    assert fetched[b"BODY[]"] == raw
    internaldate = fetched[b"INTERNALDATE"]
    assert isinstance(internaldate, datetime)
    assert internaldate.astimezone(UTC) == when

    uid = dovecot.append(user, "Archive/2024", _raw("Archived"))
    assert uid == 1
    assert dovecot.list_folder(user) == [raw]
    assert dovecot.list_folder(user, "Archive/2024")[0].endswith(b"robot.\r\n")


def test_dovecot_rejects_a_wrong_password(dovecot: DovecotServer) -> None:
    user = _new_user(dovecot)
    with (
        IMAPClient(dovecot.host, dovecot.port, ssl=False, timeout=patience(10)) as client,
        pytest.raises(IMAPClient.Error),
    ):
        client.login(user, "wrong")


def test_dovecot_idle_pushes_new_mail_within_two_seconds(dovecot: DovecotServer) -> None:
    user = _new_user(dovecot)
    with dovecot.connect(user) as idler:
        idler.select_folder("INBOX")
        idler.idle()
        appended_at = time.monotonic()
        dovecot.append(user, "INBOX", _raw("Pushed"))
        exists = None
        while exists is None and time.monotonic() - appended_at < patience(2):
            remaining = patience(2) - (time.monotonic() - appended_at)
            for response in idler.idle_check(timeout=max(remaining, 0.01)):
                if len(response) == 2 and response[1] == b"EXISTS":
                    exists = response
        elapsed = time.monotonic() - appended_at
        idler.idle_done()
    assert exists == (1, b"EXISTS"), f"no EXISTS within {patience(2):g}s (waited {elapsed:.2f}s)"


def test_dovecot_restart_keeps_port_and_mail(dovecot: DovecotServer) -> None:
    user = _new_user(dovecot)
    raw = _raw("Survives restarts")
    dovecot.append(user, "INBOX", raw)
    port = dovecot.port

    idler = dovecot.connect(user)
    try:
        idler.select_folder("INBOX")
        idler.idle()
        dovecot.restart()
        # The idling client was told BYE and hung up on.
        responses = idler.idle_check(timeout=patience(5))
        assert responses and responses[-1][0] == b"BYE", responses
        with pytest.raises((IMAPClient.AbortError, OSError)):
            idler.idle_done()
    finally:
        idler.shutdown()

    assert dovecot.port == port
    with dovecot.connect(user) as client:
        client.select_folder("INBOX", readonly=True)
        uids = client.search("ALL")
        assert client.fetch(uids, [b"BODY.PEEK[]"])[uids[0]][b"BODY[]"] == raw


def test_missing_dovecot_fails_with_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dovecot_module, "DOVECOT_BINARY", "/nonexistent/dovecot")
    monkeypatch.setattr(shutil, "which", lambda *_a, **_k: None)
    with pytest.raises(MissingServerBinary, match="scripts/install-system-deps"):
        DovecotServer()


# -- SMTP sink ----------------------------------------------------------------------


def test_smtp_sink_captures_what_it_accepts(smtp_sink: SmtpSink) -> None:
    raw = _raw("Outgoing")
    with smtplib.SMTP(smtp_sink.host, smtp_sink.port, timeout=patience(10)) as smtp:
        refused = smtp.sendmail("speaker@example.test", ["a@example.test", "b@example.test"], raw)
    assert refused == {}
    got = smtp_sink.wait_for(lambda m: "b@example.test" in m.rcpt_tos, timeout=patience(2))
    assert got.mail_from == "speaker@example.test"
    assert got.rcpt_tos == ("a@example.test", "b@example.test")
    assert got.data == raw
    assert got.parsed()["Subject"] == "Outgoing"


def test_smtp_sink_refuses_for_a_while_then_accepts(smtp_sink: SmtpSink) -> None:
    raw = _raw("Retry me")
    smtp_sink.refuse_temporarily(451)
    with smtplib.SMTP(smtp_sink.host, smtp_sink.port, timeout=patience(10)) as smtp:
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            smtp.sendmail("speaker@example.test", ["a@example.test"], raw)
        assert refused.value.recipients["a@example.test"][0] == 451

    smtp_sink.refuse_temporarily(452, at="data")
    with smtplib.SMTP(smtp_sink.host, smtp_sink.port, timeout=patience(10)) as smtp:
        with pytest.raises(smtplib.SMTPDataError) as data_error:
            smtp.sendmail("speaker@example.test", ["a@example.test"], raw)
        assert data_error.value.smtp_code == 452
    assert smtp_sink.messages == []
    assert [r.code for r in smtp_sink.refusals] == [451, 452]

    smtp_sink.accept()
    with smtplib.SMTP(smtp_sink.host, smtp_sink.port, timeout=patience(10)) as smtp:
        smtp.sendmail("speaker@example.test", ["a@example.test"], raw)
    assert smtp_sink.wait_for(timeout=patience(2)).data == raw


def test_smtp_sink_refuses_one_recipient_for_good(smtp_sink: SmtpSink) -> None:
    smtp_sink.refuse_recipient("Gone@Example.test")
    with smtplib.SMTP(smtp_sink.host, smtp_sink.port, timeout=patience(10)) as smtp:
        refused = smtp.sendmail(
            "speaker@example.test", ["gone@example.test", "here@example.test"], _raw("Hi")
        )
    assert refused["gone@example.test"][0] == 550
    assert smtp_sink.wait_for(timeout=patience(2)).rcpt_tos == ("here@example.test",)


def test_smtp_sink_wait_for_times_out(smtp_sink: SmtpSink) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        smtp_sink.wait_for(lambda m: False, timeout=0.2)
    assert time.monotonic() - started < patience(2)


# -- PostgreSQL ---------------------------------------------------------------------


def test_postgres_select_1(postgres_url: str) -> None:
    engine = create_engine(postgres_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("select 1")).scalar_one() == 1
    finally:
        engine.dispose()


@pytest.mark.parametrize("run", [1, 2])
def test_each_test_gets_its_own_database(postgres_url: str, run: int) -> None:
    # Run twice: with a shared database the second CREATE TABLE would fail.
    engine = create_engine(postgres_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("create table marker (run integer)"))
            conn.execute(text("insert into marker values (:run)"), {"run": run})
    finally:
        engine.dispose()


def test_extra_databases_are_distinct(postgres_server: PostgresServer, postgres_url: str) -> None:
    other = postgres_server.create_database()
    try:
        assert postgres_server.url_for(other) != postgres_url
        with psycopg.connect(postgres_server.conninfo(other), autocommit=True) as conn:
            conn.execute("create table only_here (x integer)")
        engine = create_engine(postgres_url)
        try:
            with engine.connect() as conn:
                tables = conn.execute(
                    text("select count(*) from pg_tables where tablename = 'only_here'")
                ).scalar_one()
        finally:
            engine.dispose()
        assert tables == 0
    finally:
        postgres_server.drop_database(other)


def test_missing_postgres_fails_with_install_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(shutil, "which", lambda *_a, **_k: None)
    monkeypatch.setattr(postgres_module, "DEBIAN_POSTGRES_ROOT", tmp_path)
    with pytest.raises(MissingServerBinary, match="scripts/install-system-deps"):
        postgres_module.find_postgres_bindir()
