"""PostgreSQL connections tested before use only when they have stood idle a while.

A connection taken from the pool may have been cut while it waited there (the server
restarted, a firewall forgot it). SQLAlchemy's ``pool_pre_ping`` tests every one before
every use, a round trip each time: a busy game pays several per pass over its mail, for
connections used a moment ago. Here a connection is tested only when it comes back to
use after ``IDLE_BEFORE_PING`` seconds in the pool; one cut within that moment fails its
transaction as a lost connection does anywhere (SQLAlchemy then drops it from the pool),
and the caller's retry finds a fresh one (``connection_lost`` tells such a failure, so
that it is not taken for the fault of the message being processed).
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

IDLE_BEFORE_PING = 5.0
"""Seconds a connection may rest in the pool and still be used without a test."""

_RETURNED = "speakerbot_returned"  # when (monotonic) the connection came back to the pool


def ping_when_idle(engine: Engine) -> None:
    """Test ``engine``'s connections on their way out of the pool after a rest (not before)."""
    dialect = engine.dialect

    def returned(_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[_RETURNED] = time.monotonic()

    def taken(connection: Any, record: ConnectionPoolEntry,
              _proxy: PoolProxiedConnection) -> None:
        # A connection just made has no mark: it was tested by being made.
        since = record.info.get(_RETURNED)
        if since is None or time.monotonic() - since < IDLE_BEFORE_PING:
            return
        try:
            dialect.do_ping(connection)
        except dialect.loaded_dbapi.Error as error:
            # The pool drops this connection and takes another (made afresh if need be).
            raise DisconnectionError(f"a pooled connection was cut: {error}") from error

    event.listen(engine, "checkin", returned)
    event.listen(engine, "checkout", taken)


def connection_lost(error: BaseException) -> bool:
    """Whether ``error`` is the database connection lost (the server cut it, or restarted).

    Such a failure is the database's, not the work's: SQLAlchemy has dropped the pooled
    connections, and the same work tried again gets fresh ones.
    """
    return isinstance(error, DBAPIError) and error.connection_invalidated
