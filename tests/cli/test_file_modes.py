"""The modes of the files speakerbot writes are chosen, not left to the umask.

A full export holds sealed ballots and their salts: 0600, even over a file that was
readable before. The archive is public and a web server (another user) reads it: files
0644 and folders 0755, even under the systemd unit's ``UMask=0077``. The real command line
runs under both extremes of umask; the daemon's keeper writes the same way in-process.
"""

from __future__ import annotations

import os
import random
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from speakerbot.config import load_settings
from speakerbot.entrypoints.site import SiteKeeper
from speakerbot.service import GameService
from tests.cli.test_commands import CONFIG
from tests.support.commands import speakerbot as forked
from tests.support.patience import patience

UMASKS = (0o077, 0o000)


def _run(umask: int, *args: str, cwd: Path) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "SPEAKERBOT_CONFIG"}
    done = subprocess.run([sys.executable, "-m", "speakerbot", *args], capture_output=True,
                          text=True, cwd=cwd, env=environ, timeout=patience(60), umask=umask,
                          check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "game.toml"
    path.write_text(CONFIG.format(ruleset="nomicam", db=tmp_path / "state" / "game.db")
                    + '\n[site]\ndir = "archive"\n')
    # The game is set up by commands forked from the helper; what is tested runs afresh.
    environ = {k: v for k, v in os.environ.items() if k != "SPEAKERBOT_CONFIG"}
    for args in (["init"], ["player", "add", "alice@cli.test", "Alice"]):
        done = forked([*args, "-c", str(path)], env=environ, cwd=tmp_path, umask=0o022)
        assert done.returncode == 0, done.stderr
    return path


def _tree(root: Path) -> Iterator[Path]:
    yield root
    yield from root.rglob("*")


@pytest.mark.parametrize("umask", UMASKS, ids=("umask-0077", "umask-0000"))
def test_a_full_export_is_private_and_a_public_one_readable(config: Path, tmp_path: Path,
                                                              umask: int) -> None:
    full, public = tmp_path / "full.jsonl", tmp_path / "public.jsonl"
    full.write_text("an older export, left readable\n")
    full.chmod(0o666)
    _run(umask, "record", "export", str(full), "-c", str(config), cwd=tmp_path)
    _run(umask, "record", "export", "--public", str(public), "-c", str(config), cwd=tmp_path)
    assert _mode(full) == 0o600
    assert _mode(public) == 0o644
    assert "GameStarted" in full.read_text() and "older export" not in full.read_text()


@pytest.mark.parametrize("umask", UMASKS, ids=("umask-0077", "umask-0000"))
def test_site_build_writes_a_world_readable_archive(config: Path, tmp_path: Path,
                                                    umask: int) -> None:
    _run(umask, "site", "build", "out", "-c", str(config), cwd=tmp_path)
    build = (tmp_path / "out").resolve()
    assert (build / "index.html").is_file()
    for path in _tree(build):
        assert _mode(path) == (0o755 if path.is_dir() else 0o644), path


def test_the_daemons_archive_is_world_readable_under_the_units_umask(
        config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings(config)
    with GameService.open(settings, rng=random.Random(0)) as service:
        old = os.umask(0o077)
        try:
            assert SiteKeeper(settings, service).refresh()
        finally:
            os.umask(old)
    build = (tmp_path / "archive").resolve()
    assert (build / "players" / "alice.html").is_file()
    for path in _tree(build):
        assert _mode(path) == (0o755 if path.is_dir() else 0o644), path
