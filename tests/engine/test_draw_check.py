"""The check of draws on small public records written by hand: each way a draw can fail.

The record (``tests.support.draw_record.game``) has a die (line 7) and a Judge (line 8)
drawn with seed 1, revealed at line 9, and a new Speaker (line 10) drawn with seed 2, not
revealed. Each case changes it one way and says what the check must find.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from speakerbot.engine import chain
from speakerbot.engine.draw_check import DrawReport, check_draws, report_lines
from speakerbot.engine.publicity import public_form
from tests.support.draw_record import (
    ADDRESSES,
    AT,
    COMMITMENT_1,
    COMMITMENT_2,
    FACES,
    IDS,
    SEED_1,
    SEED_2,
    RecordBuilder,
    game,
    line_of,
    made,
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
    del lines[line_of(lines, "VoteClosed")]  # the die's anchor


def _not_the_current_seed(lines: Lines) -> None:
    draw = _draw(lines, "NewGameBegun")
    draw["commitment"] = COMMITMENT_1


def _drawn_after_reveal(lines: Lines) -> None:
    """A reveal that commits its own seed again: a draw after it is still "current"."""
    lines[line_of(lines, "SeedRevealed")]["next_commitment"] = COMMITMENT_1
    _draw(lines, "NewGameBegun")["commitment"] = COMMITMENT_1


def _seed_in_capitals(lines: Lines) -> None:
    lines[line_of(lines, "SeedRevealed")]["seed"] = SEED_1.hex().upper()


def _label_not_the_records(lines: Lines) -> None:
    _draw(lines, "JudgeAssigned")["label"] = "judge:cfj-1/1"


def _no_vote_closed_before_the_die(lines: Lines) -> None:
    lines[line_of(lines, "VoteClosed")]["type"] = "ProposalSubmitted"


def _a_second_judge_labelled_as_the_first(lines: Lines) -> None:
    judge = lines[line_of(lines, "JudgeAssigned")]
    lines.insert(line_of(lines, "JudgeAssigned"), {**judge, "draw": None, "drawn_from": []})


def _drawn_from_reordered(lines: Lines) -> None:
    judge = lines[line_of(lines, "JudgeAssigned")]
    judge["drawn_from"] = judge["drawn_from"][::-1]


def _die_of_a_million_million_sides(lines: Lines) -> None:
    lines[line_of(lines, "DieThrown")]["sides"] = 10**12


def _die_of_sides_written_as_a_float(lines: Lines) -> None:
    lines[line_of(lines, "DieThrown")]["sides"] = 6.0


def _draw_not_an_object(lines: Lines) -> None:
    lines[line_of(lines, "JudgeAssigned")]["draw"] = ["judge:cfj-1"]


def _after_a_float(lines: Lines) -> None:
    draw = _draw(lines, "DieThrown")
    draw["after"] = float(draw["after"])


def _judge_by_chance(lines: Lines) -> None:
    del lines[line_of(lines, "JudgeAssigned")]["draw"]


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
    "a seed that is not hex": (_seed_not_hex, 0, 3, {SEED_LABEL},
                               "not 64 lowercase hex digits"),
    "a seed in capitals": (_seed_in_capitals, 0, 3, {SEED_LABEL}, "not 64 lowercase hex"),
    "a seed never committed": (_never_committed, 0, 1, {SEED_LABEL, "die:301", "judge:cfj-1"},
                               "not the one the game had committed before it"),
    "a draw anchored to itself": (_anchored_to_itself, 1, 1, {"die:301"},
                                  "which is not before its own"),
    "an anchor missing": (_anchor_missing, 1, 1, {"die:301"}, "is not in the record"),
    "a draw with a seed not the game's current one": (
        _not_the_current_seed, 2, 0, {"speaker:game-2"},
        f"commitment {COMMITMENT_1[:12]} is not the game's current one ({COMMITMENT_2[:12]})"),
    "a draw made after its seed's reveal": (_drawn_after_reveal, 2, 0, {"speaker:game-2"},
                                            "after its seed was revealed"),
    "a label not the record's": (_label_not_the_records, 1, 1, {"judge:cfj-1/1"},
                                 "its label is not 'judge:cfj-1'"),
    "a die with no vote closed before it": (_no_vote_closed_before_the_die, 1, 1,
                                            {"die:301"}, "the record gives it no label"),
    "a second Judge labelled as the first": (_a_second_judge_labelled_as_the_first, 1, 1,
                                             {"judge:cfj-1"}, "its label is not "
                                             "'judge:cfj-1/2'"),
    "drawn_from in another order": (_drawn_from_reordered, 1, 1, {"judge:cfj-1"},
                                    "not the event's drawn_from"),
    "a die of 10**12 sides": (_die_of_a_million_million_sides, 1, 1, {"die:301"},
                              "not a whole number from 1 to 1000000"),
    "a die's sides written as a float": (_die_of_sides_written_as_a_float, 1, 1, {"die:301"},
                                         "not a whole number from 1 to 1000000"),
    "a draw that is not an object": (_draw_not_an_object, 1, 1, {"judge:cfj-1"},
                                     "its draw is not an object"),
    "an anchor written as a float": (_after_a_float, 1, 1, {"die:301"}, "lacks a label"),
    "a Judge drawn without a draw in a seeded game": (
        _judge_by_chance, 1, 1, {"judge:cfj-1"}, "drawn by chance in a game that had "
        "committed a seed"),
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
    assert report.unprovable == 0


def test_a_draw_may_be_anchored_before_a_commitment_made_at_its_moment() -> None:
    """The anchor is the last line before the draw's moment. Seed 2's draw, anchored before
    the reveal that committed seed 2, fails at a moment of its own (the record anchors it
    to the reveal); made at the reveal's moment (the same time), it awaits its seed."""
    lines = copy.deepcopy(game())
    reveal = lines[line_of(lines, "SeedRevealed")]
    before_reveal = lines[line_of(lines, "SeedRevealed") - 1]
    _draw(lines, "NewGameBegun")["after"] = before_reveal["seq"]
    assert [(failure.label, failure.problem) for failure in check_draws(lines).failures] == [
        ("speaker:game-2", f"it is anchored to event {before_reveal['seq']}, not to event "
                           f"{reveal['seq']}, the last line recorded before its moment (the "
                           "first line at its time)")]
    lines[line_of(lines, "NewGameBegun")]["at"] = reveal["at"]
    assert check_draws(lines) == DrawReport(verified=2, awaiting=1)


