"""The parts of a rule's text (units.py): paragraphs, sentences, list items and lines."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine.refusals import GameError, Refusal
from speakerbot.engine.units import UNITS, choose, folded_beginning, paragraph_separator, parts

TEXT = (
    "Each player has one vote. Votes are public!\n"
    "\n"
    "The Speaker shall:\n"
    "- count the votes;\n"
    "  and announce them.\n"
    "- keep the record.\n"
    "\n"
    "  (a) First, this.\n"
    "  (b) Then \u201cthat\u201d. Done?"
)

PARTS = {
    "paragraph": [
        "Each player has one vote. Votes are public!",
        "The Speaker shall:\n- count the votes;\n  and announce them.\n- keep the record.",
        "(a) First, this.\n  (b) Then \u201cthat\u201d. Done?",
    ],
    "sentence": [
        "Each player has one vote.", "Votes are public!",
        "The Speaker shall:\n- count the votes;\n  and announce them.", "- keep the record.",
        "(a) First, this.", "(b) Then \u201cthat\u201d.", "Done?",
    ],
    "item": [
        "- count the votes;\n  and announce them.", "- keep the record.", "(a) First, this.",
        "(b) Then \u201cthat\u201d. Done?",
    ],
    "line": [
        "Each player has one vote. Votes are public!", "The Speaker shall:",
        "- count the votes;", "and announce them.", "- keep the record.", "(a) First, this.",
        "(b) Then \u201cthat\u201d. Done?",
    ],
}


@pytest.mark.parametrize("unit", UNITS)
def test_each_kind_of_part_is_found_as_players_see_it(unit: str) -> None:
    assert [TEXT[start:end] for start, end in parts(TEXT, unit)] == PARTS[unit]


@pytest.mark.parametrize(("marker", "is_item"), [
    ("- x", True), ("* x", True), ("1. x", True), ("12) x", True), ("(a) x", True),
    ("a) x", True), ("iv. x", True), ("B. x", True), ("2.1. x", True), ("\u2022 x", True),
    ("-x", False), ("Each. x", False), ("(abcdefgh) x", False), ("x - y", False),
])
def test_a_list_item_begins_with_a_marker_and_white_space(marker: str, is_item: bool) -> None:
    assert bool(parts(marker, "item")) is is_item


def test_an_unknown_unit_has_no_parts_and_is_refused_as_not_found() -> None:
    assert parts(TEXT, "chapter") == []
    with pytest.raises(GameError) as raised:
        choose(5, TEXT, "chapter", "", 1)
    assert raised.value.refusal is Refusal.UNIT_NOT_FOUND


CHOSEN = [
    ("paragraph", "The Speaker", 0, 1),
    ("paragraph", "\u201cThe   Speaker\nshall\u201d", 0, 1),  # quotes and line breaks aside
    ("paragraph", "", 1, 0),
    ("paragraph", "", -1, 2),
    ("paragraph", "", -3, 0),
    ("paragraph", "(a) First", 0, 2),
    ("paragraph", "First...", 0, 2),  # a list marker and an ellipsis aside
    ("sentence", "Votes are", 0, 1),
    ("sentence", "Done", 0, 6),
    ("sentence", "", 4, 3),
    ("item", "keep", 0, 1),
    ("item", "- keep the", 0, 1),
    ("item", "(b) Then", 0, 3),
    ("item", "", -1, 3),
    ("line", "and announce", 0, 3),
    ("line", "", 2, 1),
]


@pytest.mark.parametrize(("unit", "anchor", "nth", "index"), CHOSEN)
def test_a_part_is_chosen_by_its_beginning_or_its_place(
        unit: str, anchor: str, nth: int, index: int) -> None:
    assert choose(5, TEXT, unit, anchor, nth) == parts(TEXT, unit)[index]


NOT_CHOSEN = [
    ("paragraph", "Votes are", 0, Refusal.UNIT_NOT_FOUND, 0),  # not a paragraph's beginning
    ("paragraph", "", 4, Refusal.UNIT_NOT_FOUND, 3),
    ("paragraph", "", -4, Refusal.UNIT_NOT_FOUND, 3),
    ("paragraph", "", 0, Refusal.UNIT_NOT_FOUND, 3),
    ("sentence", "Each player has two", 0, Refusal.UNIT_NOT_FOUND, 0),
    ("item", "Then that", 0, Refusal.UNIT_NOT_FOUND, 0),  # curly quotes are text inside
    ("line", "-", 0, Refusal.UNIT_NOT_UNIQUE, 2),  # a marker alone: the lines it begins
    ("line", "\u201c...\u201d", 0, Refusal.UNIT_NOT_FOUND, 7),  # no anchor, and no nth
    ("item", "", 5, Refusal.UNIT_NOT_FOUND, 4),
]


@pytest.mark.parametrize(("unit", "anchor", "nth", "refusal", "count"), NOT_CHOSEN)
def test_a_part_not_there_is_refused(unit: str, anchor: str, nth: int, refusal: Refusal,
                                     count: int) -> None:
    with pytest.raises(GameError) as raised:
        choose(5, TEXT, unit, anchor, nth)
    assert raised.value.refusal is refusal
    assert raised.value.facts.number == 5 and raised.value.facts.detail == unit
    assert raised.value.facts.count == count


@pytest.mark.parametrize(("text", "anchor", "chosen"), [
    ("The end.\n\nx. Then more.", "x.", "x. Then more."),
    ("I. The first.\nII. The second.", "I.", "I. The first."),
    ("I. The first.\nII. The second.", "The second", "II. The second."),
    ("(a) One.\n(b) Two.", "(b) Two", "(b) Two."),
])
def test_an_anchor_like_a_list_marker_is_also_compared_as_written(
        text: str, anchor: str, chosen: str) -> None:
    start, end = choose(1, text, "line", anchor, 0)
    assert text[start:end] == chosen


def test_a_beginning_two_parts_share_is_refused_with_their_count() -> None:
    text = "The Speaker shall count.\n\nThe Speaker may rest.\n\nPlayers vote."
    with pytest.raises(GameError) as raised:
        choose(7, text, "paragraph", "The Speaker", 0)
    assert raised.value.refusal is Refusal.UNIT_NOT_UNIQUE
    assert raised.value.facts.count == 2 and raised.value.facts.text == "The Speaker"
    assert choose(7, text, "paragraph", "The Speaker may", 0) == (26, 47)


@pytest.mark.parametrize(("words", "folded"), [
    ("  \u201cThe  Speaker\n shall\u201d ", "The Speaker shall"),
    ("(b) The Speaker", "The Speaker"),
    ("'- The Speaker...'", "The Speaker"),
    ("The Speaker\u2026", "The Speaker"),
    ("", ""),
])
def test_an_anchor_is_compared_with_quotes_markers_and_white_space_aside(
        words: str, folded: str) -> None:
    assert folded_beginning(words) == folded


# --- properties -------------------------------------------------------------------------------

_PIECES = st.sampled_from(["The", "Speaker", "vote.", "days!", "Done?", "(a)", "-", "1.", "x",
                           "\u201cquoted.\u201d", "i.", "*", "rule", "e.g.", "\u00e9t\u00e9"])
_SPACES = st.sampled_from([" ", "  ", "\n", "\n\n", "\n \n", "\t", " \n  ", "\n\n\n"])


@st.composite
def rule_texts(draw: st.DrawFn) -> str:
    """A rule's text of words, marks and every kind of white space between them."""
    pieces = draw(st.lists(st.tuples(_PIECES, _SPACES), max_size=30))
    lead = draw(st.sampled_from(["", " ", "\n", "  \n"]))
    return lead + "".join(word + space for word, space in pieces)


