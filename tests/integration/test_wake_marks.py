"""What the daemon's loop reads between passes, in one statement: the same as each read alone.

``Store.wake_marks`` gathers what ``look`` needs (the change mark and the next wake-ups) into
one statement; here it is held to the store's separate reads, on a game with mail waiting,
mail held for a confirmation and mail queued, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from random import Random

import pytest

from speakerbot.adapters.store import (
    ASIDE_NOTICE_AT,
    ASIDE_NOTIFIED_ID,
    HANDWORK_REMINDED,
    HOST_ADDITIONS,
    InboundItem,
    Intake,
    Store,
    WakeMarks,
)
from speakerbot.engine import commands as c
from speakerbot.service import GameService
from speakerbot.service.answering import ASIDE_NOTICE_EVERY, aside_notice_due
from speakerbot.service.looking import look
from tests.support.mailgame import (
    ALICE,
    BOB,
    DAVE,
    FAR_FUTURE,
    SPEAKER,
    T0,
    MailGame,
    mail_games,
)

pytestmark = pytest.mark.integration


def _separately(store: Store) -> WakeMarks:
    queued = [row.next_attempt_at for row in store.due_outbox(FAR_FUTURE, limit=10_000)]
    retried = [row.retry_at for row in store.list_inbound("retry") if row.retry_at]
    aside = [row.id for row in store.set_aside_since(0)]
    notified = store.get_meta(ASIDE_NOTIFIED_ID)
    return WakeMarks(store.last_event_seq(), min(queued, default=None),
                     store.earliest_pending(), min(retried, default=None),
                     bool(store.waiting_senders()), store.next_gathering(),
                     store.next_digest_copy(), bool(store.get_meta(HOST_ADDITIONS)),
                     max(aside, default=None), None if notified is None else int(notified),
                     store.get_meta(ASIDE_NOTICE_AT), store.next_confirmation_expiry(),
                     store.get_meta(HANDWORK_REMINDED))


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
    assert marks.next_expiry is not None  # her request's


def test_additions_waiting_to_be_announced_are_a_wake_up(game: MailGame) -> None:
    """The desk's addition is announced by the daemon's next tick, which a wake-up asks for.

    The change mark alone does not: a pass that reads the mark after the desk's commit takes
    the addition into it, and its tick may have run before the commit.
    """
    store = game.store
    assert store.wake_marks().additions_waiting is False
    # The command line: a service of its own on the same database.
    desk = GameService(Store(game.settings.database.url), game.settings, rng=Random(2))
    try:
        desk.speaker_command(c.AddPlayer(SPEAKER, DAVE, "Dave"))
    finally:
        desk.close()
    marks = store.wake_marks()
    assert marks == _separately(store) and marks.additions_waiting is True
    assert look(game.service.deps)[1]["host-additions"] == game.clock()  # due now
    game.service.tick()  # announced: nothing waits
    marks = store.wake_marks()
    assert marks == _separately(store) and marks.additions_waiting is False
    assert look(game.service.deps)[1]["host-additions"] is None


def _set_aside(store: Store, reason: str) -> int:
    """Store a message set aside at intake, as another worker's listener may."""
    item = InboundItem(f"Subject: {reason}\r\n\r\nbroken\r\n".encode(), T0, "lmtp",
                       None, None, Intake(), set_aside=f"intake: {reason}")
    return store.store_inbound_many([item])[0].id


def test_mail_set_aside_is_a_wake_up_for_the_host_s_notice_at_most_hourly(
        game: MailGame) -> None:
    store, deps = game.store, game.service.deps
    assert look(deps)[1]["set-aside-notice"] is None
    first = _set_aside(store, "one")
    marks = store.wake_marks()
    assert marks == _separately(store) and marks.last_set_aside == first
    assert look(deps)[1]["set-aside-notice"] == game.clock()  # never told: due now
    game.service.tick()  # the host is told
    assert [m.subject for m in game.outbox()][-1].endswith("A message was set aside")
    marks = store.wake_marks()
    assert marks == _separately(store) and marks.aside_notified == first
    assert look(deps)[1]["set-aside-notice"] is None  # nothing more to tell
    _set_aside(store, "two")
    told_at = game.clock()
    assert look(deps)[1]["set-aside-notice"] == told_at + ASIDE_NOTICE_EVERY  # the hour's
    game.clock.now += ASIDE_NOTICE_EVERY
    assert look(deps)[1]["set-aside-notice"] == game.clock()
    game.service.tick()
    assert look(deps)[1]["set-aside-notice"] is None


@pytest.mark.parametrize(("last", "notified", "at", "due"), [
    (None, None, None, None),  # nothing ever set aside
    (5, 5, "2026-01-05T11:00:00+00:00", None),  # all told
    (6, 5, None, T0),  # never told: now
    (6, None, None, T0),
    (6, 5, "2026-01-05T11:30:00+00:00", T0 + timedelta(minutes=30)),  # the hour's end
    (6, 5, "2026-01-05T10:00:00+00:00", T0),  # the hour long over: now
])
def test_when_the_host_s_notice_of_mail_set_aside_is_due(
        last: int | None, notified: int | None, at: str | None, due: datetime | None) -> None:
    assert aside_notice_due(last, notified, at, T0) == due


def test_the_marks_are_read_alike_on_postgresql(postgres_url: str) -> None:
    with Store(postgres_url) as store:
        store.upgrade()
        assert store.wake_marks() == _separately(store) == WakeMarks(
            0, None, None, None, False, None, None, False, None, None, None, None, None)
        for value, waiting in (([[1, 2]], True), ([[1, 2], [4, 4]], True), ([], False)):
            with store.transaction() as session:
                store.set_meta(session, HOST_ADDITIONS, value)
            assert store.wake_marks() == _separately(store)
            assert store.wake_marks().additions_waiting is waiting
        aside = _set_aside(store, "one")
        with store.transaction() as session:
            store.set_meta(session, ASIDE_NOTIFIED_ID, aside)
            store.set_meta(session, ASIDE_NOTICE_AT, T0.isoformat())
        marks = store.wake_marks()
        assert marks == _separately(store)
        assert (marks.last_set_aside, marks.aside_notified, marks.aside_notice_at) == (
            aside, aside, T0.isoformat())
        with store.transaction() as session:
            for hours in (3, 2):
                store.add_confirmation(session, address=ALICE, token_sha256=f"{hours:064d}",
                                       request_message_id=f"<r{hours}@game.test>",
                                       created_at=T0, expires_at=T0 + timedelta(hours=hours))
        marks = store.wake_marks()
        assert marks == _separately(store) and marks.next_expiry == T0 + timedelta(hours=2)
