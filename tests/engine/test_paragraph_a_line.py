"""Rules written a paragraph to a line (Suber's, Rurru's), abbreviations inside sentences, and
an edit that would leave a rule with no text.

In Suber's and Rurru's presets a rule's paragraphs are its lines: "the last paragraph" of
Suber's rule 213 is its last line, not the whole rule (which a deletion would have emptied).
A paragraph wrapped at a width is still one paragraph. "cf." and "e.g." end no sentence.
"""

from __future__ import annotations

import pytest

from speakerbot.engine.edits import check_edit, edited_text
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import GameError, Refusal
from speakerbot.engine.units import parts
from speakerbot.mail.outbound.wording import refusal_words
from speakerbot.presets import load_preset

K = ClauseKind


def _rule(preset: str, number: int) -> str:
    return next(rule.text for rule in load_preset(preset).rules if rule.number == number)


def _made(text: str, clause: Clause) -> str:
    check_edit(5, text, clause)
    return edited_text(text, clause)


SUBER_213 = _rule("suber", 213)
FIRST, LAST = SUBER_213.split("\n")
WRAPPED = ("The Speaker shall count the votes of every player who voted\n"
           "within the voting period, and announce the result.")


@pytest.mark.parametrize(("preset", "number"), [
    ("suber", 108), ("suber", 211), ("suber", 212), ("suber", 213),
    ("rurru", 102), ("rurru", 107), ("rurru", 211),
])
def test_a_preset_rule_written_a_paragraph_to_a_line_has_a_paragraph_per_line(
        preset: str, number: int) -> None:
    text = _rule(preset, number)
    assert [text[a:b] for a, b in parts(text, "paragraph")] == text.split("\n")


@pytest.mark.parametrize(("clause", "expected"), [
    (Clause(K.REPLACE, 5, unit="paragraph", nth=-1), FIRST),
    (Clause(K.REPLACE, 5, unit="paragraph", nth=1), LAST),
    (Clause(K.REPLACE, 5, new="Play goes on.", unit="paragraph", nth=1), "Play goes on.\n" + LAST),
    (Clause(K.APPEND, 5, "Ties go to the Speaker.", unit="paragraph", nth=1),
     FIRST + " Ties go to the Speaker.\n" + LAST),
    (Clause(K.INSERT, 5, "Play goes on.", unit="paragraph", nth=1, position="after"),
     FIRST + "\nPlay goes on.\n" + LAST),
    (Clause(K.REPLACE, 5, new="Play goes on.", unit="paragraph", anchor="This rule takes"),
     FIRST + "\nPlay goes on."),
    # a new paragraph at the end keeps the rule's way: a line, not a blank line and a line
    (Clause(K.APPEND, 5, "Play goes on."), SUBER_213 + "\nPlay goes on."),
])
def test_suber_213s_paragraphs_are_its_two_lines(clause: Clause, expected: str) -> None:
    assert _made(SUBER_213, clause) == expected


def test_a_paragraph_wrapped_at_a_width_is_one_paragraph() -> None:
    text = WRAPPED + "\n\nTies fail."
    assert [text[a:b] for a, b in parts(text, "paragraph")] == [WRAPPED, "Ties fail."]
    assert len(parts(WRAPPED, "paragraph")) == 1
    replaced = Clause(K.REPLACE, 5, new="Votes are counted.", unit="paragraph", nth=1)
    assert _made(text, replaced) == "Votes are counted.\n\nTies fail."


@pytest.mark.parametrize("text", [
    SUBER_213,
    WRAPPED,
    "Voting lasts one week.",
])
def test_an_edit_that_would_leave_a_rule_with_no_text_is_refused(text: str) -> None:
    deletions = [Clause(K.REPLACE, 5, old=text)]
    deletions += [Clause(K.REPLACE, 5, unit="paragraph", nth=n) for n in (1, -1)
                  if len(parts(text, "paragraph")) == 1]
    for clause in deletions:
        with pytest.raises(GameError) as raised:
            check_edit(5, text, clause)
        assert raised.value.refusal is Refusal.RULE_LEFT_EMPTY
        reason, remedy = refusal_words(raised.value.refusal, raised.value.facts)
        assert reason == "the change would leave rule 5 with no text"
        assert remedy == "to remove rule 5, repeal it: Repeal Rule 5"


@pytest.mark.parametrize(("text", "second"), [
    ("A player may act on behalf of another (cf. Rule 2466) with consent. Ties fail.",
     "Ties fail."),
    ("The Speaker announces the result, e.g. Adopted or Rejected, in the digest. Ties fail.",
     "Ties fail."),
    ("A judge rules on a CFJ, i.e. TRUE or FALSE, within a week. Ties fail.", "Ties fail."),
    ("Votes are counted (e.g. FOR, AGAINST). Ties fail.", "Ties fail."),
    # an abbreviation that can end a sentence still does: "etc." before a capital
    ("Players may vote, propose, etc. Ties fail.", "Ties fail."),
])
def test_an_abbreviation_ends_no_sentence(text: str, second: str) -> None:
    sentences = [text[a:b] for a, b in parts(text, "sentence")]
    assert sentences[-1] == second and len(sentences) == 2
    deleted = _made(text, Clause(K.REPLACE, 5, unit="sentence", nth=2))
    assert deleted == sentences[0]
