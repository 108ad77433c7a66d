"""Fixtures that start real servers on loopback for the integration tests.

A server that cannot be started because its program is missing fails the test
(with the command that installs it) rather than skipping it: a skipped server
test would hide that nothing was tested.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

from tests.support.dovecot import DovecotServer
from tests.support.ports import MissingServerBinary
from tests.support.postgres import PostgresServer
from tests.support.smtp_sink import SmtpSink

T = TypeVar("T")


def _make(factory: Callable[[], T]) -> T:
    """Build a server, turning a missing program into a plain test failure."""
    try:
        return factory()
    except MissingServerBinary as exc:
        missing = str(exc)
    pytest.fail(missing, pytrace=False)


@pytest.fixture(scope="session")
def dovecot() -> Iterator[DovecotServer]:
    """A running Dovecot IMAP server shared by the session (add users as you need them)."""
    server = _make(DovecotServer)
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    """A fresh SMTP sink for one test: nothing captured, accepting everything."""
    sink = SmtpSink()
    sink.start()
    try:
        yield sink
    finally:
        sink.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A running PostgreSQL server shared by the session."""
    server = _make(PostgresServer)
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The SQLAlchemy URL of a new, empty database for this test only."""
    name = postgres_server.create_database()
    yield postgres_server.url_for(name)
    postgres_server.drop_database(name)
