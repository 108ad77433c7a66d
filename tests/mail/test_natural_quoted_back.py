"""Texts read whole or quoted back, never half read, and no change silently dropped (issue 38).

A fence around a text (``---``, ``===``, ``***``, ``~~~``, a line of backticks) is no part
of it; a text whose quotation marks cannot be told apart from the rule's (a quotation never
closed, a doubled quote) is quoted back, not made with a stray mark in it (Agora 8366,
8594); and a line that makes a change no form read, after the changes or on a rule named
by title or by "it" (Agora 8364, 8366), is quoted back, not dropped. ``Add a new rule`` is
read as an enactment (Agora 8660).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from speakerbot.engine.model import ClauseKind
from speakerbot.mail.inbound.language import ParseResult, parse_commands
from tests.mail.test_natural_forms import clauses, read, replace
from tests.support.cpu_time import cpu_seconds, growth


def amend(rule: int, text: str) -> dict[str, object]:
    return {"kind": "AMEND", "rule": rule, "text": text, "immutable": False}


def enact(text: str) -> dict[str, object]:
    return {"kind": "ENACT", "text": text, "immutable": False}


REPEAL_6 = {"kind": "REPEAL", "rule": 6, "text": "", "immutable": False}

# Each: (id, text, the clauses read).
FENCED: list[tuple[str, str, list[dict[str, object]]]] = [
    ("dashes", "Amend Rule 5 to read:\n---\nNew text.\n---", [amend(5, "New text.")]),
    ("dashes-two-paragraphs", "Amend Rule 5 to read:\n---\nNew text.\n\nMore.\n---",
     [amend(5, "New text.\n\nMore.")]),
    ("tildes-replace", "Amend Rule 5 by replacing:\n~~~\nold\n~~~\nwith:\n~~~\nnew\n~~~",
     [replace(5, "old", "new")]),
    ("backticks-language",
     "Enact a new rule with the following text:\n```text\nDice are fair.\n```",
     [enact("Dice are fair.")]),
    ("equals-indented", "Amend Rule 5 to read:\n  ===\n  New text.\n  ===",
     [amend(5, "New text.")]),
    ("stars-quoted", 'Amend Rule 5 to read:\n***\n"New text."\n***', [amend(5, "New text.")]),
    ("a-separator-between-changes", "Amend Rule 5 to read:\nNew text.\n---\nRepeal Rule 6.",
     [amend(5, "New text."), REPEAL_6]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in FENCED], ids=[c[0] for c in FENCED])
def test_fence_lines_are_no_part_of_the_text(text: str, expected: list[dict[str, object]]) -> None:
    assert [{key: clause[key] for key in want} for clause, want in
            zip(clauses(text), expected, strict=True)] == expected


# Each: (id, text): its first line is quoted back and no change of rule 5 is read.
HALF_READ: list[tuple[str, str]] = [
    ("fence-never-closed", "Amend Rule 5 to read:\n---\nNew text."),
    ("quote-never-closed-in-a-block",
     'Amend Rule 5 by replacing\n  "a b"\nwith\n  "c d\n\nRepeal Rule 6.'),
    ("doubled-quotes-in-a-block", 'Amend Rule 5 by replacing\n\n  "a"\n\nwith\n\n  ""c""\n'),
    ("doubled-quote-opens-only", 'Amend Rule 5 by replacing\n\n  "a"\n\nwith\n\n  ""c d."\n'),
    ("quote-never-closed-after-the-colon", 'Amend Rule 5 to read: "New text.'),
    ("doubled-quotes-on-the-line", 'Amend Rule 5 by replacing "a" with ""c"".'),
    ("an-insertion-with-no-place", 'Amend Rule 5 by inserting "x" somewhere nice.'),
]  # fmt: skip


@pytest.mark.parametrize("text", [c[1] for c in HALF_READ], ids=[c[0] for c in HALF_READ])
def test_a_text_half_read_is_quoted_back(text: str) -> None:
    proposal = read(text)
    assert all(clause.rule != 5 for clause in proposal.clauses)
    assert proposal.not_understood[0] == (2, text.split("\n")[0])


# Each: (id, text, the line quoted back): the change read stands, the other is not lost.
UNSAID: list[tuple[str, str, int]] = [
    ("if-titled-repeal-it",
     'Repeal Rule 6.\n\nIf there is a rule titled "A Coin Award", repeal it.', 4),
    ("if-entitled-amend-it",
     'Repeal Rule 6.\n\nIf there is a Rule entitled "Eclipse Light", amend it by adding, after\n'
     'the list item beginning "Create", a new list item "Mint".', 4),
    ("add-to-a-rule", "Repeal Rule 6.\n\nAdd a new paragraph to Rule 5: Ties fail.", 4),
    ("the-rule-titled", 'Repeal Rule 6.\n\nThe rule titled "Dice" is hereby repealed.', 4),
]  # fmt: skip


@pytest.mark.parametrize(("text", "line"), [c[1:] for c in UNSAID], ids=[c[0] for c in UNSAID])
def test_a_change_not_read_is_quoted_back_not_dropped(text: str, line: int) -> None:
    proposal = read(text)
    assert [dict(c) for c in proposal.to_json()["clauses"]] == [REPEAL_6]  # type: ignore[attr-defined]
    assert line in [number for number, _ in proposal.not_understood]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Add a new Power=3 rule titled "Winds" with the following\ntext:\n\n  The wind dies.',
         ("The wind dies.", "Winds", False)),
        ("Add a new rule: Dice are fair.", ("Dice are fair.", "", False)),
        ('Add a new immutable rule titled "Dice": Dice are fair.',
         ("Dice are fair.", "Dice", True)),
    ],
    ids=["power-titled-block", "plain", "immutable"],
)
def test_adding_a_new_rule_enacts_it(text: str, expected: tuple[str, str, bool]) -> None:
    (clause,) = read(text).clauses
    assert clause.kind is ClauseKind.ENACT
    assert (clause.text, clause.title, clause.immutable) == expected


@pytest.mark.parametrize(
    "line",
    ["amend " * 3, "rule " * 3, "~" * 5 + " ", "add a new " * 2, "If it " * 3],
    ids=["verbs", "rules", "tildes", "add-a-new", "conditions"],
)
def test_a_hostile_line_is_read_in_linear_time(line: str) -> None:
    # The new patterns (fences, a change of a rule named by title or "it", "Add a new
    # rule") are tried on every line of a proposal: 64 KiB of any of them costs one pass.
    def body(size: int) -> str:
        return f"PROPOSE T\nRepeal Rule 6.\n{line * (size // len(line))}\nEND PROPOSE\n"

    def parsing(size: int) -> Callable[[], ParseResult]:
        return lambda: parse_commands("", body(size))

    assert cpu_seconds(parsing(65536), enough=1.0) < 1.0
    assert growth(parsing(16384), parsing(65536), enough=8) < 8