@settings(max_examples=300, deadline=None)
@given(rule_texts(), st.sampled_from(UNITS))
def test_the_parts_joined_with_their_separators_give_the_text(text: str, unit: str) -> None:
    found = parts(text, unit)
    rebuilt, last = [], 0
    for start, end in found:
        assert last <= start < end <= len(text)
        separator = text[last:start]
        # Between parts stands only white space, but for the text of a list that is no item.
        assert unit == "item" or not separator.strip()
        assert text[start:end] == text[start:end].strip()
        rebuilt += [separator, text[start:end]]
        last = end
    rebuilt.append(text[last:])
    assert "".join(rebuilt) == text
    if unit != "item":
        assert not text[last:].strip()
        assert " ".join(text[start:end] for start, end in found).split() == text.split()


@settings(max_examples=200, deadline=None)
@given(rule_texts())
def test_paragraphs_are_split_by_blank_lines_and_hold_the_sentences(text: str) -> None:
    """Blank lines part paragraphs; in a text written a paragraph to a line, its lines do."""
    paragraphs = parts(text, "paragraph")
    a_line_each = paragraph_separator(text) == "\n"
    for (_, end), (start, _) in itertools.pairwise(paragraphs):
        between = text[end:start]
        assert between.count("\n") == 1 if a_line_each else between.count("\n") >= 2
        assert not between.strip()
    for start, end in parts(text, "sentence"):
        assert any(p_start <= start and end <= p_end for p_start, p_end in paragraphs)


