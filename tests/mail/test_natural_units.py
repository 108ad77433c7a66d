"""Issue 26's wordings: edits of a paragraph, sentence, list item or line, titles, headings.

The examples (five or more of each form) are in :mod:`tests.mail.natural_cases`, each with
the clauses the reader must return and the rule's text after them. The engine here makes
the edits of quoted text, and a test checks those examples' ``after``; once the engine
half of issue 26 is merged, widening :func:`_today` to the edits of a part checks them all.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine.edits import edited_text
from speakerbot.mail.inbound.language import Propose, parse_commands
from speakerbot.mail.inbound.language.results import Clause
from tests.mail.natural_cases import AP, CASES, IN, ITEM, RULE, L, P, R, S, part, replaced
from tests.mail.natural_cases_more import MORE_CASES, MORE_NEAR_MISSES
from tests.mail.natural_cases_unseen import UNSEEN_CASES, UNSEEN_NEAR_MISSES
from tests.mail.test_natural_forms import read

ALL_CASES = CASES + MORE_CASES + UNSEEN_CASES
"""Every table of examples: issue 26's forms and those met later on unseen proposals."""


@pytest.mark.parametrize(("text", "expected"), [c[1:3] for c in ALL_CASES],
                         ids=[c[0] for c in ALL_CASES])
def test_issue_26_form(text: str, expected: list[Clause]) -> None:
    """Each wording is read as exactly its clauses, and nothing of it is left over."""
    proposal = read(text)
    assert list(proposal.clauses) == expected
    assert proposal.not_understood == ()


def test_every_case_has_a_distinct_id() -> None:
    ids = [case[0] for case in ALL_CASES]
    assert len(ids) == len(set(ids))


def test_an_after_text_is_a_change_of_the_rule() -> None:
    """The ``after`` column differs from RULE wherever it is written (a typo would not)."""
    for name, _, _, after in ALL_CASES:
        assert after != RULE, name


def test_the_json_of_a_part_edit_names_the_part() -> None:
    """``speakerbot parse`` shows which part a clause edits: unit, anchor and nth."""
    result = parse_commands("", "PROPOSE T\nAmend Rule 5 by deleting the last paragraph.\n"
                            "END PROPOSE\n")
    (command,) = result.commands
    assert isinstance(command, Propose)
    clauses = command.to_json()["clauses"]
    assert clauses == [ {"kind": "REPLACE", "rule": 5, "text": "", "immutable": False, "old": "",
                      "new": "", "every": False, "unit": "paragraph", "anchor": "", "nth": -1}]


NEAR_MISSES: list[tuple[str, str]] = [
    # Appending a block "to the last paragraph": a paragraph of its own, or joined to it?
    ("append-block-to-last", 'Amend Rule 5 by appending to the last paragraph:\n\n  Really.'),
    # The first paragraph of a section is not the rule's first.
    ("part-of-section", "Amend Rule 5, section 2, by replacing the first paragraph with: x"),
    ("part-after-bare-title", "Amend Rule 5, Voting Rules, by deleting the last paragraph."),
    # A line put after a paragraph: a line of it, or a paragraph?
    ("unit-mismatch", 'Amend Rule 5 by inserting the following line after the paragraph '
     'beginning "Ties": x'),
    # The reader has no rules: a rule named by its title alone is the host's to find.
    ("rule-by-title", 'Amend the rule entitled "Voting" by replacing "a" with "b".'),
    # The same change to several rules, where each would be found once: only "every" is read.
    ("following-rules-once", 'Amend the following rules by replacing "a" with "b": 1, 2'),
    ("following-rules-not-numbers", 'Amend the following rules by replacing every instance of '
     '"a" with "b": all of them'),
    ("two-paragraphs", "Amend Rule 5 by replacing the first and second paragraphs with: x"),
    ("no-text", "Amend Rule 5 by replacing the first paragraph with"),
    ("as-follows-new-text", "Amend Rule 5 as follows:\n\n  Voting lasts a day."),
    ("two-edits-after-every", 'Amend the following rules by replacing every instance of "x" '
     'with "y" and every instance of "p" with "q": R1, R2'),
    # F4: the second paragraph of the rule as it stands, or as the first edit left it?
    ("place-after-an-edit", "Amend Rule 5 by deleting the first paragraph and deleting the "
     "second paragraph."),
    ("place-after-a-text-edit", 'Amend Rule 5 by replacing "a." with "b" and deleting the last '
     "sentence."),
]  # fmt: skip


