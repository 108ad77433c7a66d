"""The check of draws on small public records written by hand: each way a draw can fail.

The record (``tests.support.draw_record.game``) has a die and a Judge drawn with seed 1,
revealed at line 9, and a new Speaker drawn with seed 2, not revealed. Each case changes
it one way and says what the check must find.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from speakerbot.engine.draw_check import DrawReport, check_draws, report_lines
from speakerbot.engine.publicity import public_form
from tests.support.draw_record import (
    ADDRESSES,
    COMMITMENT_1,
    IDS,
    SEED_2,
    game,
    line_of,
)

Lines = list[dict[str, Any]]
SEED_LABEL = f"seed {COMMITMENT_1[:12]}"


def _draw(lines: Lines, kind: str) -> dict[str, Any]:
    draw: dict[str, Any] = lines[line_of(lines, kind)]["draw"]
    return draw


def _other(draw: dict[str, Any]) -> str:
    return str(next(item for item in draw["candidates"] if item != draw["outcome"]))


def _tamper_outcome(lines: Lines) -> None:
    judge = lines[line_of(lines, "JudgeAssigned")]
    judge["judge"] = judge["draw"]["outcome"] = _other(judge["draw"])


def _tamper_die(lines: Lines) -> None:
    die = lines[line_of(lines, "DieThrown")]
    die["draw"]["outcome"] = _other(die["draw"])
    die["value"] = int(die["draw"]["outcome"])


def _event_disagrees(lines: Lines) -> None:
    die = lines[line_of(lines, "DieThrown")]
    die["value"] = int(_other(die["draw"]))


def _die_faces(lines: Lines) -> None:
    die = lines[line_of(lines, "DieThrown")]
    die["sides"] = 7


def _wrong_seed(lines: Lines) -> None:
    lines[line_of(lines, "SeedRevealed")]["seed"] = SEED_2.hex()


def _seed_not_hex(lines: Lines) -> None:
    lines[line_of(lines, "SeedRevealed")]["seed"] = "zz" * 32


def _never_committed(lines: Lines) -> None:
    lines[0]["commitment"] = ""


def _anchored_to_itself(lines: Lines) -> None:
    index = line_of(lines, "DieThrown")
    lines[index]["draw"]["after"] = lines[index]["seq"]


def _anchor_missing(lines: Lines) -> None:
    del lines[line_of(lines, "ProposalSubmitted")]


def _committed_after_anchor(lines: Lines) -> None:
    _draw(lines, "NewGameBegun")["after"] = lines[line_of(lines, "SeedRevealed")]["seq"] - 1


def _drawn_after_reveal(lines: Lines) -> None:
    draw = _draw(lines, "NewGameBegun")
    draw["commitment"] = COMMITMENT_1


def _no_candidates(lines: Lines) -> None:
    _draw(lines, "JudgeAssigned")["candidates"] = []


def _twice_a_candidate(lines: Lines) -> None:
    draw = _draw(lines, "JudgeAssigned")
    draw["candidates"] = [draw["outcome"], *draw["candidates"]]


def _outcome_not_a_candidate(lines: Lines) -> None:
    judge = lines[line_of(lines, "JudgeAssigned")]
    judge["judge"] = judge["draw"]["outcome"] = "mallory@camford.example"


def _malformed(lines: Lines) -> None:
    lines[line_of(lines, "JudgeAssigned")]["draw"] = {"label": "judge:cfj-1"}


FAILURES: dict[str, tuple[Callable[[Lines], None], int, int, set[str], str]] = {
    # name: (change, verified, awaiting, failures' labels, a part of the first problem)
    "a Judge's outcome changed": (_tamper_outcome, 1, 1, {"judge:cfj-1"}, "its seed gives"),
    "a die's outcome changed": (_tamper_die, 1, 1, {"die:301"}, "its seed gives"),
    "the event disagrees with its draw": (_event_disagrees, 1, 1, {"die:301"},
                                          "the event says"),
    "a die's candidates are not its faces": (_die_faces, 1, 1, {"die:301"}, "faces 1 to 7"),
    "a seed that is not its commitment's": (_wrong_seed, 0, 3, {SEED_LABEL},
                                            "does not hash to its commitment"),
    "a seed that is not hex": (_seed_not_hex, 0, 3, {SEED_LABEL}, "not 64 hex digits"),
    "a seed never committed": (_never_committed, 0, 1, {SEED_LABEL, "die:301", "judge:cfj-1"},
                               "never committed before it"),
    "a draw anchored to itself": (_anchored_to_itself, 1, 1, {"die:301"},
                                  "which is not before its own"),
    "an anchor missing": (_anchor_missing, 0, 1, {"die:301", "judge:cfj-1"},
                          "is not in the record"),
    "a seed committed after the anchor": (_committed_after_anchor, 2, 0, {"speaker:game-2"},
                                          "after its anchor"),
    "a draw made after its seed's reveal": (_drawn_after_reveal, 2, 0, {"speaker:game-2"},
                                            "after its seed was revealed"),
    "no candidates": (_no_candidates, 1, 1, {"judge:cfj-1"}, "no candidates"),
    "a candidate twice": (_twice_a_candidate, 1, 1, {"judge:cfj-1"}, "not distinct"),
    "an outcome not a candidate": (_outcome_not_a_candidate, 1, 1, {"judge:cfj-1"},
                                   "is not among its candidates"),
    "a draw without its fields": (_malformed, 1, 1, {"judge:cfj-1"}, "lacks a label"),
}


def test_a_record_whose_draws_hold_verifies_the_revealed_and_awaits_the_rest() -> None:
    report = check_draws(game())
    assert report == DrawReport(verified=2, awaiting=1, unprovable=0, failures=[])
    assert report_lines(report) == ["2 draws verified, 1 awaiting reveal"]


def test_before_the_reveal_every_draw_awaits() -> None:
    lines = game()
    before = lines[:line_of(lines, "SeedRevealed")]
    assert check_draws(before) == DrawReport(verified=0, awaiting=2)


@pytest.mark.parametrize("name", FAILURES)
def test_each_way_a_draw_fails_is_named(name: str) -> None:
    change, verified, awaiting, labels, problem = FAILURES[name]
    lines = copy.deepcopy(game())
    change(lines)
    report = check_draws(lines)
    assert (report.verified, report.awaiting) == (verified, awaiting)
    assert {failure.label for failure in report.failures} == labels
    assert problem in report.failures[0].problem
    draws_failed = [f for f in report.failures if not f.label.startswith("seed ")]
    assert report.verified + report.awaiting + len(draws_failed) == 3  # each draw once


def test_a_failure_is_said_on_a_line_of_its_own() -> None:
    lines = copy.deepcopy(game())
    _tamper_outcome(lines)
    said = report_lines(check_draws(lines))
    assert said[0] == "1 draws verified, 1 awaiting reveal"
    assert len(said) == 2
    assert said[1].startswith("draw judge:cfj-1 (event 7) does not verify: its seed gives")


def test_draws_recorded_before_draws_were_provable_are_counted_not_checked() -> None:
    lines = copy.deepcopy(game())
    for kind in ("DieThrown", "JudgeAssigned", "NewGameBegun"):
        del lines[line_of(lines, kind)]["draw"]
    lines.append({"seq": 11, "type": "JudgeAssigned", "cfj": 2, "judge": ADDRESSES[0],
                  "drawn_from": [], "draw": None})  # the Speaker, named: no draw at all
    report = check_draws(lines)
    assert report == DrawReport(verified=0, awaiting=0, unprovable=3)
    assert report_lines(report) == [
        "0 draws verified, 0 awaiting reveal",
        "3 draws recorded before draws were provable (not checkable)"]


def test_a_record_in_public_ids_verifies_as_one_in_addresses() -> None:
    assert check_draws(game(IDS)) == check_draws(game(ADDRESSES))
    assert check_draws(game(IDS)).verified == 2


def test_a_draw_verifies_whatever_its_candidates_are_called() -> None:
    """The index a seed gives depends on the number of candidates, never on their text."""
    lines = game(ADDRESSES)
    ids = dict(zip(ADDRESSES, IDS, strict=True))
    shown = [dict(public_form(line, ids)) if "draw" in line else line for line in lines]
    assert shown != lines
    assert check_draws(shown) == DrawReport(verified=2, awaiting=1)


def test_a_failure_names_the_line_of_its_draw() -> None:
    lines = copy.deepcopy(game())
    _tamper_die(lines)
    failure = check_draws(lines).failures[0]
    assert (failure.label, failure.seq) == ("die:301", lines[line_of(lines, "DieThrown")]["seq"])
    assert failure.seq == 6
