"""The integration harnesses' forked commands do what ``python -m speakerbot`` does.

``tests/support/commands.py`` runs each command in a child forked from a process that has
imported speakerbot: the same exit status, output and errors as a fresh process, in the
command's own environment and folder, and a command that hangs is stopped at its timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.commands import FRESH_ENV, speakerbot
from tests.support.configs import game_config
from tests.support.patience import patience


def fresh(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "speakerbot", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=patience(60))


def test_a_forked_command_answers_as_a_fresh_one(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FRESH_ENV, raising=False)
    game_config(tmp_path, "suber")
    # The config is found from the command's folder and environment, not the test's.
    env = {**os.environ, "SPEAKERBOT_CONFIG": "speakerbot.toml"}
    assert speakerbot(["init"], env=env, cwd=tmp_path).returncode == 0
    assert speakerbot(["player", "add", "alice@forked.test", "Alice"], env=env,
                      cwd=tmp_path).returncode == 0
    for args in (["status"], ["player", "list"], ["show", "proposal", "301"], ["nonsense"],
                 ["status", "--game", "elsewhere"], ["--version"]):
        forked, started = speakerbot(args, env=env, cwd=tmp_path), fresh(args, env, tmp_path)
        assert (forked.returncode, forked.stdout, forked.stderr) == \
            (started.returncode, started.stdout, started.stderr), args
    assert "Alice" in speakerbot(["status"], env=env, cwd=tmp_path).stdout
    unset = speakerbot(["status"], env={k: v for k, v in env.items()
                                        if k != "SPEAKERBOT_CONFIG"}, cwd=tmp_path)
    assert unset.returncode == 2 and "config/speakerbot.toml" in unset.stderr


def test_a_forked_command_that_hangs_is_stopped_at_its_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FRESH_ENV, raising=False)
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    # Opening a FIFO for reading blocks until a writer comes: none does.
    with pytest.raises(subprocess.TimeoutExpired):
        speakerbot(["parse", str(fifo)], env=dict(os.environ), cwd=tmp_path, timeout=1)
    # The helper goes on serving after the child it stopped.
    assert speakerbot(["--version"], env=dict(os.environ), cwd=tmp_path).returncode == 0

