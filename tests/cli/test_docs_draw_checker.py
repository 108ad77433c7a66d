"""The standalone Python of docs/verifying.md agrees with ``check_draws`` on exports.

The fenced ``python`` block is taken from the documentation as a reader would copy it, run
on its own (``python -I``, without speakerbot) over exports written by hand, and must print
the same first line and name the same failures as ``speakerbot record verify``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import chain
from speakerbot.engine.draw_check import check_draws, report_lines
from tests.support.draw_record import SEED_2, game, line_of

DOC = Path(__file__).resolve().parents[2] / "docs" / "verifying.md"
FAILURE = re.compile(r"^draw (.+) \(event (\d+)\) does not verify")

Lines = list[dict[str, Any]]


def _checker() -> str:
    blocks = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1
    return str(blocks[0])


def _judge_changed(lines: Lines) -> None:
    judge = lines[line_of(lines, "JudgeAssigned")]
    judge["judge"] = judge["draw"]["outcome"] = next(
        c for c in judge["draw"]["candidates"] if c != judge["judge"])


def _relinked_after_change(lines: Lines) -> None:
    _judge_changed(lines)
    events = [{k: v for k, v in line.items() if k not in ("seq", "prev", "hash")}
              for line in lines]
    lines[:] = chain.extend(chain.Head(), events)


def _wrong_seed(lines: Lines) -> None:
    lines[line_of(lines, "SeedRevealed")]["seed"] = SEED_2.hex()


def _die_value_changed(lines: Lines) -> None:
    die = lines[line_of(lines, "DieThrown")]
    die["value"] = 1 + die["value"] % 6


def _legacy(lines: Lines) -> None:
    for kind in ("DieThrown", "JudgeAssigned"):
        del lines[line_of(lines, kind)]["draw"]


def _before_reveal(lines: Lines) -> None:
    del lines[line_of(lines, "SeedRevealed"):]


CHANGES: dict[str, Callable[[Lines], None]] = {
    "clean": lambda lines: None,
    "a Judge changed": _judge_changed,
    "a Judge changed, every hash written again": _relinked_after_change,
    "a seed not its commitment's": _wrong_seed,
    "a die's value changed": _die_value_changed,
    "draws before draws were provable": _legacy,
    "before the reveal": _before_reveal,
}


def test_the_checker_needs_nothing_but_the_standard_library() -> None:
    imports = re.findall(r"^(?:import|from) (.+)$", _checker(), re.MULTILINE)
    assert imports and all("speakerbot" not in line for line in imports)


@pytest.mark.parametrize("name", CHANGES)
def test_the_docs_checker_agrees_with_record_verify(name: str, tmp_path: Path) -> None:
    lines = game()
    CHANGES[name](lines)
    export = tmp_path / "record.jsonl"
    export.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    script = tmp_path / "check_draws.py"
    script.write_text(_checker(), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(script), str(export)], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    report = check_draws(lines)
    expected = report_lines(report)
    said = done.stdout.splitlines()
    assert done.stderr == ""
    assert said[0] == expected[0]
    named = [found.groups() for found in map(FAILURE.match, said) if found is not None]
    assert named == [(failure.label, str(failure.seq)) for failure in report.failures]
    unprovable = "before draws were provable"
    assert [line for line in said if unprovable in line] == \
        [line for line in expected if unprovable in line]
    assert done.returncode == (1 if report.failures else 0)
    assert (name == "clean") == (said == ["2 draws verified, 1 awaiting reveal"])
