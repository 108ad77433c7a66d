"""``speakerbot record verify FILE`` on exports written by hand: the chain, then the draws.

The exports are JSONL of the small record of ``tests.support.draw_record`` (a die and a
Judge drawn and revealed, a new Speaker awaiting its seed), as ``record export --public``
would write it, then changed the ways a forger might.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import chain
from speakerbot.entrypoints.cli import main
from tests.support.draw_record import game, line_of

CLEAN = ["the record's chain holds: 10 events in {file}",
         "2 draws verified, 1 awaiting reveal"]
UNCHAINED = ("seq", "prev", "hash")


def _write(path: Path, lines: Sequence[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = main(["record", "verify", str(path)])
    return status, capsys.readouterr().out.splitlines()


def _events(lines: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in line.items() if key not in UNCHAINED}
            for line in lines]


def _tampered() -> list[dict[str, Any]]:
    """The record with the Judge drawn changed to the other candidate, in event and draw."""
    lines = game()
    judge = lines[line_of(lines, "JudgeAssigned")]
    other = next(c for c in judge["draw"]["candidates"] if c != judge["judge"])
    judge["judge"] = judge["draw"]["outcome"] = other
    return lines


def test_a_clean_export_verifies_its_chain_and_its_draws(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "record.jsonl", game())
    assert _verify(path, capsys) == (0, [line.format(file=path) for line in CLEAN])


def test_a_changed_outcome_breaks_the_chain_and_names_the_draw(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "record.jsonl", _tampered())
    status, said = _verify(path, capsys)
    assert status == 1
    assert said[0].startswith("the record's chain is broken at event 8")
    assert said[1] == "1 draws verified, 1 awaiting reveal"
    assert said[2].startswith("draw judge:cfj-1 (event 8) does not verify: its seed gives")


def test_a_forger_who_writes_every_hash_again_still_fails_on_the_draw(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    relinked = list(chain.extend(chain.Head(), _events(_tampered())))
    path = _write(tmp_path / "record.jsonl", relinked)
    status, said = _verify(path, capsys)
    assert status == 1
    assert said[0] == CLEAN[0].format(file=path)
    assert any(line.startswith("draw judge:cfj-1 (event 8) does not verify") for line in said)


def test_the_host_s_full_export_is_checked_on_its_public_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A full export numbers its private events too; the draws' anchors are public lines."""
    events = _events(game())
    ballot = {"type": "BallotCast", "at": events[0]["at"], "number": 301,
              "voter": "alice@camford.example", "choice": "FOR"}
    full = list(chain.extend(chain.Head(), [*events[:2], ballot, *events[2:]]))
    path = _write(tmp_path / "full.jsonl", full)
    status, said = _verify(path, capsys)
    assert (status, said) == (0, ["the record's chain holds: 11 events in " + str(path),
                                  CLEAN[1]])


def test_a_user_runs_it_as_a_command(tmp_path: Path) -> None:
    path = _write(tmp_path / "record.jsonl", _tampered())
    done = subprocess.run([sys.executable, "-m", "speakerbot", "record", "verify", str(path)],
                          capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "draw judge:cfj-1 (event 8) does not verify" in done.stdout
