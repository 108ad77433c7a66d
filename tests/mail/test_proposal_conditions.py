"""Conditions on another proposal's fate, kept on the changes they govern (issue 38).

"If Proposal 301 passed, amend Rule 5 ...", "Upon the adoption of Proposal 301:", "Otherwise:",
"If Proposal 8407 has not taken effect, the rest of this proposal has no effect": the game
settles them from its record at adoption (tests/engine/test_conditions.py). Any other
condition (a time, a rule's text) still leaves the whole proposal to the host.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from speakerbot.engine.condition import Condition
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.mail.inbound.language import Propose, parse_commands
from speakerbot.mail.inbound.language.json_values import clause_json
from tests.support.cpu_time import cpu_seconds, growth

TITLES = {5: "Dice", 6: "Coins", 7: "Proposal Chambers"}


def read(text: str) -> Propose:
    """Read ``text`` inside a PROPOSE block, with the rules ``TITLES`` in hand."""
    result = parse_commands("", f"PROPOSE T\n{text}\nEND PROPOSE\n", titles=TITLES)
    assert result.errors == (), result.errors
    (command,) = result.commands
    assert isinstance(command, Propose)
    return command


def conditions(text: str) -> list[tuple[ClauseKind, int | None, Condition | None]]:
    return [(clause.kind, clause.rule, clause.condition) for clause in read(text).clauses]


def when(number: int | None, adopted: bool, words: str, title: str = "") -> Condition:
    return Condition(number, adopted, words, title=title)


REPLACE, REPEAL, AMEND = ClauseKind.REPLACE, ClauseKind.REPEAL, ClauseKind.AMEND

# Each: (id, the proposal's text, the clauses read: kind, rule, condition).
CASES: list[tuple[str, str, list[tuple[ClauseKind, int | None, Condition | None]]]] = [
    ("passed-inline", 'If Proposal 301 passed, amend Rule 5 by replacing "a" with "b".',
     [(REPLACE, 5, when(301, True, "If Proposal 301 passed"))]),
    ("failed-inline", 'If Proposal 301 failed, then repeal Rule 6.',
     [(REPEAL, 6, when(301, False, "If Proposal 301 failed"))]),
    ("has-not-been-adopted", "If Proposal 301 has not been adopted, repeal Rule 6.",
     [(REPEAL, 6, when(301, False, "If Proposal 301 has not been adopted"))]),
    ("titled-in-brackets-wrapped",
     'If Proposal 8320 (Promotorial Assignment) has been adopted, then amend\nthe rule '
     'entitled "Proposal Chambers" by replacing "a" with\n"b".',
     [(REPLACE, 7, when(8320, True,
                        "If Proposal 8320 (Promotorial Assignment) has been adopted"))]),
    ("unless", "Unless P301 passed, repeal Rule 6.",
     [(REPEAL, 6, when(301, False, "Unless P301 passed"))]),
    ("upon-below", "Upon the adoption of Proposal 301:\n\nRepeal Rule 6.\n\nRepeal Rule 5.",
     [(REPEAL, 6, when(301, True, "Upon the adoption of Proposal 301")),
      (REPEAL, 5, when(301, True, "Upon the adoption of Proposal 301"))]),
    ("otherwise", "Repeal Rule 7.\n\nIf Proposal 301 was adopted:\n\nRepeal Rule 6.\n\n"
     "Otherwise:\n\nRepeal Rule 5.",
     [(REPEAL, 7, None), (REPEAL, 6, when(301, True, "If Proposal 301 was adopted")),
      (REPEAL, 5, when(301, False, "otherwise (If Proposal 301 was adopted)"))]),
    ("otherwise-inline", "If Proposal 301 passed, repeal Rule 6.\nOtherwise, repeal Rule 5.",
     [(REPEAL, 6, when(301, True, "If Proposal 301 passed")),
      (REPEAL, 5, when(301, False, "otherwise (If Proposal 301 passed)"))]),
    ("no-effect-whole",
     "If Proposal 8407 (no stinking auction definitions) has not taken\neffect, the rest of "
     "this proposal has no effect.\n\nRepeal Rule 6.\n\nAmend Rule 5 to read: Dice roll.",
     [(REPEAL, 6, when(8407, True, "If Proposal 8407 (no stinking auction definitions) has "
                                   "not taken effect")),
      (AMEND, 5, when(8407, True, "If Proposal 8407 (no stinking auction definitions) has "
                                  "not taken effect"))]),
    ("by-title", 'If the proposal titled "Rewards Reform Act" has not been adopted, this\n'
     "proposal has no effect.\n\nRepeal Rule 6.",
     [(REPEAL, 6, when(None, True, 'If the proposal titled "Rewards Reform Act" has not been '
                                   "adopted", title="Rewards Reform Act"))]),
    ("if-then-colon", 'If Proposal 8320 has been adopted, then:\nAmend Rule 5 by deleting "x".',
     [(REPLACE, 5, when(8320, True, "If Proposal 8320 has been adopted"))]),
    ("no-effect-after-the-changes", 'Amend Rule 5 by deleting "x".\n\nIf Proposal 3 failed, '
     "this proposal has no effect.",
     [(REPLACE, 5, when(3, True, "If Proposal 3 failed"))]),
    ("already-taken-effect", "If this proposal has already taken effect, then it has no "
     "effect.\n\nRepeal Rule 6.", [(REPEAL, 6, None)]),
]


@pytest.mark.parametrize(("text", "expected"), [(text, expected) for _, text, expected in CASES],
                         ids=[case[0] for case in CASES])
def test_a_condition_on_a_proposal_is_kept_on_the_changes_it_governs(
        text: str, expected: list[tuple[ClauseKind, int | None, Condition | None]]) -> None:
    assert conditions(text) == expected
    assert read(text).not_understood == ()


# Each: (id, the proposal's text): no condition the game can settle, so the host's, whole
# (read with no clause, it is an informal proposal: one item of hand work when adopted).
HOSTS: list[tuple[str, str]] = [
    ("in-a-time", 'If a proposal titled "Tea" has been adopted in the last month, the '
     "remainder of this proposal has no effect.\n\nRepeal Rule 6."),
    ("on-a-rule", 'If Rule 5 contains the text "x", amend Rule 5 by deleting "x".'),
    ("two-on-one-change", "If Proposal 301 passed, this proposal has no effect.\n\n"
     "If Proposal 302 passed, repeal Rule 6."),
    ("inline-under-below", "If Proposal 301 passed:\n\nIf Proposal 302 passed, repeal Rule 6."),
    ("not-a-change-after", "If Proposal 8203 has never taken effect, this proposal applies "
     "the effects specified by Proposal 8203.\n\nRepeal Rule 6."),
]


@pytest.mark.parametrize("text", [text for _, text in HOSTS], ids=[case[0] for case in HOSTS])
def test_a_condition_the_game_cannot_settle_leaves_the_proposal_to_the_host(text: str) -> None:
    assert read(text).clauses == ()


def test_the_host_given_a_line_is_given_the_condition_that_governs_it() -> None:
    proposal = read("If Proposal 301 passed:\n\nRepeal Rule 6.\n\n"
                    "Amend Rule 5 by making dice fairer.")
    assert [clause.condition for clause in proposal.clauses] == [
        when(301, True, "If Proposal 301 passed")]
    assert [text for _, text in proposal.not_understood] == [
        "If Proposal 301 passed:", "Amend Rule 5 by making dice fairer."]


def test_speakerbot_parse_writes_the_condition() -> None:
    clause = Clause(ClauseKind.REPEAL, 6, condition=when(301, False, "If Proposal 301 failed"))
    assert json.loads(json.dumps(clause_json(clause)))["condition"] == {
        "proposal": 301, "adopted": False, "words": "If Proposal 301 failed"}
    titled = Clause(ClauseKind.REPEAL, 6, condition=when(None, True, "w", title="Tea"))
    assert clause_json(titled)["condition"] == {
        "proposal": None, "adopted": True, "words": "w", "title": "Tea"}
    assert "condition" not in clause_json(Clause(ClauseKind.REPEAL, 6))


def test_a_long_condition_is_read_in_linear_time() -> None:
    def body(size: int) -> str:
        return ("If Proposal 301 (" + "x" * size + ") passed, repeal Rule 6.\n"
                "If Proposal 301 " + "has been " * (size // 9) + "\n")

    def parsing(size: int) -> Callable[[], object]:
        return lambda: parse_commands("", f"PROPOSE T\n{body(size)}END PROPOSE\n",
                                      titles=TITLES)

    assert cpu_seconds(parsing(65536), enough=1.0) < 1.0
    assert growth(parsing(16384), parsing(65536), enough=8) < 8


def test_an_aside_in_parentheses_is_no_condition() -> None:
    text = ('Amend Rule 5 by replacing "a" with "b".\n\n'
            "(Current text does nothing because 'a' means nothing.)\n\n"
            'Amend Rule 6 by replacing "c" with "d".')
    assert [(clause.kind, clause.rule) for clause in read(text).clauses] == [
        (REPLACE, 5), (REPLACE, 6)]


def test_a_change_in_parentheses_is_quoted_back_not_taken_for_an_aside() -> None:
    proposal = read("Repeal Rule 7.\n\n(Also repeal Rule 6 if it does nothing.)")
    assert proposal.clauses == ()
    assert proposal.not_understood == ((4, "(Also repeal Rule 6 if it does nothing.)"),)


@pytest.mark.parametrize("aside", [
    "(This proposal has no effect if Rule 3 was amended.)",
    "(Only if the Speaker agrees.)",
    "(Provided that the Herald does nothing.)",
])
def test_a_condition_in_parentheses_is_still_a_condition(aside: str) -> None:
    assert read(f"Repeal Rule 7.\n\n{aside}").clauses == ()
