"""Edits of a rule's parts: replacing, deleting, appending to and inserting paragraphs,
sentences, list items and lines, as check_edit and edited_text make them; and their refusals."""

from __future__ import annotations

import time

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from speakerbot.engine.edits import check_edit, edited_size, edited_text
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import Facts, GameError, Refusal
from speakerbot.engine.units import UNITS, parts
from speakerbot.mail.outbound.wording import refusal_words

K = ClauseKind
Where = str | int  # a part's beginning, or its place (1 the first, -1 the last)


def _where(where: Where) -> dict[str, str | int]:
    return {"anchor": where} if isinstance(where, str) else {"nth": where}


def rep(unit: str, where: Where, new: str = "") -> Clause:
    """Replace the part (delete it, without ``new``)."""
    return Clause(K.REPLACE, 5, new=new, unit=unit, **_where(where))  # type: ignore[arg-type]


def app(unit: str, where: Where, text: str) -> Clause:
    return Clause(K.APPEND, 5, text, unit=unit, **_where(where))  # type: ignore[arg-type]


def ins(unit: str, where: Where, text: str, position: str) -> Clause:
    return Clause(K.INSERT, 5, text, unit=unit, position=position,
                  **_where(where))  # type: ignore[arg-type]


P1 = "The Speaker shall count the votes. The count is public!"
P2 = "Each player may:\n- vote on each proposal;\n- call for judgement."
P3 = "(a) A proposal passes by majority.\n(b) A tie fails. Ties are rare."
RULE = f"{P1}\n\n{P2}\n\n{P3}"

