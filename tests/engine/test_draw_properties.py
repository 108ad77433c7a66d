"""Properties of provable draws: fair among their candidates, fixed by what came before.

(a) ``derive_index`` spreads draws evenly (a chi-squared test at p = 0.001, on examples
Hypothesis derives from the test's name, so that it never flakes), and it is the rejection
sampling ``luck.py`` describes, recomputed here by hand. (b) A draw depends on its seed,
its label and the line it is anchored to, never on anything recorded after that line.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine import chain
from speakerbot.engine.draw_check import check_draws
from speakerbot.engine.luck import commitment_of, derive_index

# The chi-squared distribution's value exceeded with probability 0.001, by degrees of freedom.
CRITICAL_P001 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458}
DRAWS = 3000
SPACE = 1 << 256
WIDE = 1 << 64  # so many candidates that two anchors giving one index is a 2**-64 chance

seeds = st.binary(min_size=32, max_size=32)
anchors = st.text("0123456789abcdef", min_size=64, max_size=64)
labels = st.text(min_size=1, max_size=16)


def _by_hand(seed: bytes, anchor: str, label: str, count: int) -> tuple[int, int]:
    """Return the first HMAC value below the limit and how many were rejected before it."""
    limit = SPACE - SPACE % count
    attempt = 0
    while True:
        message = f"{anchor}\n{label}\n{attempt}".encode()
        value = int.from_bytes(hmac.new(seed, message, hashlib.sha256).digest(), "big")
        if value < limit:
            return value, attempt
        attempt += 1


@settings(derandomize=True, max_examples=8, deadline=None)
@given(seed=seeds, anchor=anchors, prefix=labels)
def test_draws_are_spread_evenly_among_two_to_seven_candidates(
        seed: bytes, anchor: str, prefix: str) -> None:
    for count in range(2, 8):
        tally = Counter(derive_index(seed, anchor, f"{prefix}:{number}", count)
                        for number in range(DRAWS))
        assert set(tally) <= set(range(count))
        expected = DRAWS / count
        statistic = sum((tally[index] - expected) ** 2 / expected for index in range(count))
        assert statistic < CRITICAL_P001[count - 1], (count, dict(tally))


@settings(derandomize=True, max_examples=50)
@given(seed=seeds, anchor=anchors, label=labels)
def test_one_candidate_is_always_drawn(seed: bytes, anchor: str, label: str) -> None:
    assert derive_index(seed, anchor, label, 1) == 0


@settings(derandomize=True, max_examples=50)
@given(seed=seeds, anchor=anchors, label=labels)
def test_the_index_is_the_first_hmac_below_the_limit_modulo_the_count(
        seed: bytes, anchor: str, label: str) -> None:
    value, _ = _by_hand(seed, anchor, label, 3)
    assert derive_index(seed, anchor, label, 3) == value % 3


def test_a_value_above_the_limit_is_rejected_not_folded() -> None:
    """With 2**255 + 1 candidates about half of all values are above the limit.

    Folding them in (``value % count`` of the first value) would differ from rejecting
    them: over 40 labels, some draw must have rejected a value, and each must still agree.
    """
    count = (1 << 255) + 1
    seed, anchor = bytes(range(32)), "ab" * 32
    rejected = 0
    for number in range(40):
        value, attempts = _by_hand(seed, anchor, f"die:{number}", count)
        assert derive_index(seed, anchor, f"die:{number}", count) == value % count
        rejected += attempts
    assert rejected > 0


# --- (b) Nothing after the anchor changes a draw --------------------------------------------

EARLIER, MOMENT = "2026-11-27T00:00:00+00:00", "2026-11-27T00:01:00+00:00"
filler = st.lists(st.fixed_dictionaries(
    {"type": st.sampled_from(["ProposalSubmitted", "VoteClosed", "DebateContributed"]),
     "text": st.text(max_size=8)}), max_size=4)


def _link(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list(chain.extend(chain.Head(), events))


def _record(seed: bytes, before: list[dict[str, Any]], between: list[dict[str, Any]],
            later: list[dict[str, Any]], cfj: int, count: int) -> list[dict[str, Any]]:
    """Return the events of a record whose one draw (the first Judge of CFJ ``cfj``) comes
    after ``before`` and ``between``: ``between`` at the draw's moment (its time), so that
    the record anchors the draw to the last line of ``before``."""
    label = f"judge:cfj-{cfj}"
    opening = [{**event, "at": EARLIER}
               for event in [{"type": "GameStarted", "commitment": commitment_of(seed)},
                             *before]]
    anchor = _link(opening)[-1]
    candidates = [f"player {number}" for number in range(count)]
    index = derive_index(seed, anchor["hash"], label, count)
    draw = {"label": label, "candidates": candidates, "outcome": candidates[index],
            "after": anchor["seq"], "commitment": commitment_of(seed)}
    moment = [{**event, "at": MOMENT} for event in [
        *between, {"type": "JudgeAssigned", "cfj": cfj, "judge": candidates[index],
                   "drawn_from": candidates, "draw": draw}, *later]]
    return [*opening, *moment,
            {"type": "SeedRevealed", "commitment": commitment_of(seed), "seed": seed.hex(),
             "next_commitment": "", "reason": "the game is over"}]


def _wide_index(lines: list[dict[str, Any]], seed: bytes, label: str, after: int) -> int:
    return derive_index(seed, lines[after - 1]["hash"], label, WIDE)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(seed=seeds, before=filler, between=filler, later=filler, appended=filler,
       cfj=st.integers(1, 10**6), count=st.integers(2, 7))
def test_a_draw_never_depends_on_anything_after_its_anchor(
        seed: bytes, before: list[dict[str, Any]], between: list[dict[str, Any]],
        later: list[dict[str, Any]], appended: list[dict[str, Any]], cfj: int,
        count: int) -> None:
    events = _record(seed, before, between, later, cfj, count)
    label = f"judge:cfj-{cfj}"
    after = len(before) + 1
    original = _wide_index(_link(events), seed, label, after)
    assert check_draws(_link(events)).verified == 1
    assert check_draws(_link(events + appended)).verified == 1
    for changed in range(len(events)):
        edited = [dict(event) for event in events]
        edited[changed]["note"] = "written again"
        lines = _link(edited)  # every hash from the change on is taken again
        if changed + 1 > after:
            assert _wide_index(lines, seed, label, after) == original
            assert check_draws(lines).verified == 1
        else:
            assert _wide_index(lines, seed, label, after) != original
