"""``record verify`` on hostile files, and the docs' checker, from the attack review of issue 27.

``record verify FILE`` must never end in a traceback whatever the file (docs/cli.md: exit 1
when something does not verify), and the checker of docs/verifying.md must agree with it on
every public export, not only on the honest ones the agreement test writes; a full export
it refuses, saying to check the public one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import chain
from speakerbot.engine.draw_check import check_draws, report_lines
from speakerbot.engine.luck import commitment_of, derive_index
from speakerbot.entrypoints.cli import main
from tests.support.docs_checker import run_docs_checker
from tests.support.draw_record import RecordBuilder, game, line_of

UNCHAINED = ("seq", "prev", "hash")
Lines = list[dict[str, Any]]

HOSTILE: dict[str, bytes] = {
    "not UTF-8": b"\xff\xfe{\"seq\": 1}\n",
    "a number of 5000 digits": b'{"seq": 1' + b"0" * 5000 + b"}\n",
    "JSON nested 100000 deep": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "an object nested 900 deep": b'{"seq": 1, "a": ' + b"[" * 900 + b"]" * 900 + b"}\n",
    "not JSON": b'{"seq": 1}\n{"seq": 2,\n',
    "a line that is a list": b'{"seq": 1}\n[1, 2]\n',
}
WHERE = {"not UTF-8": 1, "a number of 5000 digits": 1, "JSON nested 100000 deep": 1,
         "an object nested 900 deep": 1, "not JSON": 2, "a line that is a list": 2}


@pytest.mark.parametrize("name", HOSTILE)
def test_record_verify_on_a_hostile_file_says_so_without_a_traceback(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.jsonl"
    path.write_bytes(HOSTILE[name])
    status = main(["record", "verify", str(path)])
    captured = capsys.readouterr()
    assert status == 1
    [said] = captured.out.splitlines()
    assert said.startswith(f"line {WHERE[name]} of {path} is not a JSON object")
    assert captured.err == ""


def test_record_verify_of_a_full_export_with_a_hostile_record_version_says_what_it_finds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A full export's public lines are linked again, its ids learnt from GameStarted."""
    events = [{k: v for k, v in line.items() if k not in UNCHAINED} for line in game()]
    events[0]["record_version"] = "two"
    ballot = {"type": "BallotCast", "number": 301, "voter": "alice@camford.example"}
    full = list(chain.extend(chain.Head(), [*events[:2], ballot, *events[2:]]))
    export = tmp_path / "full.jsonl"
    export.write_text("".join(json.dumps(line) + "\n" for line in full), encoding="utf-8")
    # 1: the draws were made from the hashes of the lines before record_version was changed
    assert main(["record", "verify", str(export)]) == 1
    assert capsys.readouterr().out.startswith("the record's chain holds: 11 events")


def _relinked(lines: Lines) -> Lines:
    events = [{k: v for k, v in line.items() if k not in UNCHAINED} for line in lines]
    return list(chain.extend(chain.Head(), events))


def _empty_draw(lines: Lines) -> None:
    """check_draws: a failure ("lacks a label..."); the docs: a draw before draws were provable."""
    lines[line_of(lines, "DieThrown")]["draw"] = {}


def _value_as_float(lines: Lines) -> None:
    """The docs compare ``value == int(outcome)``: 4.0 == 4; check_draws refuses 4.0."""
    die = lines[line_of(lines, "DieThrown")]
    die["value"] = float(die["value"])


def _after_as_true(lines: Lines) -> None:
    """``after: true`` is line 1 to the docs (True == 1); check_draws refuses a bool."""
    index = line_of(lines, "DieThrown")
    draw = lines[index]["draw"]
    seed = bytes(range(32))
    # Drawn anew from line 1, as the docs' checker will read ``true``.
    fresh = derive_index(seed, lines[0]["hash"], draw["label"], 6)
    draw["after"], draw["outcome"] = True, str(fresh + 1)
    lines[index]["value"] = fresh + 1


def _seed_with_spaces(lines: Lines) -> None:
    """A seed of 21 bytes written in 64 characters with spaces: bytes.fromhex reads it,
    check_draws accepts it; the docs' checker (and the docs: "64 lowercase hex digits",
    "32 random bytes") refuse it."""
    short = bytes(range(1, 22))
    text = " ".join(f"{byte:02x}" for byte in short).ljust(64)
    record = RecordBuilder()
    record.add({**_bare(lines[0]), "commitment": commitment_of(short)})
    for line in lines[1:line_of(lines, "DieThrown")]:
        record.add(_bare(line))
    die = record.draw("die:301", [str(face) for face in range(1, 7)], short)
    record.add({**_bare(lines[line_of(lines, "DieThrown")]), "value": int(die["outcome"]),
                "draw": die})
    record.add({"type": "SeedRevealed", "commitment": commitment_of(short), "seed": text,
                "next_commitment": "", "reason": "a voting period closed"})
    lines[:] = record.lines


def _bare(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k not in (*UNCHAINED, "at")}


CHANGES: dict[str, Callable[[Lines], None]] = {
    "an empty draw": _empty_draw,
    "a die's value written as a float": _value_as_float,
    "a draw anchored to `true`": _after_as_true,
    "a seed written with spaces": _seed_with_spaces,
}


@pytest.mark.parametrize("name", CHANGES)
def test_the_docs_checker_agrees_with_record_verify_on_hostile_exports(
        name: str, tmp_path: Path) -> None:
    lines = game()
    CHANGES[name](lines)
    lines = _relinked(lines) if name != "a seed written with spaces" else lines
    assert chain.verify(lines) is None
    export = tmp_path / "record.jsonl"
    export.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = run_docs_checker(export)
    report = check_draws(lines)
    assert done.stderr == ""
    assert (done.returncode, done.stdout.splitlines()[0]) == \
        (1 if report.failures else 0, report_lines(report)[0])


def test_the_docs_checker_refuses_a_full_export_and_says_to_check_the_public_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On the host's full export (private events numbered too) the docs' checker would read
    ``after`` as a full record number, not a public one, and fail honest draws that ``record
    verify`` (which links the public lines again) verifies: it refuses the file instead."""
    events = [{k: v for k, v in line.items() if k not in UNCHAINED} for line in game()]
    ballot = {"type": "BallotCast", "at": events[0]["at"], "number": 301,
              "voter": "alice@camford.example", "choice": "FOR"}
    full = list(chain.extend(chain.Head(), [*events[:2], ballot, *events[2:]]))
    export = tmp_path / "full.jsonl"
    export.write_text("".join(json.dumps(line) + "\n" for line in full), encoding="utf-8")
    assert main(["record", "verify", str(export)]) == 0
    capsys.readouterr()
    done = run_docs_checker(export)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines() == [
        f"{export} is the host's full record: check the public one "
        "(speakerbot record export --public)"]