# Each edit and what it does to RULE: (the text it changes, what that text becomes).
EDITED = [
    # replace a paragraph
    (rep("paragraph", "Each player", "Each player may vote."), P2, "Each player may vote."),
    (rep("paragraph", 1, "X."), P1, "X."),
    (rep("paragraph", -1, "Y."), P3, "Y."),
    (rep("paragraph", "\u201c(a) A proposal\u201d", "Z."), P3, "Z."),
    (rep("paragraph", 2, "Two\nlines."), P2, "Two\nlines."),
    (rep("paragraph", "The  Speaker\nshall", "  W.  "), P1, "W."),
    # delete a paragraph
    (rep("paragraph", "Each player"), "\n\n" + P2, ""),
    (rep("paragraph", 1), P1 + "\n\n", ""),
    (rep("paragraph", -1), "\n\n" + P3, ""),
    (rep("paragraph", 2), "\n\n" + P2, ""),
    (rep("paragraph", "(a) A proposal"), "\n\n" + P3, ""),
    # append to a paragraph
    (app("paragraph", "The Speaker", "Recounts are allowed."), P1,
     P1 + " Recounts are allowed."),
    # a paragraph that ends in a list item: the sentence is a paragraph of its own (review F8)
    (app("paragraph", -1, "Ties fail."), P3, P3 + "\n\nTies fail."),
    (app("paragraph", 2, "X."), P2, P2 + "\n\nX."),
    (app("paragraph", "Each", "  Spaced.\n"), P2, P2 + "\n\nSpaced."),
    (app("paragraph", 1, "See rule 6."), P1, P1 + " See rule 6."),
    # insert a paragraph
    (ins("paragraph", 1, "Preamble.", "before"), P1, "Preamble.\n\n" + P1),
    (ins("paragraph", -1, "Coda.", "after"), P3, P3 + "\n\nCoda."),
    (ins("paragraph", "Each player", "Middle.", "before"), P2, "Middle.\n\n" + P2),
    (ins("paragraph", "Each player", "Middle.", "after"), P2, P2 + "\n\nMiddle."),
    (ins("paragraph", 3, "Rules:", "before"), P3, "Rules:\n\n" + P3),
    # replace a sentence
    (rep("sentence", "The count", "The count is secret."), "The count is public!",
     "The count is secret."),
    (rep("sentence", 1, "The Judge shall count."), "The Speaker shall count the votes.",
     "The Judge shall count."),
    (rep("sentence", "Ties", "Ties never happen."), "Ties are rare.", "Ties never happen."),
    (rep("sentence", -1, "Ties are common."), "Ties are rare.", "Ties are common."),
    (rep("sentence", "(b) A tie", "(b) A tie passes."), "(b) A tie fails.",
     "(b) A tie passes."),
    # delete a sentence
    (rep("sentence", "The count"), " The count is public!", ""),
    (rep("sentence", 1), "The Speaker shall count the votes. ", ""),
    (rep("sentence", "Ties"), " Ties are rare.", ""),
    (rep("sentence", "(b) A tie"), "(b) A tie fails. ", ""),
    (rep("sentence", 4), "(a) A proposal passes by majority.\n", ""),
    # append to a sentence
    (app("sentence", "The Speaker", "Promptly."), "the votes.", "the votes. Promptly."),
    (app("sentence", -1, "Very."), "rare.", "rare. Very."),
    (app("sentence", "The count", "Always."), "public!", "public! Always."),
    (app("sentence", 2, "Indeed."), "public!", "public! Indeed."),
    (app("sentence", "(b) A tie", "Sadly."), "fails.", "fails. Sadly."),
    # insert a sentence
    (ins("sentence", "The count", "Votes are sealed.", "before"), "The count",
     "Votes are sealed. The count"),
    (ins("sentence", 1, "Then rest.", "after"), "the votes.", "the votes. Then rest."),
    (ins("sentence", -1, "Really.", "after"), "rare.", "rare. Really."),
    (ins("sentence", "Ties", "Or not.", "before"), "Ties are", "Or not. Ties are"),
    (ins("sentence", 1, "First.", "before"), "The Speaker shall", "First. The Speaker shall"),
    # replace a list item
    (rep("item", "vote on", "- vote twice;"), "- vote on each proposal;", "- vote twice;"),
    (rep("item", 2, "- call a CFJ."), "- call for judgement.", "- call a CFJ."),
    (rep("item", "(b) A tie", "(b) A tie is replayed."), "(b) A tie fails. Ties are rare.",
     "(b) A tie is replayed."),
    (rep("item", -1, "(b) Ties pass."), "(b) A tie fails. Ties are rare.", "(b) Ties pass."),
    (rep("item", "A proposal", "(a) Majority wins."), "(a) A proposal passes by majority.",
     "(a) Majority wins."),
    # delete a list item
    (rep("item", "vote on"), "\n- vote on each proposal;", ""),
    (rep("item", 2), "\n- call for judgement.", ""),
    (rep("item", -1), "\n(b) A tie fails. Ties are rare.", ""),
    (rep("item", "A proposal passes"), "(a) A proposal passes by majority.\n", ""),
    (rep("item", "- call"), "\n- call for judgement.", ""),
    # append to a list item
    (app("item", "vote on", "or abstain;"), "proposal;", "proposal; or abstain;"),
    (app("item", 2, "Promptly."), "judgement.", "judgement. Promptly."),
    (app("item", -1, "Always."), "rare.", "rare. Always."),
    (app("item", "A proposal", "Or more."), "majority.", "majority. Or more."),
    (app("item", 1, "Once."), "proposal;", "proposal; Once."),
    # insert a list item
    (ins("item", "call", "- propose rules.", "after"), "judgement.",
     "judgement.\n- propose rules."),
    (ins("item", "vote on", "- join;", "before"), "- vote on", "- join;\n- vote on"),
    (ins("item", -1, "(c) Ties are replayed.", "after"), "rare.",
     "rare.\n(c) Ties are replayed."),
    (ins("item", 3, "(0) Zero.", "before"), "(a) A", "(0) Zero.\n(a) A"),
    (ins("item", 1, "- x;", "after"), "proposal;", "proposal;\n- x;"),
    # replace a line
    (rep("line", "Each player may", "Every player may:"), "Each player may:",
     "Every player may:"),
    (rep("line", 1, "Line one."), P1, "Line one."),
    (rep("line", -1, "(b) No."), "(b) A tie fails. Ties are rare.", "(b) No."),
    (rep("line", "- call", "- call a CFJ."), "- call for judgement.", "- call a CFJ."),
    (rep("line", 4, "- appeal."), "- call for judgement.", "- appeal."),
    # delete a line
    (rep("line", "Each player may"), "Each player may:\n", ""),
    (rep("line", -1), "\n(b) A tie fails. Ties are rare.", ""),
    (rep("line", 3), "\n- vote on each proposal;", ""),
    (rep("line", "(a) A proposal"), "(a) A proposal passes by majority.\n", ""),
    (rep("line", 1), P1 + "\n\n", ""),
    # append to a line
    (app("line", "Each player may", "(if present)"), "may:", "may: (if present)"),
    (app("line", 1, "Always!"), "public!", "public! Always!"),
    (app("line", -1, "Truly."), "rare.", "rare. Truly."),
    (app("line", "- vote", "and"), "proposal;", "proposal; and"),
    (app("line", 4, "Soon."), "judgement.", "judgement. Soon."),
    # insert a line
    (ins("line", "Each player", "Moreover:", "before"), "Each player", "Moreover:\nEach player"),
    (ins("line", 1, "Second line.", "after"), "public!", "public!\nSecond line."),
    (ins("line", -1, "(c) Last.", "after"), "rare.", "rare.\n(c) Last."),
    (ins("line", "- call", "- wait;", "before"), "- call", "- wait;\n- call"),
    (ins("line", 2, "Also:", "after"), "may:", "may:\nAlso:"),
]


