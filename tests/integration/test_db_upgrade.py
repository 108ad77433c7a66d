"""``speakerbot db upgrade`` keeps a game made before games had ids as a configured game.

The previous release kept its one game in the database's default namespace. Once the config
names its games (``[[games]]``), ``db upgrade`` moves that game, whole, to the id it is given:
its record, and so its chain's head, are exactly what they were.

A database of every release that changed the schema (``tests/data/releases``: each one's
README says how it was made) upgrades so, on SQLite and PostgreSQL: its migrations first,
then its move, its rows unchanged, its tables then of today's shape, and the game goes on.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, Table, inspect, select
from sqlalchemy.engine import make_url

from speakerbot.adapters.store import Base, game_url, make_engine
from speakerbot.adapters.store.database import game_schema
from tests.support.commands import speakerbot
from tests.support.postgres import PostgresServer

DATA = Path(__file__).resolve().parent.parent / "data" / "previous-release"
GAME = """
name = "Old Nomic"
ruleset = "nomicam"
address = "nomic@old.test"
speaker = "chuck@old.test"
speaker_name = "Chuck"
admin_password = "old-password"
"""
FRESH = """
[[games]]
id = "fresh"
name = "Fresh Nomic"
ruleset = "suber"
address = "fresh@old.test"
speaker = "chuck@old.test"
speaker_name = "Chuck"
admin_password = "old-password"
"""
TAIL = """
[smtp]
host = "127.0.0.1"
port = 2525
security = "none"
"""


def _config(folder: Path, name: str, url: str, *, game_id: str | None,
            more: str = "", game: str = GAME) -> Path:
    head = "[game]" if game_id is None else f'[[games]]\nid = "{game_id}"'
    path = folder / name
    path.write_text(f'{head}\n{game}\n{more}\n[database]\nurl = "{url}"\n{TAIL}')
    return path


def _cli(config: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SPEAKERBOT_GAME"}
    result = speakerbot(["-c", str(config), *args], env=env, cwd=config.parent)
    if check:
        assert result.returncode == 0, f"speakerbot {args}: {result.stderr}"
    return result


def _record(config: Path, *game: str) -> list[dict[str, object]]:
    out = _cli(config, *game, "record", "export", "-").stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_the_previous_releases_sqlite_game_becomes_a_configured_game(tmp_path: Path) -> None:
    shutil.copy(DATA / "game.db", tmp_path / "game.db")
    url = f"sqlite:///{tmp_path / 'game.db'}"
    old = _config(tmp_path, "old.toml", url, game_id=None)
    before = _record(old)
    assert len(before) == 12

    new = _config(tmp_path, "new.toml", url, game_id="old-nomic", more=FRESH)
    # Starting the configured games now would leave the old game behind, unread.
    refused = _cli(new, "init", check=False)
    assert refused.returncode == 2 and "db upgrade" in refused.stderr
    # Two games configured: which one the old game is must be said.
    unsaid = _cli(new, "db", "upgrade", check=False)
    assert unsaid.returncode == 2 and "--game ID" in unsaid.stderr
    assert (tmp_path / "game.db").exists()

    upgraded = _cli(new, "--game", "old-nomic", "db", "upgrade").stdout
    assert "is now the game old-nomic" in upgraded
    assert not (tmp_path / "game.db").exists()
    assert (tmp_path / "game.old-nomic.db").exists()
    after = _record(new, "--game", "old-nomic")
    assert after == before
    assert after[-1]["hash"] == before[-1]["hash"]
    assert "holds: 12 events" in _cli(new, "--game", "old-nomic", "record", "verify").stdout
    started = _cli(new, "init").stdout
    assert "old-nomic: already started, left alone" in started
    assert "fresh: started Fresh Nomic" in started
    assert "Alice" in _cli(new, "--game", "old-nomic", "status").stdout
    assert _record(new, "--game", "old-nomic") == before


def test_a_postgresql_game_moves_to_its_schema_with_its_record(tmp_path: Path,
                                                               postgres_url: str) -> None:
    old = _config(tmp_path, "old.toml", postgres_url, game_id=None)
    _cli(old, "init")
    _cli(old, "player", "add", "alice@old.test", "Alice")
    _cli(old, "admin", "score", "alice@old.test", "+5", "solved", "the", "puzzle")
    before = _record(old)

    new = _config(tmp_path, "new.toml", postgres_url, game_id="kept")
    assert "is now the game kept" in _cli(new, "db", "upgrade").stdout
    assert _record(new) == before
    _cli(new, "record", "verify")
    engine = make_engine(postgres_url)
    try:
        with engine.connect() as conn:
            inspector = inspect(conn)
            assert "events" in inspector.get_table_names(schema="game_kept")
            assert "events" not in inspector.get_table_names()
    finally:
        engine.dispose()
    # Upgrading again finds nothing left to move.
    again = _cli(new, "db", "upgrade").stdout
    assert "is now" not in again and "up to date" in again


# --- A database of every release that changed the schema ------------------------------------

RELEASES = DATA.parent / "releases"
CAMFORD = """
name = "Camford Nomic"
ruleset = "nomicam"
address = "nomic@camford.example"
speaker = "chuck@example.org"
speaker_name = "Chuck"
admin_password = "tea-and-biscuits-42"
"""
"""The game each release played (its tests' MailGame): the config its database goes with."""
ONE_GAME = {
    "a9a2cab": "0001", "3dc0562": "0002", "b5674ce": "0002", "6eb6206": "0003",
    "d877c47": "0004", "49efc91": "0005", "8898c39": "0005", "2fd87e1": "0006",
    "671a20f": "0007", "0c87a14": "0006",
}
"""Each release of one game in the default namespace, and the revision its database records
(3dc0562, 49efc91, 2fd87e1 and 671a20f made an earlier shape of theirs)."""
NAMESPACED = "35ce47c"
"""A release whose games have ids: alpha (a played proposal) and beta, each in its own."""
TODAY = {table.name: {column.name for column in table.columns}
         for table in Base.metadata.tables.values()} | {"alembic_version": {"version_num"}}
BACKENDS = ["sqlite", "postgresql"]


def _restore(release: str, backend: str, folder: Path, request: pytest.FixtureRequest) -> str:
    """Restore a release's database as a new one of this test's; return its URL."""
    kept = RELEASES / release
    if backend == "sqlite":
        for packed in kept.glob("*.db.gz"):
            (folder / packed.name.removesuffix(".gz")).write_bytes(
                gzip.decompress(packed.read_bytes()))
        return f"sqlite:///{folder / 'game.db'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url: str = request.getfixturevalue("postgres_url")
    dump = gzip.decompress((kept / "game.sql.gz").read_bytes()).decode()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    restored = subprocess.run(
        [str(server.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
         "-d", server.conninfo(str(make_url(url).database)), "-f", "-"],
        input=dump, text=True, capture_output=True, env=env, check=False)
    assert restored.returncode == 0, restored.stderr
    return url


def _tables(url: str, game: str | None) -> dict[str, set[str]]:
    """Each table of a game (None: the default namespace's) with its columns."""
    engine = make_engine(url if game is None else game_url(url, game))
    schema = None if game is None or engine.dialect.name == "sqlite" else game_schema(game)
    try:
        with engine.connect() as conn:
            inspector = inspect(conn)
            return {name: {column["name"] for column in inspector.get_columns(name, schema)}
                    for name in inspector.get_table_names(schema)}
    finally:
        engine.dispose()


def _rows(url: str, game: str | None, name: str,
          columns: set[str]) -> list[dict[str, Any]]:
    """The rows of one of a game's tables, in the order of its key: ``columns`` of each."""
    engine = make_engine(url if game is None else game_url(url, game))
    schema = None if game is None or engine.dialect.name == "sqlite" else game_schema(game)
    try:
        with engine.connect() as conn:
            table = Table(name, MetaData(), schema=schema, autoload_with=conn)
            query = select(*(table.c[column] for column in sorted(columns)))
            return [dict(row._mapping)
                    for row in conn.execute(query.order_by(*table.primary_key))]
    finally:
        engine.dispose()


Stored = dict[str, tuple[set[str], list[dict[str, Any]]]]


def _stored(url: str, game: str | None) -> Stored:
    """Each of a game's tables (alembic's own aside): its columns, and its rows."""
    return {name: (columns, _rows(url, game, name, columns))
            for name, columns in _tables(url, game).items() if name != "alembic_version"}


def _kept(url: str, game: str, stored: Stored) -> None:
    """Every row stored before is in ``game``'s tables as it was, in its order (new columns
    aside; a migration may add rows of its own, as 0003 does the secret of Message-IDs)."""
    for name, (columns, rows) in stored.items():
        now = _rows(url, game, name, columns)
        assert [row for row in now if row in rows] == rows, name


def _goes_on(config: Path, game: str, newcomer: str, linked: list[dict[str, object]]) -> None:
    """A write (a player added, announced by mail) keeps the record as exported (``linked``:
    a record from before the chains is linked then as its export said); it verifies."""
    _cli(config, "--game", game, "player", "add", newcomer, "Newcomer")
    assert _record(config, "--game", game)[: len(linked)] == linked
    assert "chain holds" in _cli(config, "--game", game, "record", "verify").stdout


def test_every_release_kept_is_upgraded_here() -> None:
    assert {path.name for path in RELEASES.iterdir() if path.is_dir()} == {*ONE_GAME, NAMESPACED}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("release", list(ONE_GAME))
def test_a_game_of_every_release_upgrades_into_a_configured_game(
        release: str, backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    url = _restore(release, backend, tmp_path, request)
    stored = _stored(url, None)
    assert _rows(url, None, "alembic_version", {"version_num"}) == [
        {"version_num": ONE_GAME[release]}]
    # Today's export reads a record once it has the chains' columns (0003): an older one is
    # compared row by row, and linked at its next write.
    columns, events = stored["events"]
    chained = "hash" in columns
    before = _record(_config(tmp_path, "old.toml", url, game_id=None, game=CAMFORD)) \
        if chained else None

    new = _config(tmp_path, "new.toml", url, game_id="kept", game=CAMFORD)
    assert "is now the game kept" in _cli(new, "db", "upgrade").stdout
    assert _tables(url, "kept") == TODAY
    _kept(url, "kept", stored)
    after = _record(new)
    assert [line["seq"] for line in after] == [row["seq"] for row in events]
    if before is not None:
        assert after == before
        assert after[-1]["hash"] == events[-1]["hash"]
    _goes_on(new, "kept", "carol@example.org", after)
    assert "Alice" in _cli(new, "status").stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_games_of_a_release_with_ids_upgrade_where_they_are(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    url = _restore(NAMESPACED, backend, tmp_path, request)
    path = tmp_path / "games.toml"
    path.write_text("".join(
        f'[[games]]\nid = "{game}"\n{CAMFORD.replace("Camford Nomic", game.title())}'
        .replace("nomic@camford.example", address)
        for game, address in (("alpha", "nomic@camford.example"),
                              ("beta", "beta@camford.example")))
        + f'\n[database]\nurl = "{url}"\n{TAIL}')
    stored = {game: _stored(url, game) for game in ("alpha", "beta")}
    before = {game: _record(path, "--game", game) for game in ("alpha", "beta")}

    upgraded = _cli(path, "db", "upgrade").stdout
    assert "is now" not in upgraded and "up to date" in upgraded
    for game, newcomer in (("alpha", "carol@example.org"), ("beta", "dave@example.org")):
        assert _tables(url, game) == TODAY
        _kept(url, game, stored[game])
        assert _record(path, "--game", game) == before[game]
        _goes_on(path, game, newcomer, before[game])
    assert "Alice" in _cli(path, "--game", "alpha", "status").stdout
