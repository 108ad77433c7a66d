"""The preset rulesets in data/rulesets are verbatim transcriptions of the seeds.

Each rule's text, whitespace collapsed, must sit in the whitespace-collapsed seed
right after that rule's number marker and run exactly up to the next rule's
marker, a section heading or the end of the file. The seeds are the project's own
test data (tests/data/seeds, whose README says where they come from): nothing is
read from outside the checkout.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
RULESETS = REPO / "data" / "rulesets"
SEEDS = REPO / "tests" / "data" / "seeds"

SEED_000 = "000_a34f21e9a2a1d942.txt"
SEED_001 = "001_d2a33ca4b671e60a.txt"
SEED_002 = "002_15900007f4edc2f6.txt"
SEED_003 = "003_d0f961aa6b621d3f.txt"
SEED_004 = "004_51ac1890fb8d999d.txt"

# How each seed marks the start of a rule, and which headings end a rule's text.
MARKERS = {
    SEED_000: "{n}. ",
    SEED_001: "{n}. ",
    SEED_002: "{n}. ",
    SEED_003: "{n}. ",
    SEED_004: "* {n} ",
}
HEADINGS = {
    SEED_000: ("I. Immutable Rules", "II. Mutable rules"),
    SEED_001: (),
    SEED_002: (),
    SEED_003: ("RURRUS IN EFFECT",),
    SEED_004: ("Immutable Rules ~~~~~~~~~~~~~~~", "* Mutable Rules ~~~~~~~~~~~~~"),
}


def _span(first: int, last: int) -> set[int]:
    return set(range(first, last + 1))


@dataclass(frozen=True)
class Expected:
    seed: str
    immutable: set[int]
    mutable: set[int]
    persons: dict[str, tuple[int, str]]
    # Rules whose text comes from another seed than the preset's own.
    other_seed: tuple[str, set[int]] | None = None

    def seed_for(self, number: int) -> str:
        if self.other_seed is not None and number in self.other_seed[1]:
            return self.other_seed[0]
        return self.seed


EXPECTED = {
    "suber": Expected(
        seed=SEED_000,
        immutable=_span(101, 116),
        mutable=_span(201, 213),
        persons={},
    ),
    "locked-open": Expected(
        seed=SEED_001,
        immutable=_span(101, 112),
        mutable=_span(201, 210),
        persons={},
    ),
    "speaker": Expected(
        seed=SEED_002,
        immutable=_span(101, 116),
        mutable=_span(201, 219),
        persons={"speaker": (104, "Chuck Henry")},
        other_seed=(SEED_004, _span(201, 219)),
    ),
    "rurru": Expected(
        seed=SEED_003,
        immutable=set(),
        mutable=_span(100, 107) | _span(109, 113) | _span(200, 215),
        persons={"judge": (210, "Samurai Lal'C")},
    ),
    "nomicam": Expected(
        seed=SEED_004,
        immutable=_span(101, 116),
        mutable=_span(201, 219),
        persons={"speaker": (104, "Jack Rudd")},
    ),
}

PRESETS = sorted(EXPECTED)


def collapse(text: str) -> str:
    return " ".join(text.split())


def load(preset: str) -> dict[str, Any]:
    with (RULESETS / f"{preset}.toml").open("rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def seeds() -> dict[str, str]:
    return {name: collapse((SEEDS / name).read_text(encoding="utf-8")) for name in MARKERS}


def test_the_seeds_are_the_copies_their_readme_names() -> None:
    # The README gives each copy's SHA-256, taken from the originals: an edited copy (an
    # editor trimming whitespace, say) would make the checks compare against the wrong text.
    listed = dict(re.findall(r"^\| (\S+\.txt) \| `([0-9a-f]{64})` \|$",
                             (SEEDS / "README.md").read_text(encoding="utf-8"), re.MULTILINE))
    assert sorted(listed) == sorted(MARKERS) == sorted(p.name for p in SEEDS.glob("*.txt"))
    for name, digest in listed.items():
        assert hashlib.sha256((SEEDS / name).read_bytes()).hexdigest() == digest, name


def marker(seed: str, number: int) -> str:
    return MARKERS[seed].format(n=number)


def marker_position(collapsed_seed: str, seed: str, number: int) -> int:
    """Return where the text after `number`'s marker starts; the marker must be unique."""
    pattern = r"(?<!\S)" + re.escape(marker(seed, number))
    hits = [m.end() for m in re.finditer(pattern, collapsed_seed)]
    assert len(hits) == 1, f"marker {marker(seed, number)!r} found {len(hits)} times in {seed}"
    return hits[0]