@pytest.mark.parametrize(("clause", "old", "new"), EDITED)
def test_each_edit_of_a_part_gives_the_text_players_expect(
        clause: Clause, old: str, new: str) -> None:
    check_edit(5, RULE, clause)
    expected = RULE.replace(old, new, 1)
    assert edited_text(RULE, clause) == expected
    assert edited_size(RULE, clause) == len(expected.encode())


def test_every_edit_and_part_is_in_the_table_five_times_at_least() -> None:
    made: dict[tuple[str, str], int] = {}
    for clause, _, _ in EDITED:
        kind = "delete" if clause.kind is K.REPLACE and not clause.new else clause.kind.value
        made[kind, clause.unit] = made.get((kind, clause.unit), 0) + 1
    assert len(made) == 16 and min(made.values()) >= 5


def test_a_new_line_keeps_the_indentation_of_the_line_it_stands_by() -> None:
    text = "Players may:\n   (a) vote;\n   (b) judge."
    clause = ins("item", "(a) vote", "(a1) abstain;", "after")
    assert edited_text(text, clause) == (
        "Players may:\n   (a) vote;\n   (a1) abstain;\n   (b) judge.")


def test_several_edits_chain_each_on_the_text_the_one_before_leaves() -> None:
    text = RULE
    for clause in (rep("paragraph", -1), app("paragraph", -1, "Or abstain."),
                   ins("paragraph", 1, "Votes:", "before"), rep("sentence", "The count")):
        check_edit(5, text, clause)
        text = edited_text(text, clause)
    assert text == f"Votes:\n\nThe Speaker shall count the votes.\n\n{P2}\n\nOr abstain."


# --- refusals -----------------------------------------------------------------------------

REFUSED = [
    (RULE, rep("paragraph", "Nobody"), Refusal.UNIT_NOT_FOUND,
     'rule 5 has no paragraph beginning "Nobody"', "SHOW RULE 5 shows its text as it stands"),
    (RULE, app("item", "\u201cNobody at all\u2026\u201d", "x"), Refusal.UNIT_NOT_FOUND,
     'rule 5 has no list item beginning "\u201cNobody at all\u2026\u201d"', "SHOW RULE 5"),
    (RULE, rep("paragraph", 4), Refusal.UNIT_NOT_FOUND, "rule 5 has only 3 paragraphs", ""),
    (RULE, ins("item", -9, "x", "after"), Refusal.UNIT_NOT_FOUND,
     "rule 5 has only 4 list items", ""),
    (RULE, rep("sentence", 0), Refusal.UNIT_NOT_FOUND,
     "the change to rule 5 does not say which sentence", ""),
    ("No list here.", rep("item", 1), Refusal.UNIT_NOT_FOUND, "rule 5 has no list items", ""),
    ("One paragraph.", app("paragraph", 2, "x"), Refusal.UNIT_NOT_FOUND,
     "rule 5 has only 1 paragraph", ""),
    ("", ins("paragraph", 1, "Preamble.", "before"), Refusal.UNIT_NOT_FOUND,
     "rule 5 has no paragraphs", ""),
    ("The one.\nThe other.\nA third.", rep("line", "The"), Refusal.UNIT_NOT_UNIQUE,
     '2 lines of rule 5 begin "The", so the change does not say which',
     "quote more of its beginning"),
    (RULE, rep("item", "-"), Refusal.UNIT_NOT_UNIQUE,  # a marker alone begins two items
     '2 list items of rule 5 begin "-"', ""),
    (RULE, rep("sentence", "\u201c \u201d"), Refusal.UNIT_NOT_FOUND,  # quotes alone: no anchor
     "the change to rule 5 does not say which sentence", ""),
    (RULE, app("paragraph", 1, "  "), Refusal.NOTHING_TO_ADD,
     "the change to rule 5 has no text to append", ""),
    (RULE, ins("sentence", 1, "x", "between"), Refusal.BAD_POSITION,
     "text can be inserted before or after other text, not 'between'", ""),
    (RULE, rep("sentence", "The count", "The count is public!"), Refusal.EDIT_NO_CHANGE,
     "the change to rule 5 would make no difference", ""),
    (RULE, rep("line", -1, "\n(b) A tie fails. Ties are rare.  "), Refusal.EDIT_NO_CHANGE,
     "would make no difference", ""),
]