ALL_NEAR_MISSES = NEAR_MISSES + MORE_NEAR_MISSES + UNSEEN_NEAR_MISSES


@pytest.mark.parametrize("text", [n[1] for n in ALL_NEAR_MISSES],
                         ids=[n[0] for n in ALL_NEAR_MISSES])
def test_near_miss_stays_informal_and_is_quoted_back(text: str) -> None:
    """A wording that could mean two changes makes no clause; the reply quotes its line."""
    proposal = read(f"Preamble.\n{text}\nRationale.")
    assert proposal.clauses == ()
    assert proposal.not_understood == ((3, text.split("\n")[0]),)


def test_a_sentence_quoted_whole_is_still_that_text() -> None:
    """``deleting the sentence "X"`` names its text, as before issue 26: not a part."""
    assert read('Amend Rule 5 by deleting the sentence " Votes may be changed."').clauses == (
        replaced(" Votes may be changed.", ""),
    )


WHOLE: list[tuple[str, str, Clause]] = [
    ("item", 'Amend Rule 5 by deleting the list item "the Speaker"',
     part(R, ITEM, "the Speaker", whole=True)),
    ("line", 'Amend Rule 5 by deleting the line "a"', part(R, L, "a", whole=True)),
    ("paragraph-block", "Amend Rule 5 by deleting the paragraph: Ties fail.",
     part(R, P, "Ties fail.", whole=True)),
    ("insert-after-bare", 'Amend Rule 5 by inserting the following paragraph after "Ties '
     'fail.": B', part(IN, P, "Ties fail.", text="B", position="after", whole=True)),
    ("replace-quoted-part", 'Amend Rule 5 by replacing the paragraph "Ties fail." with "B"',
     part(R, P, "Ties fail.", text="B", whole=True)),
    ("beginning-is-not-whole", 'Amend Rule 5 by deleting the list item beginning "the"',
     part(R, ITEM, "the")),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), [w[1:] for w in WHOLE], ids=[w[0] for w in WHOLE])
def test_a_part_quoted_itself_is_the_whole_part(text: str, expected: Clause) -> None:
    """F11: a part quoted without "beginning" is the part whose whole text it is."""
    assert read(text).clauses == (expected,)


def test_a_paragraph_appended_to_a_paragraph_is_a_new_paragraph_after_it() -> None:
    """F9: "appending the following paragraph to the paragraph ..." is not joined as a sentence."""
    assert read('Amend Rule 5 by appending the following paragraph to the paragraph beginning '
                '"Votes": Ties fail.').clauses == (
        part(IN, P, "Votes", text="Ties fail.", position="after"),)
    assert read("Amend Rule 5 by appending the following paragraph to the last paragraph: "
                "Ties fail.").clauses == (part(IN, P, nth=-1, text="Ties fail.", position="after"),)


@pytest.mark.parametrize("text", ["Ties fail.", "This sentence is new."])
def test_new_or_joined_is_told_by_the_form_not_the_players_text(text: str) -> None:
    """F9: the word "sentence" in the appended text does not make it a sentence joined."""
    line = f"Amend Rule 5 by appending to the last paragraph: {text}"
    proposal = read(f"Preamble.\n{line}\nRationale.")
    assert proposal.clauses == ()
    assert proposal.not_understood == ((3, line),)


def test_a_colon_text_in_a_by_list_ends_with_its_item() -> None:
    """F10: a colon text does not take in the items after it, and keeps its full stop."""
    assert read('Amend Rule 5 by:\n  - replacing the paragraph beginning "Ties" with: Ties '
                'fail.\n  - deleting "one".').clauses == (
        part(R, P, "Ties", text="Ties fail."), replaced("one", ""))
    assert read('Amend Rule 5 by:\n  - deleting "one";\n  - appending the following text: '
                "Votes are final.").clauses == (
        replaced("one", ""), Clause(AP, 5, "Votes are final."))


