"""PostgreSQL connections: tested after a rest in the pool, not before every use.

A connection cut by the server while it rested in the pool is found out on its way out
(``pinging.ping_when_idle``) and replaced, so the game's next read or write goes through;
one used a moment ago goes straight to work. Reads take no transaction on PostgreSQL.
"""

from __future__ import annotations

import contextlib

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from speakerbot.adapters.store import Store, pinging, shared_engine

pytestmark = pytest.mark.integration


def _backend_pid(store: Store) -> int:
    with store.reading() as session:
        pid: int = session.connection().execute(text("SELECT pg_backend_pid()")).scalar_one()
        return pid


def _cut(postgres_url: str, pid: int) -> None:
    """End the server's side of connection ``pid``, as a restart or a firewall would."""
    with Store(postgres_url) as other, other.reading() as session:
        assert session.connection().execute(
            text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()


def test_a_connection_cut_while_resting_is_replaced(postgres_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pinging, "IDLE_BEFORE_PING", 0.0)
    with Store(postgres_url) as store:
        store.upgrade()
        first = _backend_pid(store)
        _cut(postgres_url, first)
        # Both a read and a write go through, on a connection made afresh.
        assert store.last_event_seq() == 0
        with store.transaction() as session:
            assert session.connection().execute(text("SELECT 1")).scalar_one() == 1
        assert _backend_pid(store) != first


def test_a_connection_used_a_moment_ago_is_not_tested(postgres_url: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # "A moment" made long, so that a busy machine's slow cut cannot outlast it.
    monkeypatch.setattr(pinging, "IDLE_BEFORE_PING", 3600.0)
    with Store(postgres_url) as store:
        store.upgrade()
        pid = _backend_pid(store)
        _cut(postgres_url, pid)
        # Not tested within IDLE_BEFORE_PING: the cut is found by the statement itself, which
        # fails as a lost connection (and the pool drops it: the next use gets another).
        with pytest.raises(OperationalError, match=r"terminat|closed|server"):
            store.last_event_seq()
        assert store.last_event_seq() == 0
        assert _backend_pid(store) != pid


def test_reads_take_no_transaction(postgres_url: str) -> None:
    with Store(postgres_url) as store:
        store.upgrade()
        with store.reading() as session:
            # The first statement of a transaction starts at its start; after a BEGIN of its
            # own it would start later. (And on a write, it does.)
            read = session.connection().execute(
                text("SELECT statement_timestamp() = transaction_timestamp()")).scalar_one()
        with store.transaction() as session:
            written = session.connection().execute(
                text("SELECT statement_timestamp() = transaction_timestamp()")).scalar_one()
        assert read is True
        assert written is False


@pytest.mark.parametrize("shared", [True, False], ids=["host's pool", "game's own pool"])
def test_the_pool_hands_out_the_connection_returned_last(postgres_url: str,
                                                         shared: bool) -> None:
    # Last in, first out: a light load keeps to few connections, whose prepared statements
    # are then found (a statement is prepared on a connection after its fifth run there).
    engine = shared_engine(postgres_url) if shared else None
    try:
        with Store(postgres_url, game="lifo", engine=engine) as store:
            store.upgrade()
            with contextlib.ExitStack() as held:
                readings = [held.enter_context(store.reading()) for _ in range(3)]
                pids = [reading.connection().execute(text("SELECT pg_backend_pid()"))
                        .scalar_one() for reading in readings]
            assert len(set(pids)) == 3
            # ExitStack returned them last-opened first: the first opened went back last.
            assert _backend_pid(store) == pids[0]
            assert _backend_pid(store) == pids[0]
    finally:
        if engine is not None:
            engine.dispose()