@pytest.mark.parametrize("to_the_close", [False, True])
def test_a_draw_is_anchored_before_every_line_of_its_moment(to_the_close: bool) -> None:
    """A die thrown at the moment its vote closed (as the engine throws it) is anchored to
    the line before the close; anchored to the close itself, a line of its moment, it fails."""
    record = RecordBuilder()
    record.opening()
    closed, before = record.lines[-1], record.lines[-2]
    die = made(SEED_1, closed if to_the_close else before, "die:301", FACES)
    record.add({"type": "DieThrown", "player": ADDRESSES[1], "sides": 6,
                "value": int(die["outcome"]), "draw": die, "at": closed["at"]})
    record.add({"type": "SeedRevealed", "commitment": COMMITMENT_1, "seed": SEED_1.hex(),
                "next_commitment": "", "reason": "closed", "at": closed["at"]})
    assert chain.verify(record.lines) is None
    report = check_draws(record.lines)
    if to_the_close:
        assert [failure.problem for failure in report.failures] == [
            f"it is anchored to event {closed['seq']}, not to event {before['seq']}, the last "
            "line recorded before its moment (the first line at its time)"]
    else:
        assert report == DrawReport(verified=1)


def test_a_draw_at_the_record_s_first_moment_is_anchored_to_its_start() -> None:
    """Every line at one time: no line comes before the die's moment, so its anchor is the
    start of the record, event 0, whose hash is the first line's prev (64 zeros)."""
    record = RecordBuilder()
    record.opening()
    start = {"seq": 0, "hash": chain.GENESIS}
    die = made(SEED_1, start, "die:301", FACES)
    record.die(die)
    record.add({"type": "SeedRevealed", "commitment": COMMITMENT_1, "seed": SEED_1.hex(),
                "next_commitment": "", "reason": "closed"})
    lines = [{**line, "at": AT} for line in record.lines]
    assert check_draws(lines) == DrawReport(verified=1)
    lines[line_of(lines, "DieThrown")]["draw"]["after"] = 1
    assert [failure.problem for failure in check_draws(lines).failures] == [
        "it is anchored to event 1, not to event 0, the last line recorded before its moment "
        "(the first line at its time)"]


