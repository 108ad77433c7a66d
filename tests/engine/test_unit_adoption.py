"""Edits of a rule's parts and retitlings through the game: proposed, shown, adopted, recorded."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from speakerbot.engine import chain
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import Refusal
from speakerbot.mail.outbound import lookups
from speakerbot.mail.outbound.compose import Renderer
from speakerbot.mail.outbound.diffs import clause_views
from speakerbot.mail.outbound.sentences import news_line
from speakerbot.mail.outbound.wording import clause_failure_text
from speakerbot.resources import templates_dir
from speakerbot.site.folding import read_games
from tests.engine import harness
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, SPEAKER
from tests.engine.harness import Game
from tests.engine.test_unit_edits import app, ins, rep

K = ClauseKind
RENDERER = Renderer(templates_dir())
LONG = ("Votes are cast by mail. A ballot names its proposal.\n\n"
        "The Speaker counts the votes. The count is public.\n\n"
        "A tie fails.")


@pytest.fixture(autouse=True)
def _forget_games() -> Iterator[None]:
    yield
    harness.ALL_GAMES.clear()


def at(rule: int, clause: Clause) -> Clause:
    """The clause, editing rule ``rule`` (the tables' clauses edit rule 5)."""
    return Clause(clause.kind, rule, clause.text, new=clause.new, unit=clause.unit,
                  anchor=clause.anchor, nth=clause.nth, position=clause.position)


def retitle(rule: int, title: str) -> Clause:
    return Clause(K.RETITLE, rule, title)


def game_with_long_rule(**mechanics: str) -> tuple[Game, int]:
    """A nomicam game whose Speaker enacted a rule of three paragraphs; and its number."""
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE], mechanics=mechanics or None)
    g.ok(c.EditRule(SPEAKER, Clause(K.ENACT, None, LONG, title="Voting")))
    return g, g.last(e.RuleEnacted).number


def adopt(g: Game, *clauses: Clause) -> int:
    number = g.propose(ALICE, *clauses, title="Edits")
    g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    g.later(timedelta(days=7))
    return number


def record(game: Game) -> list[dict[str, Any]]:
    return list(chain.extend(chain.Head(), (event_to_json(ev) for ev in game.events
                                            if ev.public)))


def test_edits_of_a_rules_paragraphs_are_shown_adopted_as_one_amendment_and_recorded() -> None:
    g, number = game_with_long_rule()
    edits = (at(number, rep("paragraph", "The Speaker counts", "The Judge counts the votes.")),
             at(number, app("paragraph", -1, "A second tie passes.")),
             at(number, ins("sentence", 1, "Ballots are sealed.", "after")))
    views = clause_views(edits, g.state)
    assert "- The Speaker counts the votes. The count is public." in str(views[0]["diff"])
    assert "+ The Judge counts the votes." in str(views[0]["diff"])
    assert "+ A tie fails. A second tie passes." in str(views[1]["diff"])
    proposal = adopt(g, *edits)
    amended = g.of(e.RuleAmended)
    assert len(amended) == 1 and amended[0].proposal == proposal
    assert g.state.rules[number].text == (
        "Votes are cast by mail. Ballots are sealed. A ballot names its proposal.\n\n"
        "The Judge counts the votes.\n\nA tie fails. A second tie passes.")
    assert g.state.rules[number].history[-1].previous_text == LONG
    g.check_replay()


