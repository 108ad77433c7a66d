"""The standalone Python of docs/verifying.md agrees with ``check_draws`` on exports.

The fenced ``python`` block is taken from the documentation as a reader would copy it, run
on its own (``python -I``, without speakerbot) over exports written by hand, and must print
the same first line and name the same failures as ``speakerbot record verify``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import chain
from speakerbot.engine.draw_check import check_draws, report_lines
from tests.support.docs_checker import docs_checker, run_docs_checker
from tests.support.draw_record import COMMITMENT_1, COMMITMENT_2, SEED_1, SEED_2, game, line_of

FAILURE = re.compile(r"^draw (.+) \(event (\d+)\) does not verify")

Lines = list[dict[str, Any]]


def _checker() -> str:
    return docs_checker()


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


def _by_chance(lines: Lines) -> None:
    for kind in ("DieThrown", "JudgeAssigned"):
        del lines[line_of(lines, kind)]["draw"]


def _legacy(lines: Lines) -> None:
    """A game recorded before seeds, given its first seed later (a SeedCommitted)."""
    _by_chance(lines)
    lines[0]["commitment"] = ""
    lines[line_of(lines, "SeedRevealed")] = {
        **lines[line_of(lines, "SeedRevealed")], "type": "SeedCommitted",
        "commitment": COMMITMENT_2, "replaces": ""}


def _draw_of(lines: Lines, kind: str) -> dict[str, Any]:
    draw: dict[str, Any] = lines[line_of(lines, kind)]["draw"]
    return draw


def _second_judge_of_cfj_1(lines: Lines) -> None:
    """A named Judge of CFJ 1 before the drawn one: the drawn one is judge:cfj-1/2."""
    judge = lines[line_of(lines, "JudgeAssigned")]
    lines.insert(line_of(lines, "JudgeAssigned"), {**judge, "draw": None, "drawn_from": []})


def _die_thrown_twice(lines: Lines) -> None:
    die = lines[line_of(lines, "DieThrown")]
    lines.insert(line_of(lines, "DieThrown") + 1, {**die, "seq": die["seq"] + 100})


def _superseded(lines: Lines) -> None:
    lines.insert(line_of(lines, "DieThrown"), {
        "seq": 60, "type": "SeedCommitted", "commitment": COMMITMENT_2,
        "replaces": COMMITMENT_1})


def _on_a_score(lines: Lines) -> None:
    lines.insert(line_of(lines, "SeedRevealed"), {
        "seq": 80, "type": "ScoreChanged", "draw": _draw_of(lines, "DieThrown")})


def _seed_in_capitals(lines: Lines) -> None:
    lines[line_of(lines, "SeedRevealed")]["seed"] = SEED_1.hex().upper()


def _huge_die(lines: Lines) -> None:
    lines[line_of(lines, "DieThrown")]["sides"] = 10**12


def _reordered(lines: Lines) -> None:
    judge = lines[line_of(lines, "JudgeAssigned")]
    judge["drawn_from"] = judge["drawn_from"][::-1]


def _before_reveal(lines: Lines) -> None:
    del lines[line_of(lines, "SeedRevealed"):]


CHANGES: dict[str, Callable[[Lines], None]] = {
    "clean": lambda lines: None,
    "a Judge changed": _judge_changed,
    "a Judge changed, every hash written again": _relinked_after_change,
    "a seed not its commitment's": _wrong_seed,
    "a die's value changed": _die_value_changed,
    "draws by chance in a game with a seed": _by_chance,
    "draws before draws were provable": _legacy,
    "before the reveal": _before_reveal,
    "a draw not an object": lambda lines: lines[line_of(lines, "JudgeAssigned")].update(
        draw="judge:cfj-1"),
    "a label not the record's": lambda lines: _draw_of(lines, "DieThrown").update(
        label="die:301/1"),
    "a second Judge of a CFJ": _second_judge_of_cfj_1,
    "a die thrown twice": _die_thrown_twice,
    "a seed superseded": _superseded,
    "a draw on a ScoreChanged": _on_a_score,
    "a seed in capitals": _seed_in_capitals,
    "a die of 10**12 sides": _huge_die,
    "drawn_from reordered": _reordered,
    "an anchor written as true": lambda lines: _draw_of(lines, "DieThrown").update(after=True),
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
    done = run_docs_checker(export)
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