def test_a_judge_drawn_again_bears_the_number_of_the_draw() -> None:
    """The second JudgeAssigned of CFJ 1 (the first named, the second drawn) is cfj-1/2."""
    record = RecordBuilder()
    for line in game()[:line_of(game(), "JudgeAssigned")]:
        record.add({k: v for k, v in line.items() if k not in ("seq", "prev", "hash")})
    record.add({"type": "JudgeAssigned", "cfj": 1, "judge": ADDRESSES[0], "how": "named",
                "deadline": None, "drawn_from": [], "draw": None})
    voters = list(ADDRESSES[2:])
    draw = record.draw("judge:cfj-1/2", voters, SEED_1)
    record.add({"type": "JudgeAssigned", "cfj": 1, "judge": draw["outcome"],
                "how": "a random Voter", "deadline": None, "drawn_from": voters,
                "draw": draw})
    record.add({"type": "SeedRevealed", "commitment": COMMITMENT_1, "seed": SEED_1.hex(),
                "next_commitment": "", "reason": "the host asked"})
    assert check_draws(record.lines) == DrawReport(verified=2)


def test_a_new_game_begins_its_labels_and_commitment_afresh() -> None:
    """A second GameStarted in the lines: its die:301 is its own, with its own seed."""
    first = game()
    second = RecordBuilder()
    for line in first:
        second.add({k: v for k, v in line.items() if k not in ("seq", "prev", "hash")})
    second.add({"type": "GameStarted", "host": ADDRESSES[0], "commitment": COMMITMENT_2})
    second.add({"type": "VoteClosed", "proposal": 301})
    die = second.draw("die:301", [str(face) for face in range(1, 7)], SEED_2)
    second.add({"type": "DieThrown", "player": ADDRESSES[1], "sides": 6,
                "value": int(die["outcome"]), "draw": die})
    report = check_draws(second.lines)
    assert report == DrawReport(verified=2, awaiting=2)  # speaker:game-2 and the new die


def test_a_failure_is_said_on_a_line_of_its_own() -> None:
    lines = copy.deepcopy(game())
    _tamper_outcome(lines)
    said = report_lines(check_draws(lines))
    assert said[0] == "1 draws verified, 1 awaiting reveal"
    assert len(said) == 2
    assert said[1].startswith("draw judge:cfj-1 (event 8) does not verify: its seed gives")


def test_draws_recorded_before_draws_were_provable_are_counted_not_checked() -> None:
    lines = copy.deepcopy(game())
    lines[0]["commitment"] = ""  # a game recorded before seeds: it never committed one
    del lines[line_of(lines, "SeedRevealed")]
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
    assert failure.seq == 7


def test_a_draw_without_a_label_is_named_by_the_label_due() -> None:
    lines = copy.deepcopy(game())
    _draw(lines, "DieThrown")["label"] = None
    _draw(lines, "NewGameBegun")["label"] = ""
    named = [(failure.label, failure.problem) for failure in check_draws(lines).failures]
    assert named == [
        ("die:301", "its draw lacks a label, candidates, outcome, after or commitment"),
        ("speaker:game-2", "its label is not 'speaker:game-2'")]
