"""The reader's second safety review (issue 26): wrong reads found after the first was fixed.

G1: the line right under a change that goes on with its sentence ("if ...", "in the second
sentence", "and "X" with "Y"") takes the change back to the host. G2-G4: a condition, a
comment or a rationale under an indented text, or the next change standing in it, is never
made the rule's text. G5: a text a mail client wrapped again is read without stray indentation.
Each test accepts the right read or the wording left informal (quoted back); it refuses the
wrong read.
"""

from __future__ import annotations

import pytest

from speakerbot.engine.model import Clause, ClauseKind
from tests.mail.test_reader_safety import kinds_and_rules, quoted, read

AMEND, ENACT, REPEAL, REPLACE = (
    ClauseKind.AMEND, ClauseKind.ENACT, ClauseKind.REPEAL, ClauseKind.REPLACE)




# --- G1: the line below a change, wrapped after its closing quote, dropped silently ----------
# 'Amend Rule N by replacing "X" with "Y"' is read, and the next line (a condition, a place,
# "throughout", a second pair) is neither read nor quoted back: the change is made as if the
# line were not there.

REPLACE_LINE = 'Amend Rule 2143 by replacing "each month" with "each week"'


@pytest.mark.parametrize("text", [
    REPLACE_LINE + "\nif Rule 2600 has been repealed.",
    REPLACE_LINE + "\nonce Rule 2600 is repealed.",
    REPLACE_LINE + "\nunless the Registrar objects.",
    REPLACE_LINE + "\nin the second sentence.",
    REPLACE_LINE + "\nin the first paragraph.",
    'Amend Rule 2143 by appending the sentence "Reports are public."\nto its first paragraph.',
    'Amend Rule 2143 by inserting "weekly " before "report"\nin the second paragraph.',
    'Retitle Rule 2143 to "Weekly Reports"\nonce Rule 2600 is repealed.',
    'Amend Rule 2143 by deleting the sentence "Reports are secret."\n'
    'and the sentence "Nobody may read them."',
])
def test_g1_a_wrapped_rest_of_the_sentence_is_never_dropped(text: str) -> None:
    """The second line changes what the first says: quote it back (line 3) or read nothing."""
    proposal = read(text)
    assert proposal.clauses == () or quoted(proposal, 3)


@pytest.mark.parametrize("text", [
    REPLACE_LINE + '\nand "monthly" with "weekly".',
    REPLACE_LINE + '\n(and "monthly" with "weekly").',
    REPLACE_LINE + '.\nAnd "monthly" with "weekly".',
    'Amend Rule 2143 by deleting "each month"\nand "monthly".',
])
def test_g1_a_second_pair_on_the_next_line_is_not_dropped(text: str) -> None:
    """Two changes of Rule 2143: both read, or the second line quoted back, never one alone."""
    proposal = read(text)
    olds = [clause.old for clause in proposal.clauses]
    assert olds in ([], ["each month", "monthly"]) or quoted(proposal, 3)


@pytest.mark.parametrize("text", [
    REPLACE_LINE + "\nwherever it appears.",
    REPLACE_LINE + "\nthroughout.",
])
def test_g1_every_instance_on_the_next_line_is_not_read_as_one(text: str) -> None:
    """"Throughout" below the change: every instance, or the line quoted back."""
    proposal = read(text)
    assert all(clause.every for clause in proposal.clauses) or quoted(proposal, 3)


# --- G2: a condition on the proposal set under an indented text becomes rule text -----------