def test_an_edit_of_a_part_not_there_is_refused_at_submission_and_fails_at_adoption() -> None:
    g, number = game_with_long_rule()
    g.refused(c.Propose(ALICE, "Gone", "", (at(number, rep("paragraph", "Nobody")),)),
              f'rule {number} has no paragraph beginning "Nobody"')
    g.refused(c.Propose(ALICE, "Far", "", (at(number, app("paragraph", 5, "x")),)),
              f"rule {number} has only 3 paragraphs")
    first = g.propose(ALICE, at(number, rep("paragraph", -1)), title="First")
    second = g.propose(BOB, at(number, app("paragraph", "A tie", "Or not.")), title="Second")
    for proposal in (first, second):
        g.votes(proposal, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    g.later(timedelta(days=7))
    failed = g.last(e.ClauseFailed)
    assert failed.proposal == second and failed.refusal is Refusal.UNIT_NOT_FOUND
    assert clause_failure_text(failed) == f'rule {number} has no paragraph beginning "A tie"'
    assert g.state.rules[number].text == LONG.rsplit("\n\n", 1)[0]


def test_an_enactment_with_a_title_gives_the_rule_its_title_and_stores_it_only_then() -> None:
    g, number = game_with_long_rule()
    enacted = g.last(e.RuleEnacted)
    assert enacted.title == "Voting" and g.state.rules[number].title == "Voting"
    assert event_to_json(enacted)["title"] == "Voting"
    assert read_games(record(g))[-1].rules[number].title == "Voting"
    assert event_from_json(event_to_json(enacted)) == enacted
    g.ok(c.EditRule(SPEAKER, Clause(K.ENACT, None, "Untitled.")))
    untitled = g.last(e.RuleEnacted)
    assert "title" not in event_to_json(untitled)
    assert event_from_json(event_to_json(untitled)) == untitled
    assert news_line(enacted, g.state).startswith(
        f"Rule {number} “Voting” enacted (mutable)")


def test_a_retitling_is_adopted_recorded_and_told_everywhere() -> None:
    g, number = game_with_long_rule()
    proposal = adopt(g, retitle(number, "  Casting\n votes "))
    retitled = g.last(e.RuleRetitled)
    assert (retitled.number, retitled.title, retitled.old_title) == (number, "Casting votes",
                                                                     "Voting")
    assert retitled.proposal == proposal and not g.of(e.RuleAmended)
    rule = g.state.rules[number]
    assert rule.title == "Casting votes" and rule.text == LONG
    assert (rule.history[-1].kind, rule.history[-1].note) == ("retitled", "Voting")
    assert news_line(retitled, g.state) == f"Rule {number} retitled “Casting votes”"
    shown = lookups.show_rule(RENDERER, g.state, number)
    assert f"- Retitled by proposal {proposal} (“Edits”), " in shown
    assert shown.startswith(f"Rule {number}: Casting votes (mutable)")
    assert "UTC, from “Voting”." in " ".join(shown.split())
    archived = read_games(record(g))[-1].rules[number]
    assert archived.title == "Casting votes"
    assert (archived.history[-1].kind, archived.history[-1].note) == ("retitled",
                                                                      "from “Voting”")
    assert event_from_json(event_to_json(retitled)) == retitled
    g.check_replay()


def test_a_retitling_is_refused_as_an_amendment_would_be() -> None:
    g, number = game_with_long_rule()
    g.refused(c.Propose(ALICE, "Immutable", "", (retitle(101, "Obey"),)),
              "rule 101 is immutable, so it cannot be amended")
    g.refused(c.Propose(ALICE, "Same", "", (retitle(number, "Voting "),)),
              "would make no difference")
    g.refused(c.Propose(ALICE, "Empty", "", (retitle(number, " \n"),)),
              f"the change to rule {number} has no text to retitle")
    g.refused(c.Propose(ALICE, "None", "", (retitle(999, "Gone"),)), "there is no rule 999")
    g.ok(c.EditRule(SPEAKER, retitle(101, "Obedience")))
    assert g.state.rules[101].title == "Obedience"
    assert g.state.rules[101].history[-1].by_speaker


def test_a_proposal_may_retitle_a_rule_it_edits_where_amendments_renumber() -> None:
    g, number = game_with_long_rule(renumber_on_amend="true")
    proposal = adopt(g, at(number, app("paragraph", -1, "Or not.")), retitle(number, "Ballots"))
    assert number not in g.state.rules and not g.of(e.ClauseFailed)
    rule = g.state.rules[proposal]
    assert rule.title == "Ballots" and rule.text.endswith("A tie fails. Or not.")
    assert [change.kind for change in rule.history][-2:] == ["retitled", "amended"]
    g.check_replay()


THREE = "One.\n\nTwo.\n\nThree."


def game_with(text: str) -> tuple[Game, int]:
    """A nomicam game whose Speaker enacted a rule of ``text``; and its number."""
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    g.ok(c.EditRule(SPEAKER, Clause(K.ENACT, None, text)))
    return g, g.last(e.RuleEnacted).number


@pytest.mark.parametrize("edits", [
    (rep("paragraph", 1), rep("paragraph", 2)),  # the second is "Three." once "One." is gone
    (ins("paragraph", 1, "Zero.", "before"), rep("paragraph", 1, "Nought.")),
    (ins("paragraph", -1, "Four.", "after"), app("paragraph", "Four", "And more.")),
])
def test_a_part_named_after_another_change_to_its_rule_is_refused_at_submission(
        edits: tuple[Clause, ...]) -> None:
    """Review F4: 'deleting the first paragraph and deleting the second' deleted One and Three."""
    g, number = game_with(THREE)
    rejected = g.refused(c.Propose(ALICE, "Two", "", tuple(at(number, edit) for edit in edits)),
                         f"the changes to rule {number} name a part by its place")
    assert rejected.refusal is Refusal.UNIT_AFTER_EDIT


def test_a_place_the_earlier_changes_leave_as_it_was_is_accepted() -> None:
    """Naming the last paragraph after a change to the first is no surprise: it is allowed."""
    g, number = game_with(THREE)
    adopt(g, at(number, rep("paragraph", "One", "Un.")), at(number, rep("paragraph", -1)))
    assert g.state.rules[number].text == "Un.\n\nTwo."


def test_a_part_named_after_another_change_fails_at_adoption_if_the_rules_moved() -> None:
    """At adoption the same check fails the later edit: the text is not edited silently."""
    g, number = game_with(THREE)
    first = g.propose(ALICE, at(number, rep("paragraph", "Two")), at(number, rep("paragraph", -1)),
                      title="First")  # "Three." is the last paragraph before and after
    g.ok(c.EditRule(SPEAKER, Clause(K.REPLACE, number, old="Two.\n\nThree.",
                                    new="Three.\n\nTwo.")))
    g.votes(first, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    g.later(timedelta(days=7))
    failed = g.last(e.ClauseFailed)
    assert failed.proposal == first and failed.refusal is Refusal.UNIT_AFTER_EDIT
    assert g.state.rules[number].text == "One.\n\nThree."