def refused(text: str, clause: Clause, max_bytes: int = 65_536) -> tuple[Refusal, str, str]:
    """Check the edit of rule 5's ``text``, which must be refused: the refusal, in words."""
    try:
        check_edit(5, text, clause, max_bytes)
    except GameError as error:
        return (error.refusal, *refusal_words(error.refusal, error.facts))
    raise AssertionError(f"not refused: {clause}")


@pytest.mark.parametrize(("text", "clause", "refusal", "reason", "remedy"), REFUSED)
def test_an_edit_of_a_part_not_there_is_refused_in_words_that_say_which(
        text: str, clause: Clause, refusal: Refusal, reason: str, remedy: str) -> None:
    assert refused(text, clause)[0] is refusal
    assert reason in refused(text, clause)[1] and remedy in refused(text, clause)[2]


def test_an_edit_of_a_part_is_refused_where_it_would_make_the_rule_too_long() -> None:
    assert refused(RULE, app("paragraph", 1, "x" * 100), len(RULE) + 50) == (
        Refusal.RULE_TOO_LONG, f"rule 5 would be {len(RULE) + 101} bytes long, over the limit "
        f"of {len(RULE) + 50} bytes for a rule's text", "make the change smaller")
    check_edit(5, RULE, app("paragraph", 1, "x" * 49), max_bytes=len(RULE) + 50)


# The facts units.choose gives: (refusal, anchor, count, nth).
_FACTS = [
    (Refusal.UNIT_NOT_FOUND, "", None, None), (Refusal.UNIT_NOT_FOUND, "The Speaker", 0, None),
    (Refusal.UNIT_NOT_FOUND, "", 0, 2), (Refusal.UNIT_NOT_FOUND, "", 1, 2),
    (Refusal.UNIT_NOT_FOUND, "", 3, -4), (Refusal.UNIT_NOT_FOUND, "", 2, 0),
    (Refusal.UNIT_NOT_FOUND, "x " * 100, 0, None), (Refusal.UNIT_NOT_UNIQUE, "The", 2, None),
    (Refusal.UNIT_NOT_UNIQUE, "\u201cThe\nSpeaker\u201d" * 30, 12, None),
]


@pytest.mark.parametrize("unit", [*UNITS, "chapter", ""])
@pytest.mark.parametrize(("refusal", "text", "count", "limit"), _FACTS)
def test_every_refusal_of_a_part_reads_as_a_sentence(
        unit: str, refusal: Refusal, text: str, count: int | None, limit: int | None) -> None:
    facts = Facts(number=5, detail=unit, text=text, count=count, limit=limit)
    reason, remedy = refusal_words(refusal, facts)
    for words in (reason, remedy):
        assert "None" not in words and "{" not in words and "  " not in words
        assert "\n" not in words and "items items" not in words and " s " not in words
    assert (reason[:1].islower() or reason[:1].isdigit()) and "rule 5" in reason
    assert len(reason) < 140


# --- properties: an edit and its reverse give the rule back -----------------------------------

_WORDS = st.sampled_from(["The", "Speaker", "shall", "vote", "each", "rule", "x", "days",
                          "(a)", "player", "1.", "-", "\u00e9t\u00e9"])
_ENDS = st.sampled_from([".", "!", "?", ";", ""])


@st.composite
def sentences(draw: st.DrawFn) -> str:
    return " ".join(draw(st.lists(_WORDS, min_size=1, max_size=5))) + draw(_ENDS)


@st.composite
def paragraphs(draw: st.DrawFn) -> str:
    return " ".join(draw(st.lists(sentences(), min_size=1, max_size=3)))


@st.composite
def rules(draw: st.DrawFn) -> str:
    """A rule of paragraphs of sentences, split by one or more blank lines."""
    found = draw(st.lists(paragraphs(), min_size=1, max_size=4))
    text = found[0]
    for paragraph in found[1:]:
        text += draw(st.sampled_from(["\n\n", "\n\n\n", "\n \n"])) + paragraph
    return text


