"""``speakerbot init --force`` over a game: refused without ``--yes``, and never without a copy.

Through the real command line, on SQLite and PostgreSQL. A copy of the whole record, the
bytes ``speakerbot record export`` writes, is kept beside the database (SQLite) or beside the
config file (PostgreSQL), private to its owner, before anything is deleted.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from tests.support.commands import speakerbot

CONFIG = """
[game]
name = "Wipe Nomic"
ruleset = "suber"
address = "game@wipe.test"
speaker = "chuck@wipe.test"
speaker_name = "Chuck"
admin_password = "pw"

[database]
url = "{url}"
"""


class Host:
    """A host at the command line, with a config in its own folder."""

    def __init__(self, folder: Path, db_url: str) -> None:
        folder.mkdir()
        self.folder = folder
        self.config = folder / "speakerbot.toml"
        self.config.write_text(CONFIG.format(url=db_url))

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        environ = {k: v for k, v in os.environ.items() if k != "SPEAKERBOT_CONFIG"}
        return speakerbot(["-c", str(self.config), *args], env=environ, cwd=self.folder)

    def ok(self, *args: str) -> str:
        result = self.cli(*args)
        assert result.returncode == 0, f"speakerbot {args}: {result.stderr}"
        return result.stdout


@pytest.fixture
def host(tmp_path: Path, db_url: str) -> Host:
    # SQLite's file in a folder of its own, so that "beside the database" and "beside the
    # config" are two places.
    if db_url.startswith("sqlite"):
        db_url = f"sqlite:///{tmp_path / 'state' / 'game.db'}"
    host = Host(tmp_path / "host", db_url)
    host.ok("init")
    for address, name in (("alice@wipe.test", "Alice"), ("bob@wipe.test", "Bob")):
        host.ok("player", "add", address, name)
    return host


def _copies(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.rglob("speakerbot-record-*"))


def test_init_force_without_yes_says_what_would_be_lost_and_deletes_nothing(
        host: Host, tmp_path: Path) -> None:
    before = host.ok("status")
    events = len(host.ok("record", "export", "-").splitlines())
    refused = host.cli("init", "--force")
    assert refused.returncode == 1, refused
    assert "--yes" in refused.stderr and f"{events} events" in refused.stderr
    assert "2 players" in refused.stderr
    assert host.ok("status") == before and "alice@wipe.test" in before
    assert _copies(tmp_path) == []


def test_init_force_yes_first_keeps_a_private_copy_of_the_whole_record(
        host: Host, tmp_path: Path, db_url: str) -> None:
    reference = tmp_path / "reference.jsonl"
    host.ok("record", "export", str(reference))
    game_id = json.loads(reference.read_text().splitlines()[0])["game_id"]

    replaced = host.cli("init", "--force", "--yes")
    assert replaced.returncode == 0, replaced.stderr
    [copy] = _copies(tmp_path)
    beside = tmp_path / "state" if db_url.startswith("sqlite") else host.folder
    assert copy.parent == beside
    assert str(copy) in replaced.stdout
    assert re.fullmatch(rf"speakerbot-record-{game_id}-\d{{8}}T\d{{6}}Z\.jsonl", copy.name)
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert copy.read_bytes() == reference.read_bytes()
    events = len(reference.read_text().splitlines())
    assert f"chain holds: {events} events" in host.ok("record", "verify", str(copy))
    assert f"{events} events" in replaced.stdout
    # The game it replaced is gone; a new one runs.
    status = host.ok("status")
    assert "alice@wipe.test" not in status and "Wipe Nomic (suber)" in status

    # A second wipe within the same second keeps a second copy, not one over the first.
    host.ok("player", "add", "carol@wipe.test", "Carol")
    host.ok("init", "--force", "--yes")
    assert len(_copies(tmp_path)) == 2 and copy.read_bytes() == reference.read_bytes()