@settings(max_examples=300, deadline=None)
@given(rule_texts(), st.sampled_from([*UNITS, "chapter", ""]), st.text(max_size=20),
       st.integers(-40, 40))
def test_choosing_a_part_never_fails_but_with_a_refusal(
        text: str, unit: str, anchor: str, nth: int) -> None:
    try:
        start, end = choose(3, text, unit, anchor, nth)
    except GameError as error:
        assert error.refusal in (Refusal.UNIT_NOT_FOUND, Refusal.UNIT_NOT_UNIQUE)
    else:
        assert (start, end) in parts(text, unit)


@pytest.mark.parametrize("unit", UNITS)
def test_finding_and_choosing_parts_is_linear_in_the_text(unit: str) -> None:
    """A rule of 64 KiB made of the worst runs (marks, markers, blank lines) is read fast."""
    worst = {"paragraph": "a\n\n", "sentence": "a. ", "item": "- a\n", "line": "a\n"}[unit]
    for text in (worst * (65_536 // len(worst)), "." * 65_536, "(" * 65_536,
                 "1." * 32_768 + " ", "\n" * 65_536):
        started = time.perf_counter()
        with pytest.raises(GameError):
            choose(1, text, unit, "b" * 1000, 0)
        assert time.perf_counter() - started < 1.0


VOTERS = "Voters:\n(a) Votes are secret.\n(b) Ties fail."


@pytest.mark.parametrize(("text", "unit", "anchor"), [
    (VOTERS, "item", "(b) Votes"),
    ("Voters:\n1. Votes are secret.\n2. Ties fail.", "item", "2. Votes"),
    ("The Speaker counts.\n\n1. Votes.", "paragraph", "3. The Speaker"),
])
def test_an_anchor_with_its_own_marker_is_not_taken_for_a_part_with_another(
        text: str, unit: str, anchor: str) -> None:
    """Review F5: the markers-aside fallback chose item (a) for "(b) Votes"."""
    with pytest.raises(GameError) as refused:
        choose(5, text, unit, anchor, 0)
    assert refused.value.refusal is Refusal.UNIT_NOT_FOUND


def test_an_anchor_without_a_marker_still_finds_a_marked_part() -> None:
    """The fallback is kept for an anchor written without the part's marker."""
    assert VOTERS[slice(*choose(5, VOTERS, "item", "Ties", 0))] == "(b) Ties fail."


@pytest.mark.parametrize(("text", "unit", "anchor", "part"), [
    ("- the Speaker's deputy;\n- the Speaker.", "item", "the Speaker", "- the Speaker."),
    ("and\na\n", "line", "a", "a"),
    ("Ties fail.\n\nTies fail often.", "paragraph", "\u201cTies fail\u201d", "Ties fail."),
])
def test_a_part_quoted_whole_is_the_one_whose_whole_text_it_is(
        text: str, unit: str, anchor: str, part: str) -> None:
    """Review F11: a part quoted whole was matched as a prefix of a longer one."""
    assert text[slice(*choose(5, text, unit, anchor, 0, whole=True))] == part


def test_a_part_quoted_whole_that_no_part_is_is_refused() -> None:
    """Whole: "the Speaker" is no item's whole text when every item says more."""
    with pytest.raises(GameError) as refused:
        choose(5, "- the Speaker's deputy;\n- a clerk", "item", "the Speaker", 0, whole=True)
    assert refused.value.refusal is Refusal.UNIT_NOT_FOUND
