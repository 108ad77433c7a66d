"""``speakerbot db upgrade`` keeps a game made before games had ids as a configured game.

The previous release kept its one game in the database's default namespace. Once the config
names its games (``[[games]]``), ``db upgrade`` moves that game, whole, to the id it is given:
its record, and so its chain's head, are exactly what they were.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from sqlalchemy import inspect

from speakerbot.adapters.store import make_engine
from tests.support.commands import speakerbot

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
            more: str = "") -> Path:
    head = "[game]" if game_id is None else f'[[games]]\nid = "{game_id}"'
    path = folder / name
    path.write_text(f'{head}\n{GAME}\n{more}\n[database]\nurl = "{url}"\n{TAIL}')
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
