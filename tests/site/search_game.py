"""A scripted game for the archive's search: a rule amended twice, a CFJ judged."""

from __future__ import annotations

from datetime import timedelta

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.model import Judgement
from tests.engine.cast import ALICE, BOB, CAROL
from tests.engine.harness import Game, amend

FIRST = "All players begin with 0 points. Points may be bartered for marmalade."
SECOND = "All players begin with 0 points. Points may be swapped for xylophones."
TITLE = "Wombats of Quorum"
STATEMENT = "Alice may juggle heliotropes."
REASONS = "The periwinkle clause says so."


def search_game(ballots_on_open: bool = False) -> Game:
    """Play a nomicam game whose rule 202 is amended twice, with a CFJ and an open proposal.

    With ``ballots_on_open``, the last (open) proposal has ballots; the archive must not
    tell.
    """
    game = Game("nomicam", [ALICE, BOB, CAROL], mechanics={"voting_period": "1h"})
    for title, text in ((TITLE, FIRST), ("Swap", SECOND)):
        number = game.propose(ALICE, amend(202, text), title=title,
                              text="AMEND RULE 202 as below.")
        game.votes(number, alice="FOR", bob="FOR", carol="FOR")
        game.later(timedelta(hours=1, minutes=1))
    game.ok(c.CallForJudgement(BOB, STATEMENT, "Rule 202 mentions sundials.", False))
    cfj = game.last(e.CfjCalled).number
    game.ok(c.DeliverJudgement(game.last(e.JudgeAssigned).judge, cfj, Judgement.TRUE,
                               REASONS))
    number = game.propose(BOB, amend(203, "Rule 203 concerns tangerines."),
                          title="Tangerine time", text="Still open.")
    if ballots_on_open:
        game.votes(number, alice="FOR", bob="AGAINST", carol="FOR")
    game.later(timedelta(minutes=5))
    return game
