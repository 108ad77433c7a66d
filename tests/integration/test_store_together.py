"""Mail for several games that share a database, stored in one transaction (group commit).

A host's games on one PostgreSQL database share one group commit
(``intake.store_together``): the messages that arrive together are stored in one transaction,
whichever games they are for, each in its own game's namespace behind its own write lock.
Held here: each game keeps its own mail and its own duplicates, a game that cannot store
fails its own messages only, two such transactions never deadlock, and the host shares the
group commit among the games of one database only (SQLite's games each keep their own).
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import event, text

from speakerbot.adapters.store import InboundItem, Store, shared_engine
from speakerbot.entrypoints.daemon import Daemon
from speakerbot.entrypoints.hosting import Host
from speakerbot.service import GameService, Received
from speakerbot.service.grouping import Failed
from speakerbot.service.intake import read_at_intake, store_together
from tests.support.mailgame import ALICE, BOB, make_settings, new_message_id, raw_mail
from tests.support.patience import patience

pytestmark = pytest.mark.integration

AT = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
GAMES = ("tea", "cake", "scones")


def _services(stack: ExitStack, folder: Path, url: str) -> list[GameService]:
    """Three games in the database at ``url``, sharing one engine where it can be shared."""
    engine = shared_engine(url)
    if engine is not None:
        stack.callback(engine.dispose)
    settings = make_settings(folder, "nomicam")
    services = []
    for game in GAMES:
        mine = dataclasses.replace(settings, game_id=game, database=dataclasses.replace(
            settings.database, url=url))
        store = stack.enter_context(Store(url, game=game, engine=engine))
        store.upgrade()
        services.append(GameService(store, mine, rng=random.Random(7)))
    return services


@pytest.fixture
def games(tmp_path: Path, postgres_url: str) -> Iterator[list[GameService]]:
    with ExitStack() as stack:
        yield _services(stack, tmp_path, postgres_url)


def _item(service: GameService, sender: str, body: str, raw: bytes | None = None,
          ) -> InboundItem:
    raw = raw or raw_mail(sender, "vote", body, message_id=new_message_id(sender), date=AT)
    item, _ = read_at_intake(service.deps, Received(raw, AT, "lmtp"))
    return item


def _stored(service: GameService) -> list[bytes]:
    return sorted(bytes(service.store.inbound(row.id).raw)
                  for row in service.store.list_inbound(limit=1000))


def test_the_mail_of_three_games_is_stored_in_one_transaction(games: list[GameService],
                                                               ) -> None:
    tea, cake, scones = games
    items = [(tea, _item(tea, ALICE, "VOTE 301 FOR\n")),
             (cake, _item(cake, BOB, "VOTE 301 AGAINST\n")),
             (tea, _item(tea, BOB, "VOTE 302 FOR\n")),
             (scones, _item(scones, ALICE, "STATUS\n"))]
    commits: list[object] = []

    def committed(conn: object) -> None:
        commits.append(conn)

    engine = tea.store.base_engine
    event.listen(engine, "commit", committed)
    try:
        results = store_together([(service.deps, item) for service, item in items])
    finally:
        event.remove(engine, "commit", committed)
    assert len(commits) == 1
    assert all(not isinstance(result, Failed) and not result.duplicate for result in results)
    # Each in its own game's namespace, and nowhere else.
    for service in games:
        assert _stored(service) == sorted(bytes(item.raw) for owner, item in items
                                          if owner is service)
    # Offered again, each is a duplicate in its own game, with the id it was stored under.
    again = store_together([(service.deps, item) for service, item in items])
    assert [(r.id, r.duplicate) for r in again if not isinstance(r, Failed)] == [
        (r.id, True) for r in results if not isinstance(r, Failed)]


def test_one_message_for_two_games_is_stored_once_in_each(games: list[GameService]) -> None:
    tea, cake, _ = games
    raw = raw_mail(ALICE, "vote", "VOTE 301 FOR\n", message_id=new_message_id(ALICE), date=AT)
    results = store_together([(tea.deps, _item(tea, ALICE, "", raw)),
                              (cake.deps, _item(cake, ALICE, "", raw))])
    assert [isinstance(r, Failed) or r.duplicate for r in results] == [False, False]
    assert len(_stored(tea)) == len(_stored(cake)) == 1


def test_a_game_that_cannot_store_fails_its_own_messages_only(games: list[GameService],
                                                              ) -> None:
    tea, cake, scones = games
    with cake.store.base_engine.begin() as conn:
        conn.execute(text(f'DROP TABLE "{cake.store.schema}".inbound CASCADE'))
    items = [(tea, _item(tea, ALICE, "VOTE 301 FOR\n")),
             (cake, _item(cake, BOB, "VOTE 301 AGAINST\n")),
             (scones, _item(scones, ALICE, "STATUS\n"))]
    results = store_together([(service.deps, item) for service, item in items])
    assert [isinstance(result, Failed) for result in results] == [False, True, False]
    assert _stored(tea) == [bytes(items[0][1].raw)]
    assert _stored(scones) == [bytes(items[2][1].raw)]


def test_two_transactions_taking_games_in_opposite_orders_never_deadlock(
        games: list[GameService]) -> None:
    tea, cake, _ = games
    failures: list[BaseException] = []

    def store(order: list[GameService], start: threading.Barrier, n: int) -> None:
        batches = [(service.store, [_item(service, ALICE, f"VOTE {300 + n} FOR\n")
                                    for _ in range(3)]) for service in order]
        start.wait()
        try:
            Store.store_inbound_across(batches)
        except Exception as error:
            failures.append(error)

    for n in range(20):
        start = threading.Barrier(2)
        threads = [threading.Thread(target=store, args=(order, start, n))
                   for order in ([tea, cake], [cake, tea])]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []
    assert len(_stored(tea)) == len(_stored(cake)) == 20 * 2 * 3


def test_stores_of_games_on_different_databases_are_refused_together(
        tmp_path: Path, games: list[GameService]) -> None:
    with ExitStack() as stack:
        [alone, *_] = _services(stack, tmp_path, f"sqlite:///{tmp_path / 'game.db'}")
        with pytest.raises(ValueError, match="do not share"):
            Store.store_inbound_across([(games[0].store, []), (alone.store, [])])


def _host(services: list[GameService]) -> Host:
    daemons = [Daemon(service.settings, service, own_lmtp=False) for service in services]
    return Host(services[0].settings, daemons)


def _waiting_for_a_write_lock(service: GameService) -> bool:
    with service.store.base_engine.connect() as conn:
        return bool(conn.execute(text(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        )).scalar_one())


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + patience(10)
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


def test_a_host_shares_one_group_commit_among_the_games_of_one_database(
        games: list[GameService]) -> None:
    tea, cake, scones = games
    _host(games)
    assert tea.deps.intake_commits is cake.deps.intake_commits is scones.deps.intake_commits
    shared = tea.deps.intake_commits
    # Mail for cake and scones arriving while tea's is being stored goes in the next
    # commit, together: tea's write lock, held here, keeps the first commit waiting.
    conn = tea.store.base_engine.connect()
    held = conn.begin()
    try:
        tea.store.lock_writes(conn)
        with ThreadPoolExecutor(3) as pool:
            first = pool.submit(tea.receive, raw_mail(ALICE, "v", "VOTE 301 FOR\n"), AT,
                                source="lmtp")
            _until(lambda: _waiting_for_a_write_lock(tea))
            others = [pool.submit(service.receive, raw_mail(BOB, "v", f"VOTE 30{n} FOR\n"),
                                  AT, source="lmtp") for n, service in enumerate((cake, scones))]
            _until(lambda: shared.waiting() == 2)
            before = shared.commits
            held.rollback()
            for future in (first, *others):
                future.result(patience(10))
    finally:
        conn.close()
    assert shared.commits - before == 2  # tea's alone, then cake's and scones' together
    assert [len(_stored(service)) for service in games] == [1, 1, 1]


def test_games_on_sqlite_each_keep_their_own_group_commit(tmp_path: Path) -> None:
    with ExitStack() as stack:
        games = _services(stack, tmp_path, f"sqlite:///{tmp_path / 'game.db'}")
        _host(games)
        assert len({id(service.deps.intake_commits) for service in games}) == 3
