"""Each game of a database keeps its tables to itself: a schema (PostgreSQL) or a file (SQLite).

The game ``main`` keeps the default namespace, so that a database made before games had ids
is the main game's as it stands.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import inspect

from speakerbot.adapters.store import MAIN_GAME, Store, make_engine
from tests.support.messages import plain_message

NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)


def _stores(db_url: str, games: list[str], shared: bool) -> list[Store]:
    engine = make_engine(db_url) if shared else None
    stores = [Store(db_url, game=game, engine=engine) for game in games]
    for store in stores:
        store.upgrade()
    return stores


@pytest.mark.parametrize("shared", [False, True], ids=["own-engine", "shared-engine"])
def test_games_in_one_database_see_only_their_own_rows(db_url: str, shared: bool) -> None:
    main, second, third = _stores(db_url, [MAIN_GAME, "second", "night-game"], shared)
    for n, store in enumerate((main, second, third)):
        with store.transaction() as session:
            store.set_meta(session, "who", store.game, now=NOW)
        store.store_inbound(plain_message(subject=f"to {store.game}", body=f"VOTE {n}"),
                            NOW, source="lmtp")
    # The same bytes stored in another game are a new message there, not a duplicate.
    shared_bytes = plain_message(subject="to all", body="STATUS")
    ids = {store.game: store.store_inbound(shared_bytes, NOW, source="lmtp").id
           for store in (main, second, third)}
    for store in (main, second, third):
        assert store.get_meta("who") == store.game
        assert store.is_initialised()
        rows = store.list_inbound()
        assert len(rows) == 2
        assert ids[store.game] in {row.id for row in rows}
    for store in (main, second, third):
        store.close()


def test_postgresql_puts_each_game_in_a_schema_of_its_own(postgres_url: str) -> None:
    stores = _stores(postgres_url, [MAIN_GAME, "second"], shared=True)
    engine = make_engine(postgres_url)
    try:
        with engine.connect() as conn:
            inspector = inspect(conn)
            assert "game_second" in inspector.get_schema_names()
            assert {"inbound", "events", "outbox", "alembic_version"} <= set(
                inspector.get_table_names(schema="game_second"))
            assert "alembic_version" in inspector.get_table_names()  # main: the default schema
    finally:
        engine.dispose()
        for store in stores:
            store.close()


def test_sqlite_puts_each_game_in_a_file_beside_the_configured_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    for store in _stores(url, [MAIN_GAME, "second"], shared=False):
        store.close()
    assert (tmp_path / "games.db").exists()
    assert (tmp_path / "games.second.db").exists()


def test_a_game_not_yet_started_is_not_initialised_beside_one_that_is(db_url: str) -> None:
    [main] = _stores(db_url, [MAIN_GAME], shared=False)
    later = Store(db_url, game="later")
    try:
        assert main.is_initialised()
        assert not later.is_initialised()
    finally:
        main.close()
        later.close()
