"""A rule named by its title alone, found among the rules in effect the reader is given (issue 38).

``Amend the rule entitled "Eclipse Light" by ...``, ``Repeal the rule "A Coin Award"``, ``In
Rule "Dependent Actions", replace ...``: a change of the one rule in effect with that title,
case and white space aside; with no such rule, or several, the line is quoted back naming
the candidates; read with no rules (intake, ``speakerbot parse``), it is quoted back.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from speakerbot.engine.model import ClauseKind
from speakerbot.mail.inbound.language import Propose, Revise, parse_commands
from speakerbot.mail.inbound.language import wants_titles as wants
from tests.support.hostile_lines import assert_read_in_linear_time

TITLES = {
    5: "Dice", 6: "A Coin Award", 7: "Eclipse  Light", 8: "Twice", 9: "TWICE",
    10: "Dependent Actions", 11: "Office Interests", 12: "Popular Proposal Proposer Privilege",
}  # fmt: skip


def read(text: str, titles: Mapping[int, str] | None = TITLES) -> Propose:
    """Read ``text`` inside a PROPOSE block, after a change of rule 16, with ``titles``."""
    result = parse_commands("", f"PROPOSE T\nRepeal Rule 16.\n\n{text}\nEND PROPOSE\n",
                            titles=titles)
    assert result.errors == (), result.errors
    (command,) = result.commands
    assert isinstance(command, Propose)
    return command


# Each: (id, the change, its kind and rule read with TITLES).
FOUND: list[tuple[str, str, ClauseKind, int]] = [
    ("entitled", 'Amend the rule entitled "Eclipse Light" by deleting "x".', ClauseKind.REPLACE, 7),
    ("titled", 'Amend the Rule titled "Dice" by deleting "x".', ClauseKind.REPLACE, 5),
    ("named-curly", "Amend the rule named “Dice” by deleting “x”.", ClauseKind.REPLACE, 5),
    ("called-single", "Amend the rule called 'Dice' by deleting \"x\".", ClauseKind.REPLACE, 5),
    ("rule-quoted", 'Amend Rule "Dice" by deleting "x".', ClauseKind.REPLACE, 5),
    ("parentheses", 'Amend the rule (Dice) by deleting "x".', ClauseKind.REPLACE, 5),
    ("bare-after-entitled", 'Amend the rule entitled Eclipse Light by deleting "x".',
     ClauseKind.REPLACE, 7),
    ("amend-title-by", 'Amend "Office Interests" by replacing "a" with "b".',
     ClauseKind.REPLACE, 11),
    ("repeal", 'Repeal the rule "A Coin Award".', ClauseKind.REPEAL, 6),
    ("in-rule", 'In Rule "Dependent Actions", replace "a" with "b".', ClauseKind.REPLACE, 10),
    ("passive", 'The rule titled "Dice" is hereby repealed.', ClauseKind.REPEAL, 5),
    ("remove-from", 'Remove "x" from the rule "Dice".', ClauseKind.REPLACE, 5),
    ("retitle", 'Retitle the rule "Dice" to "Die".', ClauseKind.RETITLE, 5),
    ("transmute", 'Transmute the rule "Dice".', ClauseKind.TRANSMUTE, 5),
    ("to-read", 'Amend the rule entitled "Dice" to read: Dice are fair.', ClauseKind.AMEND, 5),
    ("wrapped-to-read",
     'Amend the rule entitled "Popular Proposal Proposer Privilege"\nby changing it to read '
     "in full:\n\n  Popularity counts.", ClauseKind.AMEND, 12),
    ("case-and-space", 'Amend the rule entitled "eclipse   LIGHT" by deleting "x".',
     ClauseKind.REPLACE, 7),
    ("wrapped-title", 'Amend the rule entitled "Eclipse\nLight" by deleting "x".',
     ClauseKind.REPLACE, 7),
    ("part-of-rule", 'Replace the last paragraph of the rule "Dice" with: Dice are fair.',
     ClauseKind.REPLACE, 5),
]  # fmt: skip


@pytest.mark.parametrize(("text", "kind", "rule"), [c[1:] for c in FOUND],
                         ids=[c[0] for c in FOUND])
def test_a_title_found_once_names_its_rule(text: str, kind: ClauseKind, rule: int) -> None:
    proposal = read(text)
    assert [(clause.kind, clause.rule) for clause in proposal.clauses[1:]] == [(kind, rule)]
    assert proposal.not_understood == ()


# Each: (id, the change, the note it is quoted back with).
NOT_FOUND: list[tuple[str, str, str]] = [
    ("none", 'Amend the rule entitled "Tea" by deleting "x".', "no rule in effect is titled “Tea”"),
    ("none-repeal", 'Repeal the rule "Tea".', "no rule in effect is titled “Tea”"),
    ("several", 'Amend the rule entitled "twice" by deleting "x".',
     "rules 8 and 9 are titled “twice”: which one is meant?"),
    ("several-in-rule", 'In Rule "Twice", replace "a" with "b".',
     "rules 8 and 9 are titled “Twice”: which one is meant?"),
    ("found-but-no-form", 'Amend the rule entitled "Dice" by renumbering it.',
     "rule 5 is titled “Dice”"),
    ("a-condition", 'If there is a rule titled "A Coin Award", repeal it.',
     "rule 6 is titled “A Coin Award”"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "note"), [c[1:] for c in NOT_FOUND],
                         ids=[c[0] for c in NOT_FOUND])
def test_a_title_not_found_once_is_quoted_back_naming_the_candidates(text: str,
                                                                     note: str) -> None:
    proposal = read(text)
    assert [clause.rule for clause in proposal.clauses] == [16]
    assert proposal.not_understood == ((4, f"{text} [{note}]"),)


@pytest.mark.parametrize("text", [c[1] for c in FOUND], ids=[c[0] for c in FOUND])
def test_with_no_rules_given_a_title_is_quoted_back(text: str) -> None:
    # As at intake and in speakerbot parse: nothing is dropped, and no candidate is named.
    proposal = read(text, None)
    assert [clause.rule for clause in proposal.clauses] == [16]
    assert proposal.not_understood[0] == (4, text.split("\n")[0])
    assert wants(parse_commands("", f"PROPOSE T\n{text}\nEND PROPOSE\n").commands)


def test_a_title_in_a_text_or_an_enactment_stays_text() -> None:
    # "the rule titled "Dice"" inside a text added, or a new rule's title, names no rule.
    proposal = read('Amend Rule 5 by appending: See the rule titled "Dice".\n\n'
                    'Enact a new rule titled "Dice": Dice are fair.')
    appended, enacted = proposal.clauses[1:]
    assert (appended.kind, appended.rule, appended.text) == (
        ClauseKind.APPEND, 5, 'See the rule titled "Dice".')
    assert (enacted.kind, enacted.rule, enacted.title) == (ClauseKind.ENACT, None, "Dice")


def test_a_revision_finds_a_title_too() -> None:
    result = parse_commands("", 'REVISE 301\nRepeal the rule "Dice".\nEND REVISE\n',
                            titles=TITLES)
    (revision,) = result.commands
    assert isinstance(revision, Revise)
    assert [(c.kind, c.rule) for c in revision.clauses] == [(ClauseKind.REPEAL, 5)]


def test_only_a_change_quoted_back_for_a_title_asks_for_the_rules() -> None:
    plain = parse_commands("", "PROPOSE T\nAmend Rule 5 by renumbering it.\nEND PROPOSE\n")
    assert plain.commands[0].not_understood and not wants(plain.commands)  # type: ignore[union-attr]
    assert not wants(parse_commands("", "VOTE 301 FOR\n").commands)


@pytest.mark.parametrize(
    "line",
    ['amend the rule "' * 3, 'in rule "' * 3, "rule entitled " * 3, 'remove "x" from rule (' * 2,
     "the rule titled X is " * 2, 'amend "' * 3],
    ids=["amend-the-rule", "in-rule", "entitled", "remove-from", "passive", "amend-quote"],
)
def test_a_hostile_line_naming_titles_is_read_in_linear_time(line: str) -> None:
    # The title forms are tried on every line of a proposal, with rules given: 64 KiB of
    # any of them costs one pass.
    assert_read_in_linear_time(line, TITLES)
