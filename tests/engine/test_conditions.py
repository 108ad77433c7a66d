"""Clauses under a condition on another proposal's fate, settled from the record at adoption.

"If Proposal 301 passed, amend Rule 202 ...": carried out when 301 was adopted, withheld
(``ClauseWithheld``) when it was not, and left to the host when the record cannot tell.
"""

from __future__ import annotations

import json
from dataclasses import replace

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import replay
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.condition import Condition
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import Refusal
from speakerbot.mail.outbound.sentences import news_line
from tests.engine.cast import ALICE, BOB, CAROL
from tests.engine.harness import Game, amend

NEW_202 = "All players must always abide by all the rules then in effect."


def _game() -> Game:
    # Amended rules keep their numbers here, so that rule 202 is still 202 when 302 closes.
    g = Game("suber", [ALICE, BOB, CAROL], mechanics={"renumber_on_amend": "false"})
    g.dice.load(2, 3, 4, 5, 6, 1)
    return g


def _first(g: Game, *, adopted: bool, title: str = "Tea") -> None:
    """Proposal 301, by Alice, adopted or rejected."""
    g.ok(c.Propose(ALICE, title, "Tea for all.", (amend(201, "Players drink tea."),)))
    against = "FOR" if adopted else "AGAINST"
    g.votes(301, alice="FOR", bob=against, carol=against)


def _second(g: Game, condition: Condition) -> list[e.Event]:
    """Proposal 302, by Bob, amending rule 202 under ``condition``; adopted."""
    clause = replace(amend(202, NEW_202), condition=condition)
    g.ok(c.Propose(BOB, "Then", "If tea, then 202.", (clause,)))
    return g.votes(302, alice="FOR", bob="FOR", carol="FOR")


def test_a_clause_is_carried_out_when_the_proposal_it_names_was_adopted() -> None:
    g = _game()
    _first(g, adopted=True)
    closing = _second(g, Condition(301, True, "If Proposal 301 passed"))
    assert g.state.rules[202].text == NEW_202
    assert not g.of(e.ClauseWithheld, closing) and not g.of(e.ClauseFailed, closing)
    assert replay(g.events) == g.state


def test_a_clause_is_withheld_when_the_proposal_it_names_failed() -> None:
    g = _game()
    _first(g, adopted=False)
    before = g.state.rules[202].text
    closing = _second(g, Condition(301, True, "If Proposal 301 passed"))
    assert g.state.rules[202].text == before
    (withheld,) = g.of(e.ClauseWithheld, closing)
    assert (withheld.proposal, withheld.decided_by, withheld.fate) == (302, 301, "rejected")
    assert not g.of(e.HandWorkOpened, closing)  # nothing for the host: the condition said
    assert news_line(withheld, g.state) == (
        "Proposal 302: not carried out, as its condition says (proposal 301 was rejected): "
        "if proposal 301 was adopted, amend rule 202")
    assert replay(g.events) == g.state


def test_a_condition_on_failure_is_the_other_way_round() -> None:
    g = _game()
    _first(g, adopted=False)
    _second(g, Condition(301, False, "Unless Proposal 301 passed"))
    assert g.state.rules[202].text == NEW_202


def test_a_proposal_named_by_its_title_settles_the_condition() -> None:
    g = _game()
    _first(g, adopted=True, title="Tea  for All")
    _second(g, Condition(None, True, 'If the proposal titled "tea for all" passed',
                         title="tea for all"))
    assert g.state.rules[202].text == NEW_202


def test_a_condition_the_record_cannot_settle_is_left_to_the_host() -> None:
    g = _game()
    _first(g, adopted=True)
    closing = _second(g, Condition(399, True, "If Proposal 399 passed"))
    (failed,) = g.of(e.ClauseFailed, closing)
    assert failed.refusal is Refusal.CONDITION_UNSETTLED
    (item,) = g.of(e.HandWorkOpened, closing)
    assert item.words == "if proposal 399 was adopted, amend rule 202" and item.rules == (202,)
    assert "the proposal it names is not in the game's record" in news_line(failed, g.state)


def test_a_conditional_clause_is_checked_at_adoption_not_at_submission() -> None:
    # The text it replaces is one proposal 301 brings: at submission it is not in the rule.
    g = _game()
    g.ok(c.Propose(ALICE, "Tea", "", (amend(201, "Players drink tea."),)))
    edit = Clause(ClauseKind.REPLACE, 201, old="tea", new="coffee",
                  condition=Condition(301, True, "If Proposal 301 passed"))
    g.votes(301, alice="FOR", bob="FOR", carol="FOR")
    g.ok(c.Propose(BOB, "Coffee", "", (edit,)))
    g.votes(302, alice="FOR", bob="FOR", carol="FOR")
    assert g.state.rules[201].text == "Players drink coffee."


def test_a_condition_is_kept_in_the_record_and_read_back() -> None:
    clause = replace(amend(202, NEW_202), condition=Condition(None, False, "w", title="Tea"))
    g = _game()
    g.ok(c.Propose(ALICE, "Then", "", (clause,)))
    (submitted,) = g.of(e.ProposalSubmitted)
    stored = json.loads(json.dumps(event_to_json(submitted)))
    assert stored["clauses"][0]["condition"] == {
        "proposal": None, "adopted": False, "words": "w", "title": "Tea"}
    assert event_from_json(stored) == submitted
    plain = event_to_json(replace(submitted, clauses=(amend(202, NEW_202),)))
    assert "condition" not in plain["clauses"][0]  # an older kind of clause is stored as before
