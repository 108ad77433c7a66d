"""Hostile TOML through the real command line: one line saying what and where, never a traceback.

Issue 37 (7): a ruleset or configuration nested 5,000 deep crashed ``rulesets check``,
``init`` and ``status`` with a RecursionError. Every command that reads the file now says
its fault as other faults of the file are said: ``rulesets check`` and ``import`` as
``FILE:LINE: what`` (exit 1), a configuration as ``speakerbot: FILE: ...`` on one line
(exit 2), and nothing is created. ``import`` and ``observers`` said no configuration
fault at all before, only a traceback.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from speakerbot.presets import MAX_DEPTH
from tests.cli.test_rulesets import ROOT
from tests.support.commands import speakerbot as forked
from tests.support.configs import game_config

DEEP = 5000
TOO_DEEP = f"tables, arrays and inline tables nested more than {MAX_DEPTH} deep"

# Each hostile file: its text, and the line its fault is said at.
HOSTILE = {
    "arrays": ("# a ruleset\n\na = " + "[" * DEEP + "]" * DEEP + "\n", 3),
    "inline tables": ("a = " + "{b = " * DEEP + "1" + "}" * DEEP + "\n", 1),
    "dotted keys": ("[preset]\n" + ".".join(["n"] * DEEP) + " = 1\n", 2),
}


def speakerbot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return forked(args, env={**os.environ, "SPEAKERBOT_GAME": ""}, cwd=cwd)


def said_once(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused command prints on standard error."""
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    [line] = result.stderr.splitlines()
    return line


@pytest.mark.parametrize("case", HOSTILE)
def test_rulesets_check_says_a_deep_file_in_one_fault(tmp_path: Path, case: str) -> None:
    text, line = HOSTILE[case]
    (tmp_path / "deep.toml").write_text(text)
    result = speakerbot("rulesets", "check", "deep.toml", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stdout.splitlines() == ["deep.toml: 1 fault",
                                          f"deep.toml:{line}: {TOO_DEEP}; speakerbot reads no "
                                          "deeper"]


COMMANDS = [("status",), ("init",), ("games",), ("player", "list"), ("observers", "list"),
            ("import", str(ROOT / "config" / "example-import.toml")), ("run", "--once")]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_says_a_deep_config_in_one_line(tmp_path: Path,
                                                      command: tuple[str, ...]) -> None:
    text, line = HOSTILE["arrays"]
    config = tmp_path / "speakerbot.toml"
    config.write_text(text)
    result = speakerbot("-c", str(config), *command, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert said_once(result) == (f"speakerbot: {config}: is refused: {TOO_DEEP}; speakerbot "
                                 f"reads no deeper (at line {line})")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["speakerbot.toml"]


@pytest.mark.parametrize("case", HOSTILE)
def test_status_says_each_kind_of_deep_config_in_one_line(tmp_path: Path, case: str) -> None:
    text, line = HOSTILE[case]
    config = tmp_path / "speakerbot.toml"
    config.write_text(text)
    result = speakerbot("-c", str(config), "status", cwd=tmp_path)
    assert result.returncode == 2
    assert said_once(result).endswith(f"(at line {line})")


@pytest.mark.parametrize("command", ["init", "status"])
def test_a_config_naming_a_deep_ruleset_file_is_refused_with_its_line(
        tmp_path: Path, command: str) -> None:
    (tmp_path / "deep.toml").write_text(HOSTILE["inline tables"][0])
    result = speakerbot("-c", str(game_config(tmp_path, "deep.toml")), command, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "ruleset file is refused" in result.stderr
    assert f"{tmp_path / 'deep.toml'}:1: {TOO_DEEP}" in result.stderr
    assert not (tmp_path / "game.db").exists()


def test_import_says_a_deep_snapshot_in_one_fault(tmp_path: Path) -> None:
    (tmp_path / "snapshot.toml").write_text(HOSTILE["arrays"][0])
    result = speakerbot("-c", str(game_config(tmp_path, "suber")), "import", "snapshot.toml",
                        cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == ["snapshot.toml: 1 fault",
                                          f"snapshot.toml:3: {TOO_DEEP}; speakerbot reads no "
                                          "deeper"]
    assert not (tmp_path / "game.db").exists()


def test_a_huge_whole_number_in_a_config_is_one_line_with_its_key(tmp_path: Path) -> None:
    config = game_config(tmp_path, "suber")
    text = config.read_text() + "\n[limits]\nmax_message_size = 0x" + "f" * DEEP + "\n"
    config.write_text(text)
    line = len(text.splitlines())
    result = speakerbot("-c", str(config), "status", cwd=tmp_path)
    assert result.returncode == 2
    assert said_once(result).endswith(f"(at line {line}, limits.max_message_size)")