def _beginning_unique(text: str, unit: str, beginning: str) -> bool:
    starting = [span for span in parts(text, unit)
                if " ".join(text[span[0]:span[1]].split()).startswith(beginning)]
    return len(starting) == 1


@settings(max_examples=200, deadline=None)
@given(rules(), paragraphs(), st.data())
def test_inserting_a_paragraph_then_deleting_it_by_its_beginning_restores_the_rule(
        text: str, added: str, data: st.DataObject) -> None:
    nth = data.draw(st.integers(1, len(parts(text, "paragraph"))))
    position = data.draw(st.sampled_from(["before", "after"]))
    changed = edited_text(text, ins("paragraph", nth, added, position))
    assume(_beginning_unique(changed, "paragraph", added))
    undo = rep("paragraph", added)
    check_edit(5, changed, undo)
    # The blank line left is the one the insertion made (one of two alike but for spaces).
    assert _blank_lines_bare(edited_text(changed, undo)) == _blank_lines_bare(text)


def _blank_lines_bare(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n"))


@settings(max_examples=200, deadline=None)
@given(rules(), paragraphs(), st.data())
def test_replacing_a_paragraph_then_replacing_it_back_restores_the_rule(
        text: str, new: str, data: st.DataObject) -> None:
    found = parts(text, "paragraph")
    nth = data.draw(st.integers(-len(found), len(found)).filter(bool))
    start, end = found[nth - 1 if nth > 0 else nth]
    assume(new != text[start:end])
    changed = edited_text(text, rep("paragraph", nth, new))
    assert edited_text(changed, rep("paragraph", nth, text[start:end])) == text


@settings(max_examples=200, deadline=None)
@given(rules(), sentences().map(lambda words: words.rstrip(".!?;") + "."), st.data())
def test_appending_a_sentence_then_deleting_it_restores_the_rule(
        text: str, added: str, data: st.DataObject) -> None:
    found = parts(text, "paragraph")
    nth = data.draw(st.integers(1, len(found)))
    changed = edited_text(text, app("paragraph", nth, added))
    # After a sentence that does not end (";", or no mark), the words join that sentence.
    end = parts(changed, "paragraph")[nth - 1][1]
    assume((end - len(added), end) in parts(changed, "sentence"))
    assume(_beginning_unique(changed, "sentence", added))
    assert edited_text(changed, rep("sentence", added)) == text


@settings(max_examples=200, deadline=None)
@given(rules(), st.sampled_from(UNITS), st.data())
def test_replacing_a_part_with_itself_is_no_change_and_deleting_it_removes_only_it(
        text: str, unit: str, data: st.DataObject) -> None:
    found = parts(text, unit)
    assume(found)
    nth = data.draw(st.integers(1, len(found)))
    start, end = found[nth - 1]
    with pytest.raises(GameError) as raised:
        check_edit(5, text, rep(unit, nth, text[start:end]))
    assert raised.value.refusal is Refusal.EDIT_NO_CHANGE
    deleted = edited_text(text, rep(unit, nth))
    assert deleted.split() == (text[:start] + text[end:]).split()
    assert "\n\n\n\n" not in deleted or "\n\n\n\n" in text


_ANY_TEXT = st.text(st.sampled_from("ab .!?\n\t-*1()\u201c\u201d'\"\u2026i"), max_size=60)


@settings(max_examples=400, deadline=None)
@given(_ANY_TEXT, st.sampled_from([K.REPLACE, K.APPEND, K.INSERT]),
       st.sampled_from([*UNITS, "chapter"]), _ANY_TEXT, st.integers(-5, 5), _ANY_TEXT,
       st.sampled_from(["before", "after", "", "between"]))
def test_checking_an_edit_of_a_part_never_fails_but_with_a_refusal(
        text: str, kind: ClauseKind, unit: str, anchor: str, nth: int, added: str,
        position: str) -> None:
    clause = Clause(kind, 5, added, new=added, unit=unit, anchor=anchor, nth=nth,
                    position=position)
    try:
        check_edit(5, text, clause, max_bytes=100)
    except GameError:
        assert edited_size(text, clause) >= 0
        return
    made = edited_text(text, clause)
    assert made.strip() != text.strip()
    assert edited_size(text, clause) == len(made.encode()) <= 100


@pytest.mark.parametrize(("clause", "said"), [
    (rep("paragraph", "The  Speaker\nshall", "x"),
     "replace the paragraph beginning “The Speaker shall” of rule 5"),
    (rep("sentence", 2), "delete sentence 2 of rule 5"),
    (app("item", -1, "x"), "append text to the last list item of rule 5"),
    (ins("line", -2, "x", "after"), "insert a line after line 2 from the end of rule 5"),
    (ins("paragraph", 1, "x", "before"), "insert a paragraph before paragraph 1 of rule 5"),
    (rep("item", "word " * 20), "delete the list item beginning “" + ("word " * 8)[:39]
     + "…” of rule 5"),
    (Clause(K.RETITLE, 5, " New\n title "), "retitle rule 5 “New title”"),
    (Clause(K.ENACT, None, "Text.", title="Votes"), "enact a new rule “Votes”"),
    (Clause(K.ENACT, None, "Text.", True), "enact a new immutable rule"),
])
def test_each_edit_of_a_part_says_which_part_it_changes(clause: Clause, said: str) -> None:
    assert clause.describe() == said


LIST_THEN_PROSE = "Voters are:\n- Alice\n- Bob\nTies fail."


@pytest.mark.parametrize(("clause", "after"), [
    (rep("item", "Bob"), "Voters are:\n- Alice\nTies fail."),
    (ins("item", "Bob", "- Carol", "after"), "Voters are:\n- Alice\n- Bob\n- Carol\nTies fail."),
    (rep("item", -1), "Voters are:\n- Alice\nTies fail."),
])
def test_the_prose_line_after_a_list_is_not_part_of_its_last_item(
        clause: Clause, after: str) -> None:
    """Review F6: deleting the item "Bob" deleted "Ties fail." with it."""
    check_edit(5, LIST_THEN_PROSE, clause)
    assert edited_text(LIST_THEN_PROSE, clause) == after


def test_a_line_indented_past_the_marker_still_continues_the_item() -> None:
    """An item's continuation line is one indented past its marker."""
    text = "- Alice, who\n  votes first\n- Bob\nTies fail."
    assert edited_text(text, rep("item", 1)) == "- Bob\nTies fail."


def test_a_full_stop_before_a_small_letter_ends_no_sentence() -> None:
    """Review F7: "e.g. the Speaker" was taken for the end of a sentence."""
    text = "Each player (e.g. the Speaker) may vote. Ties fail."
    check_edit(5, text, rep("sentence", "Each player"))
    assert edited_text(text, rep("sentence", "Each player")) == "Ties fail."


def test_the_full_stop_of_a_list_marker_ends_no_sentence() -> None:
    """Review F7: the "sentence" beginning Alice was 'Alice\\n2.', and deleting it left '1. Bob'.

    Now no sentence begins "Alice": the edit is refused, not made on the wrong words.
    """
    text = "Voters are:\n1. Alice\n2. Bob"
    assert [text[start:end] for start, end in parts(text, "sentence")] == [text]
    with pytest.raises(GameError) as refused:
        check_edit(5, text, rep("sentence", "Alice"))
    assert refused.value.refusal is Refusal.UNIT_NOT_FOUND


@pytest.mark.parametrize("where", [-1, "Voters"])
def test_a_sentence_added_to_a_paragraph_that_ends_in_a_list_is_a_new_paragraph(
        where: Where) -> None:
    """Review F8: "Ties fail." was joined to the last list item ('- Bob Ties fail.')."""
    text = "Voters are:\n- Alice\n- Bob"
    check_edit(5, text, app("paragraph", where, "Ties fail."))
    assert edited_text(text, app("paragraph", where, "Ties fail.")) == text + "\n\nTies fail."


def test_a_rule_text_is_split_into_parts_once_not_once_per_check_and_making() -> None:
    """Review F3: each check and each making split a 64 KiB rule again (~10 ms a sentence edit).

    Two hundred edits of the same text, each checked and made, now split it once.
    """
    text = ("Each player (e.g. the Speaker) may vote. Ties fail! Votes count.\n" * 1100)[:65_000]
    started = time.perf_counter()
    for nth in range(1, 201):
        check_edit(5, text, rep("sentence", nth))
        edited_text(text, rep("sentence", nth))
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(("new", "after"), [
    ("Carol", "Voters are:\n- Alice\n- Carol"),
    ("* Carol", "Voters are:\n- Alice\n* Carol"),
])
def test_a_list_item_replaced_by_text_without_a_marker_keeps_its_marker(
        new: str, after: str) -> None:
    """Review F11: replacing the item "Bob" with "Carol" dropped its marker ('- Bob' -> 'Carol')."""
    text = "Voters are:\n- Alice\n- Bob"
    assert edited_text(text, rep("item", "Bob", new)) == after