@pytest.mark.parametrize("text", [
    "1) Amend Rule 2143 to read:\n\n      The Registrar shall publish a report each week.\n\n"
    "   If Proposal 8000 was adopted, this proposal has no effect.",
    "Amend Rule 2143 to read:\n\n    The Registrar shall publish a report each week.\n\n"
    "    If Proposal 8000 was adopted, this proposal has no effect.",
    "Amend Rule 2143 to read:\n  The Registrar shall publish a report each week.\n"
    "  If Proposal 8000 passed, this proposal has no effect.",
    'Enact a new rule titled "Weekly Report" with the following text:\n\n'
    "      The Registrar shall publish a report each week listing all players and\n"
    "  their registration dates.\n\n"
    "  This proposal has no effect if Proposal 8000 was adopted.",
])
def test_g2_a_condition_under_an_indented_text_is_never_made_rule_text(text: str) -> None:
    """The condition governs the proposal: nothing may be made unconditionally."""
    assert read(text).clauses == ()


# --- G3: a change set at the text's indentation is swallowed into the text -----------------

@pytest.mark.parametrize("text", [
    "- Amend Rule 2143 to read:\n\n    The Registrar shall publish a report each week.\n\n"
    "  Repeal Rule 2144.",
    "Amend Rule 2143 by replacing its text with:\n\n"
    "    The Registrar shall publish a report each week.\n\n    Repeal Rule 2144.",
    'Enact a new rule titled "Weekly Report" with the following text:\n\n'
    "      The Registrar shall publish a report each week listing all players and\n"
    "  their registration dates.\n"
    '  Amend Rule 2144 by replacing "five" with "seven".',
])
def test_g3_a_second_change_is_not_made_rule_text(text: str) -> None:
    """Rule 2144's change is read or the whole is the host's; never rule text."""
    proposal = read(text)
    for clause in proposal.clauses:
        assert "Rule 2144" not in clause.text
    assert proposal.clauses == () or (REPEAL, 2144) in kinds_and_rules(proposal) or (
        REPLACE, 2144) in kinds_and_rules(proposal)


# --- G4: a comment under an indented text becomes rule text (F9, indented) ------------------

@pytest.mark.parametrize("text", [
    "Amend Rule 2143 to read:\n\n   The Registrar shall publish a report each week.\n\n"
    "   [This makes the report weekly; it was monthly.]",
    "Amend Rule 2143 to read:\n\n    The Registrar shall publish a report each week.\n\n"
    "    Rationale: the monthly report is always late.",
    "Amend Rule 2144 by replacing its text with:\n"
    "    The Registrar shall publish a report each month.\n"
    "    [Why: monthly is enough here.]",
    "Amend Rule 2143 by replacing its text with:\n\n"
    "      The Registrar shall publish a report each week listing all players and\n"
    "  their registration dates.\n\n  [This makes the report weekly.]",
])
def test_g4_a_comment_under_an_indented_text_is_never_rule_text(text: str) -> None:
    """A bracketed comment or a rationale under an indented text is no rule text."""
    for clause in read(text).clauses:
        assert "[" not in clause.text and "Rationale" not in clause.text


# --- G5: a rewrapped block keeps some lines' indentation in the rule's text ----------------

@pytest.mark.parametrize(("text", "right"), [
    ("Amend Rule 2143 by replacing its text with:\n\n"
     "      The Registrar shall publish a report each week listing all players and\n"
     "      their registration dates, and the dates on which they last deregistered\n"
     "  or were deregistered.",
     "The Registrar shall publish a report each week listing all players and\n"
     "their registration dates, and the dates on which they last deregistered\n"
     "or were deregistered."),
    ("Amend Rule 2143 by replacing its text with:\n\n"
     "      The Registrar shall publish a report each week listing all players and their\n"
     "  registration dates.\n\n"
     "      The Assessor shall publish a report each week listing all proposals and\n"
     "  their outcomes.",
     "The Registrar shall publish a report each week listing all players and their\n"
     "registration dates.\n\n"
     "The Assessor shall publish a report each week listing all proposals and\n"
     "their outcomes."),
])
def test_g5_a_rewrapped_text_is_read_without_stray_indentation(text: str, right: str) -> None:
    """Every line of a rewrapped text set back fully, or the text left informal."""
    assert read(text).clauses in ((), (Clause(AMEND, 2143, right),))
