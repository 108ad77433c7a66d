"""Rule changes in prose that must NOT become clauses: blocks left open, and conditions.

A wrong clause would change a rule wrongly on adoption; an informal proposal is carried
out by the host. So a block whose end is a guess, or a change that the proposal makes
depend on something, leaves the proposal informal, with the lines quoted back.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from speakerbot.mail.inbound.language import ParseResult, parse_commands
from tests.mail.test_natural_forms import clauses, read, replace
from tests.support.cpu_time import cpu_seconds, growth

# Each: (id, text); the first line is the one quoted back (line 2 of the message).
BLOCK_NEAR_MISSES: list[tuple[str, str]] = [
    ("unclosed-brace", "Amend Rule 8 to read:\n{\n  New.\n\nMore."),
    ("brace-inside-braces", "Amend Rule 8 to read:\n{\n  a {b}\n}"),
    ("unclosed-triple-brace", "In rule 7, replace:\n{{{\n  a\n}}}\nwith\n{{{\n  b\n"),
    ("with-brace-unclosed", "Amend Rule 7 by replacing:\n  a\nwith {b\nc"),
    ("replace-block-no-with", "Amend Rule 5 by replacing the text\n\n  a\n\nand more."),
    ("delete-no-colon-indented", "Amend Rule 5 by removing the sentence\n   that begins with X."),
    ("empty-braces", "Amend Rule 8 to read:\n{\n}"),
    ("by-list-unknown-item", 'Amend R2602 by:\n  * removing any quotation marks; and\n'
     '  * replacing "a" with "b".'),
    ("by-list-item-with-block", 'Amend Rule 5 by:\n  * replacing "a" with:\n\n  * b'),
    ("by-list-not-a-list", 'Amend Rule 5 by:\n  replacing "a" with "b"'),
]  # fmt: skip


@pytest.mark.parametrize(
    "text", [n[1] for n in BLOCK_NEAR_MISSES], ids=[n[0] for n in BLOCK_NEAR_MISSES]
)
def test_block_near_miss_is_informal(text: str) -> None:
    proposal = read(text)
    assert proposal.clauses == ()
    assert proposal.not_understood[0] == (2, text.split("\n")[0])


def test_without_colon_a_block_must_be_indented() -> None:
    text = "Amend Rule 5 by replacing the text\na\nwith\nb"
    assert read(text).clauses == ()


# A condition that governs the changes: each is (id, text, the condition's line number).
CONDITIONS: list[tuple[str, str, int]] = [
    # A condition on a proposal's fate is the game's to settle (test_proposal_conditions.py);
    # these hang on something else.
    ("if-then", 'If Rule 8320 has been amended, then:\nAmend Rule 5 by deleting "x".', 2),
    ("otherwise", "If the other proposal passes, this proposal has no effect. Otherwise:\n\n"
     'Amend Rule 879 by replacing "a" with "b".', 2),
    ("no-effect-after", 'Amend Rule 5 by deleting "x".\n\nIf Proposal 3 failed in time, this '
     "proposal has no effect.", 4),
    ("unless", 'Unless Rule 9 says otherwise:\n1. Repeal Rule 4\n2. Amend Rule 5 by deleting "x"',
     2),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "line"), [c[1:] for c in CONDITIONS], ids=[c[0] for c in CONDITIONS]
)
def test_a_condition_leaves_the_changes_to_the_host(text: str, line: int) -> None:
    proposal = read(text)
    assert proposal.clauses == ()
    assert line in [number for number, _text in proposal.not_understood]


@pytest.mark.parametrize(
    "text",
    [
        '[If this passes, rejoice.]\nAmend Rule 5 by deleting "x".',
        '[A comment\nif it runs on.]\nAmend Rule 5 by deleting "x".',
        'Amend Rule 5 by deleting "x".\n\nIf G. got blots for it, they are expunged.',
    ],
    ids=["comment", "comment-over-lines", "condition-of-an-action-after"],
)
def test_what_is_no_condition_of_the_changes(text: str) -> None:
    assert clauses(text) == [replace(5, "x", "")]



@pytest.mark.parametrize(
    "head",
    ["Amend Rule 5 (T)", "Enact a new rule", 'Remove "x"', "In Rule 5", "Repeal Rule 5",
     'Amend Rule 5 by replacing "a"', 'Amend Rule 5 by deleting "a",', "REPEAL RULE 5",
     "SET quorum = 3", "Transmute Rule 5", "Repeal Rules 5, 6", "Amend Rules 5 (A), 6",
     "Repeal the following rules: 5", 'Amend Rule 5 to be titled "a"'],
)  # fmt: skip
@pytest.mark.parametrize("space", [" ", "\t "], ids=["spaces", "tabs-and-spaces"])
def test_a_long_run_of_spaces_is_read_quickly(head: str, space: str) -> None:
    # Adjacent optional spaces in a pattern once made such a line take minutes to refuse.
    # Timed in CPU time of this thread, so that a busy machine does not fail it, and by how
    # time grows: four times the spaces must not take sixteen times as long.
    def body(count: int) -> str:
        return f"PROPOSE T\n{head}{space * count}x\nEND PROPOSE\n"

    def parsing(count: int) -> Callable[[], ParseResult]:
        return lambda: parse_commands("", body(count))

    assert cpu_seconds(parsing(20000), enough=1.0) < 1.0
    assert growth(parsing(20000), parsing(80000), enough=8) < 8
    result = parse_commands("", body(20000))
    # The keyword forms written as taught but broken are errors; prose never is.
    keyword = head.split()[0] in ("REPEAL", "TRANSMUTE", "AMEND", "ENACT")
    assert [error.line for error in result.errors] == ([2] if keyword else [])
