"""What the daemon's loop reads between passes, in one statement: the same as each read alone.

``Store.wake_marks`` gathers what ``look`` needs (the change mark and the next wake-ups) into
one statement; here it is held to the store's separate reads, on a game with mail waiting,
mail held for a confirmation and mail queued, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from speakerbot.adapters.store import Store, WakeMarks
from tests.support.mailgame import ALICE, BOB, FAR_FUTURE, MailGame, mail_games

pytestmark = pytest.mark.integration


def _separately(store: Store) -> WakeMarks:
    queued = [row.next_attempt_at for row in store.due_outbox(FAR_FUTURE, limit=10_000)]
    retried = [row.retry_at for row in store.list_inbound("retry") if row.retry_at]
    return WakeMarks(store.last_event_seq(), min(queued, default=None),
                     store.earliest_pending(), min(retried, default=None),
                     bool(store.waiting_senders()), store.next_gathering(),
                     store.next_digest_copy())


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    with mail_games(tmp_path) as make:
        yield make()


def test_the_marks_are_the_separate_reads(game: MailGame) -> None:
    store = game.store
    assert store.wake_marks() == _separately(store)
    game.send(ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every vote.\n")
    game.receive(BOB, "vote", "VOTE 301 FOR\n")  # waiting
    game.receive(ALICE, "vote", "VOTE 301 FOR\n", authenticated=False)
    marks = store.wake_marks()
    assert marks == _separately(store)
    assert marks.last_event_seq > 0 and marks.next_outbox is not None
    assert marks.earliest_pending is not None
    game.process()  # Bob's counted; Alice's held until she confirms it
    marks = store.wake_marks()
    assert marks == _separately(store)
    assert marks.held_unasked is False  # her request went at once
    assert marks.earliest_pending is None


def test_the_marks_are_read_alike_on_postgresql(postgres_url: str) -> None:
    with Store(postgres_url) as store:
        store.upgrade()
        assert store.wake_marks() == _separately(store) == WakeMarks(
            0, None, None, None, False, None, None)
