"""What the daemon's loop reads between passes, in one statement: the same as each read alone.

``Store.wake_marks`` gathers what ``look`` needs (the change mark and the next wake-ups) into
one statement; here it is held to the store's separate reads, on a game with mail waiting,
mail held for a confirmation and mail queued, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from random import Random

import pytest
from sqlalchemy import select

from speakerbot.adapters.store import HOST_ADDITIONS, Meta, Store, WakeMarks
from speakerbot.engine import commands as c
from speakerbot.service import GameService
from tests.support.mailgame import ALICE, BOB, DAVE, FAR_FUTURE, SPEAKER, MailGame, mail_games

pytestmark = pytest.mark.integration


def _separately(store: Store) -> WakeMarks:
    queued = [row.next_attempt_at for row in store.due_outbox(FAR_FUTURE, limit=10_000)]
    retried = [row.retry_at for row in store.list_inbound("retry") if row.retry_at]
    return WakeMarks(store.last_event_seq(), min(queued, default=None),
                     store.earliest_pending(), min(retried, default=None),
                     bool(store.waiting_senders()), store.next_gathering(),
                     store.next_digest_copy(), _additions_kept(store))


def _additions_kept(store: Store) -> datetime | None:
    """When the host's additions waiting were kept, read as the meta row it is."""
    with store.reading() as session:
        row = session.execute(select(Meta).where(Meta.key == HOST_ADDITIONS)).scalar()
        return row.updated_at if row is not None and row.value["value"] else None


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


def test_additions_waiting_to_be_announced_are_a_wake_up(game: MailGame) -> None:
    """The desk's addition is announced by the daemon's next tick, which a wake-up asks for.

    The change mark alone does not: a pass that reads the mark after the desk's commit takes
    the addition into it, and its tick may have run before the commit.
    """
    store = game.store
    assert store.wake_marks().additions_kept is None
    # The command line: a service of its own on the same database.
    desk = GameService(Store(game.settings.database.url), game.settings, rng=Random(2),
                       clock=lambda: datetime(2030, 1, 1, tzinfo=UTC))
    try:
        desk.speaker_command(c.AddPlayer(SPEAKER, DAVE, "Dave"))
    finally:
        desk.close()
    marks = store.wake_marks()
    assert marks == _separately(store)
    assert marks.additions_kept == datetime(2030, 1, 1, tzinfo=UTC)
    game.service.tick()  # announced: nothing waits
    marks = store.wake_marks()
    assert marks == _separately(store) and marks.additions_kept is None


def test_the_marks_are_read_alike_on_postgresql(postgres_url: str) -> None:
    with Store(postgres_url) as store:
        store.upgrade()
        assert store.wake_marks() == _separately(store) == WakeMarks(
            0, None, None, None, False, None, None, None)
        kept = datetime(2030, 1, 1, tzinfo=UTC)
        for value, wake in (([[1, 2]], kept), ([], None)):
            with store.transaction() as session:
                store.set_meta(session, HOST_ADDITIONS, value, now=kept)
            assert store.wake_marks() == _separately(store)
            assert store.wake_marks().additions_kept == wake