def next_number(rules: list[dict[str, Any]], expected: Expected, number: int) -> int | None:
    """Return the next rule number after `number` taken from the same seed, if any."""
    seed = expected.seed_for(number)
    later = [
        r["number"]
        for r in rules
        if r["number"] > number and expected.seed_for(r["number"]) == seed
    ]
    return min(later, default=None)


def test_every_preset_has_a_file() -> None:
    assert sorted(p.stem for p in RULESETS.glob("*.toml")) == PRESETS


@pytest.mark.parametrize("preset", PRESETS)
def test_header(preset: str) -> None:
    data = load(preset)
    header = data["preset"]
    expected = EXPECTED[preset]
    assert header["name"] == preset
    assert header["seed"] == expected.seed
    assert isinstance(header["title"], str)
    assert 0 < len(header["title"]) < 50
    assert isinstance(header["notes"], str)
    assert header["notes"].strip()
    assert set(data) <= {"preset", "persons", "mechanics", "rules"}


@pytest.mark.parametrize("preset", PRESETS)
def test_numbers_and_mutability(preset: str) -> None:
    rules = load(preset)["rules"]
    expected = EXPECTED[preset]
    numbers = [r["number"] for r in rules]
    assert numbers == sorted(numbers), "rules are not in ascending order"
    assert len(numbers) == len(set(numbers)), "a rule number occurs twice"
    assert set(numbers) == expected.immutable | expected.mutable
    for rule in rules:
        assert set(rule) == {"number", "mutable", "text"}
        assert rule["mutable"] is (rule["number"] in expected.mutable), rule["number"]


@pytest.mark.parametrize("preset", PRESETS)
def test_texts_are_verbatim(preset: str, seeds: dict[str, str]) -> None:
    rules = load(preset)["rules"]
    expected = EXPECTED[preset]
    for rule in rules:
        number = rule["number"]
        seed = expected.seed_for(number)
        collapsed_seed = seeds[seed]
        text = collapse(rule["text"])
        assert text, f"rule {number} is empty"
        start = marker_position(collapsed_seed, seed, number)
        found = collapsed_seed[start : start + len(text)]
        assert found == text, (
            f"{preset} rule {number} differs from {seed}:\n"
            f"  preset: {text[:200]!r}\n  seed:   {found[:200]!r}"
        )
        rest = collapsed_seed[start + len(text) :]
        following = next_number(rules, expected, number)
        if following is None and not rest:
            continue  # the last rule from this seed runs to the end of the file
        assert rest.startswith(" "), f"{preset} rule {number} ends in the middle of a word"
        rest = rest[1:]
        # The text must run up to the next rule's marker or a heading: nothing left out.
        ends_at_next = following is not None and rest.startswith(marker(seed, following))
        ends_at_heading = any(rest.startswith(h) for h in HEADINGS[seed])
        assert ends_at_next or ends_at_heading, (
            f"{preset} rule {number} stops short of the next marker or heading in {seed}; "
            f"the seed goes on with {rest[:80]!r}"
        )


@pytest.mark.parametrize("preset", PRESETS)
def test_each_seed_rule_is_transcribed(preset: str, seeds: dict[str, str]) -> None:
    """No rule text swallowed the next rule: every rule's marker is outside other texts."""
    rules = load(preset)["rules"]
    expected = EXPECTED[preset]
    for rule in rules:
        seed = expected.seed_for(rule["number"])
        text = collapse(rule["text"])
        for other in rules:
            if expected.seed_for(other["number"]) == seed and other is not rule:
                assert not re.search(r"(?<!\S)" + re.escape(marker(seed, other["number"])), text), (
                    f"{preset} rule {rule['number']} contains the marker of rule {other['number']}"
                )
        for heading in HEADINGS[seed]:
            assert heading not in text, f"{preset} rule {rule['number']} contains {heading!r}"


@pytest.mark.parametrize("preset", PRESETS)
def test_persons(preset: str) -> None:
    data = load(preset)
    expected = EXPECTED[preset]
    persons = data.get("persons", {})
    assert {role: (p["rule"], p["name"]) for role, p in persons.items()} == expected.persons
    texts = {r["number"]: r["text"] for r in data["rules"]}
    for role, person in persons.items():
        assert set(person) == {"rule", "name"}, role
        assert person["name"] in texts[person["rule"]], role


@pytest.mark.parametrize("preset", PRESETS)
def test_layout(preset: str) -> None:
    for rule in load(preset)["rules"]:
        text = rule["text"]
        number = rule["number"]
        assert text == text.strip(), f"rule {number} has leading or trailing whitespace"
        for line in text.split("\n"):
            assert line.strip(), f"rule {number} contains a blank line"
            assert line == line.strip(), f"rule {number} has a line with outer whitespace"
        assert "\r" not in text and "\t" not in text, f"rule {number} has a CR or tab"
