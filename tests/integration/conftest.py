"""Fixtures that start real servers on loopback for the integration tests.

A server that cannot be started because its program is missing fails the test
(with the command that installs it) rather than skipping it: a skipped server
test would hide that nothing was tested.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.integration.game_harness import MakeGame, RunningGame
from tests.integration.hosting_harness import Hosting
from tests.support.dovecot import DovecotServer
from tests.support.ports import MissingServerBinary
from tests.support.postgres import PostgresServer
from tests.support.servers import LoopbackServer
from tests.support.smtp_sink import SmtpSink

T = TypeVar("T")
S = TypeVar("S", bound=LoopbackServer)


def _make(factory: Callable[[], T]) -> T:
    """Build a server, turning a missing program into a plain test failure."""
    try:
        return factory()
    except MissingServerBinary as exc:
        missing = str(exc)
    pytest.fail(missing, pytrace=False)


def _serve(factory: Callable[[], S]) -> Iterator[S]:
    """Build and start a server; close it at the end, also when it failed to start."""
    server = _make(factory)
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def dovecot() -> Iterator[DovecotServer]:
    """A running Dovecot IMAP server shared by the session (add users as you need them)."""
    yield from _serve(DovecotServer)


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    """A fresh SMTP sink for one test: nothing captured, accepting everything."""
    yield from _serve(SmtpSink)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A running PostgreSQL server shared by the session."""
    yield from _serve(PostgresServer)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The SQLAlchemy URL of a new, empty database for this test only."""
    name = postgres_server.create_database()
    yield postgres_server.url_for(name)
    postgres_server.drop_database(name)


def db_url_on(*backends: str) -> Any:
    """Make a ``db_url`` fixture that runs its tests on ``backends`` only.

    For scenarios bound to the wall clock (periods of seconds, waited out), whose subject is
    the game's time and not the store: each backend is exercised by the other daemon tests.
    ``SPEAKERBOT_ALL_BACKENDS=1`` runs them on every backend all the same.
    """
    chosen = ["sqlite", "postgresql"] if os.environ.get("SPEAKERBOT_ALL_BACKENDS") else \
        list(backends)

    @pytest.fixture(params=chosen)
    def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
        """The URL of a new, empty game database, on each chosen backend."""
        if request.param == "sqlite":
            return f"sqlite:///{tmp_path / 'game.db'}"
        url: str = request.getfixturevalue("postgres_url")
        return url

    return db_url


db_url = db_url_on("sqlite", "postgresql")
"""The URL of a new, empty game database: each test using it runs on both backends."""


@pytest.fixture
def make_game(tmp_path: Path, dovecot: DovecotServer, smtp_sink: SmtpSink,
              db_url: str) -> Iterator[MakeGame]:
    """Make ``RunningGame``s in this test's directory; their daemons are killed at the end."""
    games: list[RunningGame] = []

    def make(ruleset: str, mechanics: dict[str, str] | None = None,
             extra_env: dict[str, str] | None = None,
             auth: dict[str, str] | None = None) -> RunningGame:
        game = RunningGame(tmp_path, dovecot, smtp_sink, db_url, ruleset, mechanics, extra_env,
                           auth)
        games.append(game)
        return game

    yield make
    for game in games:
        game.kill()
    for game in games:  # every game played in a test keeps an unbroken record
        game.verify_record()


@pytest.fixture
def stop_workers() -> Iterator[list[Hosting]]:
    """The failover tests' hostings: after a test, each worker is continued, then killed."""
    started: list[Hosting] = []
    yield started
    for hosting in started:
        for worker in hosting.workers:
            if worker.process is not None:
                worker.signal(signal.SIGCONT)
            worker.kill()
