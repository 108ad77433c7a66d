"""The ``numbering`` mechanic: the number a new rule takes (issue 38).

``proposal`` (every preset's): the proposal's number, so a proposal may enact one rule and
a second is refused (``one-number-per-proposal``). ``next``: one more than the highest rule
number ever used in the game, in effect or not, each new rule in the order the proposal
lists them, as Agora numbers its rules.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.mechanics import PARAMETERS, Mechanics, Numbering, parse_setting
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import Refusal
from speakerbot.presets import PRESET_NAMES, load_preset
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, SPEAKER
from tests.engine.harness import Game, amend, enact, repeal, set_

NEXT = {"numbering": "next"}


def adopt(g: Game, *clauses: Clause) -> tuple[int, list[e.Event]]:
    """Alice proposes ``clauses`` in nomicam; all four vote FOR and the week passes."""
    number = g.propose(ALICE, *clauses, title="New rules")
    g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    events = g.later(timedelta(days=7))
    assert g.of(e.VoteClosed, events)[0].adopted
    return number, events


def test_three_rules_enacted_by_one_proposal_take_the_next_numbers_in_order() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE], mechanics=NEXT)
    highest = max(g.state.rules)
    number, events = adopt(g, enact("First."), enact("Second.", immutable=True),
                           enact("Third."))
    enacted = g.of(e.RuleEnacted, events)
    assert [(rule.number, rule.text) for rule in enacted] == [
        (highest + 1, "First."), (highest + 2, "Second."), (highest + 3, "Third.")]
    assert all(rule.proposal == number for rule in enacted)
    assert [g.state.rules[highest + n].mutable for n in (1, 2, 3)] == [True, False, True]
    assert number not in g.state.rules


def test_under_proposal_numbering_a_second_enactment_is_still_refused() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    rejected = g.refused(c.Propose(ALICE, "Two", "", (enact("A."), enact("B."), enact("C."))),
                         "would give 3 rules the number 301")
    assert rejected.refusal is Refusal.ONE_NUMBER_PER_PROPOSAL
    number, events = adopt(g, enact("Alone."))
    assert [rule.number for rule in g.of(e.RuleEnacted, events)] == [number]


def test_a_number_once_used_is_never_given_again() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE], mechanics=NEXT)
    highest = max(g.state.rules)
    adopt(g, enact("Short-lived."))
    _, events = adopt(g, repeal(highest + 1), enact("Its successor."))
    assert highest + 1 not in g.state.rules
    assert [rule.number for rule in g.of(e.RuleEnacted, events)] == [highest + 2]


def test_a_renumbered_rule_still_counts_as_the_proposals_number_under_next() -> None:
    """Amendments that renumber take the proposal's number: one per proposal, as before.

    The new rules come after it (the amendment is the proposal's first clause), and a later
    proposal whose number a new rule holds cannot renumber a rule to it: refused as taken.
    """
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE],
             mechanics={**NEXT, "renumber_on_amend": "true"})
    g.refused(c.Propose(ALICE, "Two", "", (amend(205, "A."), amend(206, "B."))),
              "would give 2 rules the number")
    number, events = adopt(g, amend(205, "Votes last a week."), enact("One."), enact("Two."))
    assert number in g.state.rules and 205 not in g.state.rules
    assert [rule.number for rule in g.of(e.RuleEnacted, events)] == [number + 1, number + 2]
    assert g.state.next_proposal == number + 1
    g.refused(c.Propose(ALICE, "Renumber", "", (amend(206, "B."),)),
              f"there is already a rule {number + 1}")


def test_the_speaker_enacts_directly_under_the_same_numbering() -> None:
    g = Game("nomicam", [ALICE, BOB], mechanics=NEXT)
    highest = max(g.state.rules)
    events = g.ok(c.EditRule(SPEAKER, enact("By the Speaker.")))
    assert [rule.number for rule in g.of(e.RuleEnacted, events)] == [highest + 1]
    named = Clause(ClauseKind.ENACT, 250, "Numbered by the Speaker.")
    events = g.ok(c.EditRule(SPEAKER, named))
    assert [rule.number for rule in g.of(e.RuleEnacted, events)] == [250]


def test_a_proposal_may_set_the_numbering_and_later_proposals_follow_it() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    adopt(g, set_("numbering", "next"))
    assert g.state.rules_mechanics.numbering is Numbering.NEXT
    highest = max(g.state.rules)
    _, events = adopt(g, enact("A."), enact("B."))
    assert [rule.number for rule in g.of(e.RuleEnacted, events)] == [highest + 1, highest + 2]


@pytest.mark.parametrize(("written", "value"), [("proposal", Numbering.PROPOSAL),
                                                ("next", Numbering.NEXT),
                                                ("NEXT", Numbering.NEXT)])
def test_the_mechanic_reads_its_two_values(written: str, value: Numbering) -> None:
    assert parse_setting("numbering", written) == ("numbering", value)
    assert PARAMETERS["numbering"].format(value) == value.value


@pytest.mark.parametrize("written", ["", "highest", "agora", "1"])
def test_any_other_value_is_refused_saying_what_is_allowed(written: str) -> None:
    with pytest.raises(ValueError, match="numbering: expected one of proposal, next"):
        parse_setting("numbering", written)


def test_a_bad_value_is_refused_when_proposed() -> None:
    g = Game("nomicam", [ALICE, BOB])
    g.refused(c.Propose(ALICE, "T", "", (set_("numbering", "highest"),)),
              "expected one of proposal, next")


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_numbers_by_proposal(name: str) -> None:
    preset = load_preset(name)
    assert preset.mechanics["numbering"] == "proposal"
    assert Mechanics.from_strings(preset.mechanics).numbering is Numbering.PROPOSAL


def test_a_record_without_the_mechanic_numbers_by_proposal_and_encodes_as_before() -> None:
    """A game recorded before ``numbering`` existed replays as it was played."""
    started = Game("nomicam").of(e.GameStarted)[0]
    written = event_to_json(started)
    assert "numbering" not in written["mechanics"]
    assert event_from_json(written) == started
    chosen = Game("nomicam", mechanics=NEXT).of(e.GameStarted)[0]
    assert event_to_json(chosen)["mechanics"]["numbering"] == "next"
    assert event_from_json(event_to_json(chosen)) == chosen
