"""A rule named by its title alone, through the GameService fed raw email (issue 38).

Intake reads a message with no rules at hand; applied to the game, a proposal that names a
rule only by its title is read again with the rules in effect, so that the change is that
rule's (distributed, and carried out on adoption), or quoted back naming the candidates.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from speakerbot.engine.model import ClauseKind
from tests.support.mailgame import ALICE, BOB, CAROL, MailGame, MakeMailGame, mail_games


@pytest.fixture
def make_game(tmp_path: Path) -> Iterator[MakeMailGame]:
    with mail_games(tmp_path) as make:
        yield make


def adopt(game: MailGame, number: int) -> None:
    """Have every player vote for proposal ``number``, and its vote close."""
    for voter in (ALICE, BOB, CAROL):
        game.send(voter, "vote", f"VOTE {number} FOR\n")
    game.clock.now += timedelta(days=8)
    game.service.tick()
    assert game.service.state().proposals[number].status.value == "adopted"


def enact_titled(game: MailGame, title: str, text: str) -> int:
    """Have a rule titled ``title`` enacted; return its number."""
    before = set(game.service.state().rules)
    game.send(ALICE, f"PROPOSE: Enact {title}", f'Enact a new rule titled "{title}": {text}\n')
    adopt(game, max(game.service.state().proposals))
    (number,) = set(game.service.state().rules) - before
    assert game.service.state().rules[number].title == title
    return number


def test_a_rule_named_by_its_title_alone_is_amended(make_game: MakeMailGame) -> None:
    game = make_game()
    tea = enact_titled(game, "Tea", "Tea is served at every vote.")
    game.send(BOB, "PROPOSE: Meetings",
              'Amend the rule entitled "tea" by replacing "every vote" with "every meeting".\n')
    number = max(game.service.state().proposals)
    proposal = game.service.state().proposals[number]
    assert [(clause.kind, clause.rule) for clause in proposal.clauses] == [
        (ClauseKind.REPLACE, tea)]
    adopt(game, number)
    assert game.service.state().rules[tea].text == "Tea is served at every meeting."


def test_a_title_that_names_no_one_rule_is_quoted_back_naming_the_candidates(
        make_game: MakeMailGame) -> None:
    game = make_game()
    first = enact_titled(game, "Tea", "Tea is served.")
    second = enact_titled(game, "TEA", "Tea is hot.")
    sent = game.send(BOB, "PROPOSE: Which tea",
                     'Repeal the rule "Tea".\nRepeal the rule "Coffee".\n')
    number = max(game.service.state().proposals)
    assert game.service.state().proposals[number].clauses == ()
    (reply,) = game.replies_to(sent.message_id)
    body = " ".join(reply.body.split())
    assert (f'Repeal the rule "Tea". [rules {min(first, second)} and {max(first, second)} '
            "are titled “Tea”: which one is meant?]") in body
    assert 'Repeal the rule "Coffee". [no rule in effect is titled “Coffee”]' in body
