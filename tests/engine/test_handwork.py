"""The host's hand work: each part of an adopted proposal left undone is an open item.

Opened at the close of an adopted vote only (from the lines left to the host when it was
proposed, each failed clause, an informal proposal, each mechanic left to the host), closed
by ADMIN DONE's command or by the Speaker's direct edit of a rule an item names.
"""

from __future__ import annotations

import json

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import replay
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.handwork import rules_named
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import Refusal
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import Game, amend, enact, repeal

UNCLEAR = ("Rule 205 is amended to say that ballots are secret.",
           "The Speaker shall sing at every close.")


def _game() -> Game:
    g = Game("suber", [ALICE, BOB, CAROL])
    g.dice.load(2, 3, 4)
    return g


def _adopted(g: Game, command: c.Propose) -> tuple[int, list[e.Event]]:
    submitted = g.of(e.ProposalSubmitted, g.ok(command))
    number = submitted[0].number
    return number, g.votes(number, alice="FOR", bob="FOR", carol="FOR")


def test_lines_left_to_the_host_become_items_only_when_adopted() -> None:
    g = _game()
    events = g.ok(c.Propose(ALICE, "Sing", "Text.", (enact("Players may sing."),), UNCLEAR))
    assert not g.of(e.HandWorkOpened, events) and not g.state.handwork  # sealed till closed
    assert g.of(e.ProposalSubmitted, events)[0].unclear == UNCLEAR
    closing = g.votes(301, alice="FOR", bob="FOR", carol="FOR")
    opened = g.of(e.HandWorkOpened, closing)
    assert [(ev.item, ev.proposal, ev.words, ev.rules) for ev in opened] == [
        (1, 301, UNCLEAR[0], (205,)), (2, 301, UNCLEAR[1], ())]
    assert sorted(g.state.handwork) == [1, 2] and g.state.next_handwork == 3
    assert replay(g.events) == g.state


def test_a_rejected_proposal_leaves_nothing_to_the_host() -> None:
    g = _game()
    g.ok(c.Propose(ALICE, "Sing", "Text.", (), UNCLEAR))
    closing = g.votes(301, alice="FOR", bob="AGAINST", carol="FOR")
    assert not g.of(e.HandWorkOpened, closing) and not g.state.handwork


def test_an_informal_proposal_is_one_item_naming_the_rules_its_text_names() -> None:
    g = _game()
    _, closing = _adopted(g, c.Propose(ALICE, "Tea", "Rules 101 and 102 say tea."))
    (opened,) = g.of(e.HandWorkOpened, closing)
    assert (opened.words, opened.rules) == ("Tea", (101, 102))
    assert closing.index(opened) > closing.index(g.last(e.InformalProposalAdopted))


def test_a_failed_clause_is_an_item_and_the_speakers_edit_of_its_rule_closes_it() -> None:
    g = _game()
    g.ok(c.Propose(ALICE, "Edit", "", (amend(201, "Turns are long."),)))
    g.ok(c.EditRule(SPEAKER, Clause(ClauseKind.REPEAL, 201, "")))  # the clause now fails
    closing = g.votes(301, alice="FOR", bob="FOR", carol="FOR")
    (opened,) = g.of(e.HandWorkOpened, closing)
    assert g.of(e.ClauseFailed, closing) and opened.rules == (201,)
    assert opened.words == "amend rule 201"
    events = g.ok(c.EditRule(SPEAKER, Clause(ClauseKind.ENACT, 201, "Turns are long.")))
    (done,) = g.of(e.HandWorkDone, events)
    assert (done.item, done.how) == (opened.item, "edit") and not g.state.handwork
    assert replay(g.events) == g.state


