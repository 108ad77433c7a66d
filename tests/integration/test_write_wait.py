"""A write transaction on PostgreSQL waits for the game's lock a while, never for ever.

Two transactions of one game, the second begun while the first holds the game's write
lock: it gives up after ``_WRITE_WAIT_SECONDS`` (shortened here), as SQLite's busy time-out
does, and once the first is done the next one goes through; each announces itself to the
other workers at commit only.
"""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy.exc import OperationalError

from speakerbot.adapters.store import Store, database
from tests.support.patience import patience

pytestmark = pytest.mark.integration


def test_a_second_writer_gives_up_after_the_wait(postgres_url: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database, "_WRITE_WAIT_SECONDS", 1)
    with Store(postgres_url) as store:
        store.upgrade()
        holding, done = threading.Event(), threading.Event()

        def hold() -> None:
            with store.transaction():
                holding.set()
                assert done.wait(patience(30))

        holder = threading.Thread(target=hold)
        holder.start()
        try:
            assert holding.wait(patience(10))
            began = time.monotonic()
            with pytest.raises(OperationalError, match="lock timeout"), store.transaction():
                pass
            # It waited for the lock (not refused at once), and not for ever.
            assert 0.9 <= time.monotonic() - began < patience(10)
        finally:
            done.set()
            holder.join(patience(10))
        with store.transaction() as session:  # the lock is free again
            assert session.connection().exec_driver_sql("SELECT 1").scalar() == 1
