"""Rule changes as players write them (REPLACE, APPEND, INSERT): checked, applied, undone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.edits import check_edit, edited_text, inserted_piece, spans
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import GameError, Refusal
from speakerbot.mail.outbound.wording import clause_failure_text, refusal_words
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, SPEAKER
from tests.engine.harness import Game, transmute

K = ClauseKind
FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def replace(rule: int, old: str, new: str, every: bool = False) -> Clause:
    return Clause(K.REPLACE, rule, old=old, new=new, every=every)


def append(rule: int, text: str) -> Clause:
    return Clause(K.APPEND, rule, text)


def insert(rule: int, text: str, position: str, anchor: str) -> Clause:
    return Clause(K.INSERT, rule, text, anchor=anchor, position=position)


RULE = "The period is one week. A week is seven days.\nEach player has one vote."

APPLIED = [
    (replace(1, "one week", "three days"),
     "The period is three days. A week is seven days.\nEach player has one vote."),
    (replace(1, "one", "two", every=True),
     "The period is two week. A week is seven days.\nEach player has two vote."),
    (replace(1, "A week is seven days.", ""),
     "The period is one week.\nEach player has one vote."),
    (replace(1, " A week is seven days.", ""),
     "The period is one week.\nEach player has one vote."),
    (replace(1, "one week", ""), "The period is. A week is seven days.\nEach player has one vote."),
    (replace(1, "days. Each", "days.\n\nEach"),  # found with its line break as any whitespace
     "The period is one week. A week is seven days.\n\nEach player has one vote."),
    # RULE is written a paragraph to a line (each line ends a sentence): a new one keeps its way
    (append(1, "  Votes are public.\n"), RULE + "\nVotes are public."),
    (insert(1, "at least", "before", "one week"),
     "The period is at least one week. A week is seven days.\nEach player has one vote."),
    (insert(1, ", or longer", "after", "one week"),
     "The period is one week, or longer. A week is seven days.\nEach player has one vote."),
    (insert(1, "Votes are public.", "after", "seven days."),
     "The period is one week. A week is seven days.\nVotes are public.\nEach player has one vote."),
    (insert(1, "ii) Votes are public.", "before", "Each player"),
     "The period is one week. A week is seven days.\nii) Votes are public.\nEach player has one "
     "vote."),
    (insert(1, "Truly,", "before", "The period"), "Truly,\n" + RULE),
]


@pytest.mark.parametrize(("clause", "expected"), APPLIED)
def test_each_kind_of_edit_gives_the_text_players_expect(clause: Clause, expected: str) -> None:
    check_edit(1, RULE, clause)
    assert edited_text(RULE, clause) == expected


REFUSED = [
    (replace(1, "two weeks", "three days"), Refusal.TEXT_NOT_FOUND,
     'rule 1 does not contain the text "two weeks"', "quote the words exactly as rule 1 reads"),
    (replace(1, "one", "two"), Refusal.TEXT_NOT_UNIQUE,
     'the text "one" stands 2 times in rule 1', '"every occurrence of"'),
    (replace(1, "  ", "x"), Refusal.NOTHING_TO_REPLACE,
     "the change to rule 1 does not say which text to replace", 'by replacing "old text"'),
    (replace(1, "one week", "one week"), Refusal.EDIT_NO_CHANGE,
     "the change to rule 1 would make no difference", ""),
    (append(1, " "), Refusal.NOTHING_TO_ADD, "the change to rule 1 has no text to append", ""),
    (insert(1, "", "after", "week"), Refusal.NOTHING_TO_ADD,
     "the change to rule 1 has no text to insert", ""),
    (insert(1, "x", "after", "fortnight"), Refusal.ANCHOR_NOT_FOUND,
     'rule 1 does not contain the text "fortnight" to insert next to', "quote the words"),
    (insert(1, "x", "before", "week"), Refusal.ANCHOR_NOT_UNIQUE,
     'the text "week" stands 2 times in rule 1, so it does not say where to insert',
     "quote more of the text"),
    (insert(1, "x", "after", ""), Refusal.ANCHOR_NOT_FOUND, 'the text ""', ""),
    (insert(1, "x", "inside", "one week"), Refusal.BAD_POSITION,
     "text can be inserted before or after other text, not 'inside'", ""),
]


@pytest.mark.parametrize(("clause", "refusal", "reason", "remedy"), REFUSED)
def test_an_edit_that_cannot_be_made_is_refused_with_a_reason_and_a_remedy(
        clause: Clause, refusal: Refusal, reason: str, remedy: str) -> None:
    with pytest.raises(GameError) as raised:
        check_edit(1, RULE, clause)
    assert raised.value.refusal is refusal
    said, told = refusal_words(raised.value.refusal, raised.value.facts)
    assert reason in said and remedy in told


# Issue 38: every occurrence is found, whatever white space it stands with, and a sentence
# inserted after the words that end a sentence goes after its full stop (Agora 8412, 8461,
# 8505).
BROKEN = "The card's associated ministry is named. Each card's associated\nministry is kept."
FOUND_EVERYWHERE = [
    (replace(1, "card's associated ministry", "card's ministry", every=True), BROKEN,
     "The card's ministry is named. Each card's ministry is kept."),
    (replace(1, "card's  associated ministry", "card's ministry", every=True), BROKEN,
     "The card's ministry is named. Each card's ministry is kept."),
    (replace(1, " or", "", every=True), "This or that, for x,\nor y", "This that, for x, y"),
    (insert(1, "It is also Oathbreaking.", "after", "states otherwise"),
     "N is 2 unless it states otherwise. A pledge ends.",
     "N is 2 unless it states otherwise. It is also Oathbreaking. A pledge ends."),
    (insert(1, "It is also Oathbreaking.", "after", "states otherwise"),
     "N is 2 unless it states otherwise.\nA pledge ends.",
     "N is 2 unless it states otherwise.\nIt is also Oathbreaking.\nA pledge ends."),
    (insert(1, "Truly!", "after", "it says \"no"), 'So it says "no." Then.',
     'So it says "no." Truly! Then.'),
    (insert(1, ", or longer", "after", "one week"), "It lasts one week. Ties fail.",
     "It lasts one week, or longer. Ties fail."),
    (insert(1, "and more", "after", "one week"), "It lasts one week.",
     "It lasts one week and more."),
]


@pytest.mark.parametrize(("clause", "rule", "expected"), FOUND_EVERYWHERE)
def test_every_occurrence_is_found_and_a_sentence_goes_after_the_stop(
        clause: Clause, rule: str, expected: str) -> None:
    check_edit(1, rule, clause)
    assert edited_text(rule, clause) == expected


NOT_UNIQUE = [
    (replace(1, "explicitly states otherwise", "says so"),
     "Unless it explicitly states otherwise. Or it explicitly\nstates otherwise.",
     Refusal.TEXT_NOT_UNIQUE),
    (insert(1, "Truly.", "after", "explicitly states otherwise"),
     "Unless it explicitly states otherwise. Or it explicitly\n  states otherwise.",
     Refusal.ANCHOR_NOT_UNIQUE),
]


@pytest.mark.parametrize(("clause", "rule", "refusal"), NOT_UNIQUE)
def test_a_text_standing_twice_once_across_a_line_break_is_not_unique(
        clause: Clause, rule: str, refusal: Refusal) -> None:
    with pytest.raises(GameError) as raised:
        check_edit(1, rule, clause)
    assert raised.value.refusal is refusal and raised.value.facts.count == 2


def test_a_long_quotation_is_cut_short_in_the_refusal() -> None:
    with pytest.raises(GameError) as raised:
        check_edit(1, RULE, replace(1, "word " * 40, "x"))
    said = refusal_words(raised.value.refusal, raised.value.facts)[0]
    assert said.startswith('rule 1 does not contain the text "word word') and "…" in said
    assert len(said) < 120


def test_each_edit_says_what_it_does() -> None:
    assert replace(205, "a", "b").describe() == "replace text in rule 205"
    assert replace(205, "a", "b", every=True).describe() == (
        "replace every occurrence of text in rule 205")
    assert replace(205, "a", "").describe() == "delete text in rule 205"
    assert append(205, "a").describe() == "append text to rule 205"
    assert insert(205, "a", "before", "b").describe() == "insert text before other text in rule 205"


# --- through the engine ---


def adopt(g: Game, *clauses: Clause) -> int:
    number = g.propose(ALICE, *clauses, title="An edit")
    g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    g.later(timedelta(days=7))
    return number


def test_a_replacement_is_proposed_adopted_and_recorded_in_the_rule_history() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    before = g.state.rules[205].text
    number = adopt(g, replace(205, "one week", "three days"))
    amended = g.last(e.RuleAmended)
    assert amended.proposal == number and amended.number == 205
    rule = g.state.rules[amended.new_number]
    assert rule.text == before.replace("one week", "three days")
    assert rule.history[-1].kind == "amended" and rule.history[-1].previous_text == before
    assert rule.history[-1].proposal == number


def test_appending_and_inserting_are_adopted_like_amendments() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    before = g.state.rules[206].text
    adopt(g, append(206, "Ballots are sealed."))
    first = g.last(e.RuleAmended)
    assert g.state.rules[first.new_number].text == before + "\n\nBallots are sealed."
    adopt(g, insert(first.new_number, "truly", "after", "Each Voter"))
    second = g.last(e.RuleAmended)
    assert "Each Voter truly has" in g.state.rules[second.new_number].text


def test_an_edit_is_refused_at_submission_and_fails_at_adoption_if_the_text_went() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    g.refused(c.Propose(ALICE, "Typo", "", (replace(205, "one weak", "two days"),)),
              'rule 205 does not contain the text "one weak"')
    g.refused(c.Propose(ALICE, "Twice", "", (replace(205, "the", "a"),)),
              "stands 4 times in rule 205")
    first = g.propose(ALICE, replace(205, "one week", "two days"), title="First")
    second = g.propose(BOB, insert(205, "at least", "before", "one week"), title="Second")
    for number in (first, second):
        g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    g.later(timedelta(days=7))
    failed = g.last(e.ClauseFailed)
    assert failed.proposal == second and failed.refusal is Refusal.ANCHOR_NOT_FOUND
    assert clause_failure_text(failed).startswith('rule 205 does not contain the text "one week"')


def test_an_immutable_rule_is_not_edited_by_proposal_but_may_be_by_the_speaker() -> None:
    g = Game("nomicam", [ALICE, BOB])
    for clause in (replace(101, "all the rules", "the rules"), append(101, "And more."),
                   insert(101, "always", "before", "abide")):
        g.refused(c.Propose(ALICE, "Immutable", "", (clause,)),
                  "rule 101 is immutable, so it cannot be amended",
                  "propose TRANSMUTE RULE 101, and once that is adopted, AMEND RULE 101")
    g.ok(c.EditRule(SPEAKER, append(101, "Edited by the Speaker.")))
    assert g.state.rules[101].text.endswith("(mutable).\n\nEdited by the Speaker.")
    g.refused(c.EditRule(SPEAKER, append(999, "x")), "there is no rule 999 in effect")


def test_an_edit_renumbers_the_rule_where_amendments_do_and_counts_as_its_number() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE], mechanics={"renumber_on_amend": "true"})
    g.refused(c.Propose(ALICE, "Two", "", (append(205, "x"), transmute(102))),
              "would give 2 rules the number")
    number = adopt(g, replace(206, "one vote", "two votes"))
    assert 206 not in g.state.rules and "two votes" in g.state.rules[number].text
    assert g.state.rules[number].history[-1].previous_number == 206


# --- properties: an edit and its inverse give the rule back ---

_WORDS = st.sampled_from(["one", "week", "days", "the", "rule", "vote", "Each", "player", "a",
                          "period", "is", "seven", "(i)", "x", "points."])


@st.composite
def texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.lists(_WORDS, min_size=1, max_size=8), min_size=1, max_size=4))
    return "\n".join(" ".join(words) for words in lines)


@st.composite
def phrases(draw: st.DrawFn) -> str:
    return " ".join(draw(st.lists(_WORDS, min_size=1, max_size=3)))


def _standing(text: str, piece: str) -> int:
    """Count where ``piece`` starts in ``text``, overlapping occurrences included."""
    return sum(text.startswith(piece, i) for i in range(len(text)))


@FAST
@given(texts(), phrases(), st.data())
def test_replacing_then_replacing_back_restores_the_rule(
        text: str, new: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    old = text[start:data.draw(st.integers(start + 1, len(text)))]
    assume(old.strip() and _standing(text, old) == 1 and old != new)
    changed = edited_text(text, replace(0, old, new))
    assume(_standing(changed, new) == 1)
    assert edited_text(changed, replace(0, new, old)) == text


@FAST
@given(texts(), phrases())
def test_appending_then_deleting_the_paragraph_restores_the_rule(text: str, added: str) -> None:
    changed = edited_text(text, append(0, added))
    assert changed.startswith(text) and changed.endswith(added)
    assume(_standing(changed, "\n\n" + added) == 1)
    assert edited_text(changed, replace(0, "\n\n" + added, "")) == text


@FAST
@given(texts(), phrases(), st.sampled_from(["before", "after"]), st.data())
def test_inserting_then_deleting_the_insertion_restores_the_rule(
        text: str, added: str, position: str, data: st.DataObject) -> None:
    words = text.split()
    size = data.draw(st.integers(1, min(3, len(words))))
    first = data.draw(st.integers(0, len(words) - size))
    anchor = " ".join(words[first:first + size])
    assume(len(spans(text, anchor)) == 1)
    start, end = spans(text, anchor)[0]
    piece = inserted_piece(text, start if position == "before" else end, added, position)
    changed = edited_text(text, insert(0, added, position, anchor))
    assert added in piece and len(changed) == len(text) + len(piece)
    assume(_standing(changed, piece) == 1)
    assert edited_text(changed, replace(0, piece, "")) == text


@FAST
@given(texts(), phrases(), phrases(), st.booleans())
def test_checking_an_edit_never_fails_but_with_a_refusal(
        text: str, old: str, new: str, every: bool) -> None:
    for clause in (replace(0, old, new, every), insert(0, new, "after", old), append(0, new)):
        try:
            check_edit(0, text, clause)
        except GameError as error:
            assert refusal_words(error.refusal, error.facts)[0]


def test_a_transmutation_to_the_state_a_rule_has_is_refused_and_to_the_other_adopted() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    assert g.state.rules[101].mutable is False and g.state.rules[201].mutable is True
    g.refused(c.Propose(ALICE, "No-op", "", (Clause(ClauseKind.TRANSMUTE, 101, "immutable"),)),
              "rule 101 is immutable already, so it cannot be transmuted to immutable",
              "leave that change out of the proposal")
    g.refused(c.Propose(ALICE, "No-op", "", (Clause(ClauseKind.TRANSMUTE, 201, "mutable"),)),
              "rule 201 is mutable already")
    adopt(g, Clause(ClauseKind.TRANSMUTE, 101, "mutable"))
    transmuted = g.last(e.RuleTransmuted)
    assert transmuted.number == 101 and g.state.rules[transmuted.new_number].mutable


def test_several_edits_of_one_rule_are_checked_in_turn_and_adopted_as_one_amendment() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    before = g.state.rules[205].text
    # The second edit needs the first: "three days" stands only once the first is made.
    number = adopt(g, replace(205, "one week", "three days"),
                   insert(205, " calendar", "after", "three"),
                   append(205, "Votes may be changed."))
    amended = [event for event in g.events if isinstance(event, e.RuleAmended)
               and event.proposal == number]
    assert len(amended) == 1 and not g.of(e.ClauseFailed)
    rule = g.state.rules[amended[0].new_number]
    assert rule.text == (before.replace("one week", "three calendar days")
                         + "\n\nVotes may be changed.")
    assert [change.kind for change in rule.history][-1] == "amended"
    assert rule.history[-1].previous_text == before


def test_an_edit_that_does_not_fit_the_text_the_others_leave_is_refused() -> None:
    g = Game("nomicam", [ALICE, BOB])
    g.refused(c.Propose(ALICE, "Two", "", (replace(205, "one week", "three days"),
                                           replace(205, "one week", "two days"))),
              'rule 205 does not contain the text "one week"')
    # Other changes of a rule an edit changes are still one clause too many.
    g.refused(c.Propose(ALICE, "Mixed", "", (replace(205, "one week", "three days"),
                                             transmute(205))),
              "rule 205 is changed by two clauses")


def test_an_edit_of_several_that_no_longer_fits_at_adoption_fails_alone() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    second = g.propose(BOB, replace(205, "one week", "ten days"),
                       append(205, "Votes may be changed."), title="Second")
    # Meanwhile the Speaker changes the words the first edit quotes (keeping the number).
    g.ok(c.EditRule(SPEAKER, replace(205, "one week", "two days")))
    g.votes(second, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    g.later(timedelta(days=7))
    failed = [event for event in g.events if isinstance(event, e.ClauseFailed)]
    assert [event.clause.kind for event in failed] == [ClauseKind.REPLACE]
    assert failed[0].proposal == second
    last = g.last(e.RuleAmended)
    assert last.proposal == second
    text = g.state.rules[last.new_number].text
    assert "two days" in text and text.endswith("Votes may be changed.")