def test_a_place_after_an_edit_in_a_by_list_is_quoted_back() -> None:
    """F4: a part counted after another edit of its rule, in a list of edits, is not read."""
    proposal = read("Amend Rule 5 by:\n  - deleting the first paragraph;\n"
                    "  - deleting the second paragraph.")
    assert proposal.clauses == ()
    assert proposal.not_understood == ((2, "Amend Rule 5 by:"),)


def test_a_place_after_the_previous_edit_of_its_rule_is_quoted_back() -> None:
    """F4: "and by" going on editing the same rule by a place is not read either."""
    proposal = read('Amend Rule 5 by appending "B".\nand by deleting the last paragraph.')
    assert proposal.not_understood == ((3, "and by deleting the last paragraph."),)


@pytest.mark.parametrize("heading", [
    'Amend Rules 5 and 6 by replacing "a" with "b" wherever it appears.',
    'Amend the following rules by replacing every instance of "a" with "b": 5, 6',
])
def test_edits_going_on_after_a_change_of_several_rules_are_quoted_back(heading: str) -> None:
    """"and removing" after a change of rules 5 and 6: of the last, or of both? Unclear."""
    proposal = read(f'{heading}\n\nand removing " c"')
    assert [clause.rule for clause in proposal.clauses] == [5, 6]
    assert proposal.not_understood == ((4, 'and removing " c"'),)


def test_places_no_edit_before_them_moves_are_read() -> None:
    """A part counted first, or after edits that cannot move it (a word replaced), is read."""
    assert read('Amend Rule 5 by deleting the first paragraph and replacing "a" with "b".'
                ).clauses == (part(R, P, nth=1), replaced("a", "b"))
    assert read('Amend Rule 5 by replacing "a" with "b" and deleting the last sentence.'
                ).clauses == (replaced("a", "b"), part(R, S, nth=-1))


def test_a_change_left_over_after_a_part_edit_is_quoted_back() -> None:
    """After a change read, a line going on with another change is not silently dropped."""
    proposal = read("In Rule 5, replace the first paragraph with:\n\n  Votes.\n\n"
                    "and add a new list item at the start of the list, with the text:\n\n"
                    "  - judges;")
    assert proposal.clauses == (part(R, P, nth=1, text="Votes."),)
    assert proposal.not_understood == (
        (6, "and add a new list item at the start of the list, with the text:"),)


def _edits(clauses: list[Clause]) -> bool:
    """Whether these clauses are edits of rule 5's text (not a title, a new rule, a repeal)."""
    return all(c.rule == 5 and c.kind in (R, AP, IN) for c in clauses)


TODAY = [case for case in ALL_CASES if case[3] and _edits(case[2])]


@pytest.mark.parametrize(("clauses", "after"), [c[2:] for c in TODAY], ids=[c[0] for c in TODAY])
def test_the_after_text_of_each_example_is_what_the_engine_makes(clauses: list[Clause],
                                                                  after: str) -> None:
    """Every example's edits, made by the engine as at adoption, give its ``after`` text."""
    text = RULE
    for clause in clauses:
        text = edited_text(text, clause)
    assert text == after


_WORDS = st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=8), min_size=1,
                  max_size=6).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(anchor=_WORDS, unit=st.sampled_from(["paragraph", "sentence", "list item", "line"]),
       verb=st.sampled_from(["deleting", "removing", "striking"]))
def test_a_part_named_by_its_start_is_that_part(anchor: str, unit: str, verb: str) -> None:
    """Whatever the quotation, the part deleted is the one beginning with it, in its unit."""
    (clause,) = read(f'Amend Rule 7 by {verb} the {unit} beginning "{anchor}"').clauses
    assert clause == Clause(R, 7, anchor=anchor, unit=unit.split()[-1], new="")


@settings(max_examples=60, deadline=None)
@given(ordinal=st.sampled_from(["first", "second", "third", "tenth", "last", "final"]),
       text=_WORDS)
def test_a_part_named_by_its_place_is_that_place(ordinal: str, text: str) -> None:
    """An ordinal names the nth part from the start, or from the end for last and final."""
    (clause,) = read(f'Amend Rule 7 by replacing the {ordinal} paragraph with "{text}"').clauses
    place = {"first": 1, "second": 2, "third": 3, "tenth": 10, "last": -1, "final": -1}
    assert clause == Clause(R, 7, new=text, unit="paragraph", nth=place[ordinal])