def test_an_item_follows_its_rule_when_a_later_proposal_renumbers_it() -> None:
    # Suber renumbers an amended rule to its proposal's number: rule 205 becomes rule 302.
    g = _game()
    _adopted(g, c.Propose(ALICE, "Sing", "Text.", (enact("Players may sing."),), UNCLEAR[:1]))
    assert g.state.handwork[1].rules == (205,)
    g.ok(c.Propose(BOB, "Renumber", "", (amend(205, "Votes are secret."),)))
    g.votes(302, alice="FOR", bob="FOR", carol="FOR")
    assert 302 in g.state.rules and 205 not in g.state.rules
    assert g.state.handwork[1].rules == (302,)
    assert replay(g.events) == g.state
    (done,) = g.of(e.HandWorkDone, g.ok(c.EditRule(SPEAKER, amend(302, "Ballots are secret."))))
    assert done.item == 1 and not g.state.handwork


def test_the_speaker_closes_an_item_by_hand_and_only_an_open_one() -> None:
    g = _game()
    _adopted(g, c.Propose(ALICE, "Sing", "Text.", (enact("Players may sing."),), UNCLEAR))
    (done,) = g.of(e.HandWorkDone, g.ok(c.CloseHandWork(SPEAKER, 2, "  sung  by hand ")))
    assert (done.item, done.how, done.reason) == (2, "done", "sung by hand")
    assert list(g.state.handwork) == [1]
    assert g.refused(c.CloseHandWork(SPEAKER, 2)).refusal is Refusal.NO_SUCH_HANDWORK
    assert g.refused(c.CloseHandWork(ALICE, 1)).refusal is Refusal.NOT_SPEAKER
    # An edit of a rule no item names closes nothing.
    assert not g.of(e.HandWorkDone, g.ok(c.EditRule(SPEAKER, repeal(202))))
    assert list(g.state.handwork) == [1]


@pytest.mark.parametrize(("words", "rules"), [
    ("Rule 205 is amended", (205,)),
    ("rules 105 and 106, and RULE 7", (105, 106, 7)),
    ("rules 3, 4 or 5; rule 3 again", (3, 4, 5)),
    ("The ruler of 2026", ()),
    ("no rule here: 205", ()),
])
def test_the_rules_an_item_names(words: str, rules: tuple[int, ...]) -> None:
    assert rules_named(words) == rules


def test_a_proposal_without_unclear_lines_is_stored_as_before_and_one_with_them_keeps_them(
) -> None:
    g = _game()
    plain = g.of(e.ProposalSubmitted, g.ok(c.Propose(ALICE, "Sing", "Text.")))[0]
    assert "unclear" not in event_to_json(plain)
    kept = e.ProposalSubmitted(plain.at, 302, "T", "x", (), ALICE, None, 3, None,
                               unclear=UNCLEAR)
    data = json.loads(json.dumps(event_to_json(kept)))
    assert data["unclear"] == list(UNCLEAR) and event_from_json(data) == kept
    opened = e.HandWorkOpened(plain.at, 1, 301, "w", (205,))
    done = e.HandWorkDone(plain.at, 1, "done", "")
    for event in (opened, done):
        assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event
    assert list(event_to_json(opened)) == ["type", "at", "item", "proposal", "words", "rules"]
    assert list(event_to_json(done)) == ["type", "at", "item", "how", "reason"]


def test_a_revision_replaces_the_lines_left_to_the_host() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], mechanics={"debate": "proponent"})
    g.dice.load(2)
    g.ok(c.Propose(ALICE, "Sing", "Text.", (enact("Players may sing."),), UNCLEAR))
    revised = g.ok(c.ReviseProposal(ALICE, 301, "Text again.", (enact("Players may sing."),),
                                    UNCLEAR[1:]))
    assert g.of(e.ProposalRevised, revised)[0].unclear == UNCLEAR[1:]
    g.ok(c.CallVote(ALICE, 301))
    closing = g.votes(301, alice="FOR", bob="FOR", carol="FOR")
    assert [ev.words for ev in g.of(e.HandWorkOpened, closing)] == [UNCLEAR[1]]
    assert replay(g.events) == g.state
