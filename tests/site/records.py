"""Public records of scripted games, played on the engine, as the site reads them."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from speakerbot.engine import chain
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_to_json
from speakerbot.engine.model import Judgement
from tests.engine.harness import ALICE, BOB, CAROL, SPEAKER, Game, amend, enact, repeal

SALT = "0123456789abcdef0123456789abcdef"


def public_lines(games: Iterable[tuple[str, Game]], *,
                 salts: bool = True) -> list[dict[str, Any]]:
    """Chain the public events of ``games`` (one after the other) as the service does.

    Each game gets its id; with ``salts``, each close carries a salt per counted ballot,
    as ``VoteClosed.salts`` does.
    """
    data: list[dict[str, Any]] = []
    for game_id, game in games:
        for event in game.events:
            if not event.public:
                continue
            item = event_to_json(event)
            if isinstance(event, e.GameStarted):
                item["game_id"] = game_id
            if isinstance(event, e.VoteClosed) and salts and "salts" not in item:
                item["salts"] = [[voter, f"{SALT[:-2]}{n:02d}"]
                                 for n, (voter, _) in enumerate(event.ballots)]
            data.append(item)
    return list(chain.extend(chain.Head(), data))


def nomicam_game(proposals: int = 3) -> Game:
    """A nomicam game: three players, amendments, an enactment, a repeal, a CFJ."""
    game = Game("nomicam", [ALICE, BOB, CAROL], mechanics={"voting_period": "1h"})
    texts = {202: "All players begin with 0 points. Points may be traded.",
             203: None}
    first = game.propose(ALICE, amend(202, str(texts[202])), title="Points may be traded",
                         text="AMEND RULE 202 as below.\n<script>alert(1)</script>")
    game.votes(first, alice="FOR", bob="FOR", carol="AGAINST")
    game.later(timedelta(hours=1, minutes=1))
    second = game.propose(BOB, enact("Players may sing."), repeal(213), title="Sing")
    game.votes(second, alice="FOR", bob="AGAINST", carol="AGAINST")
    game.later(timedelta(hours=1, minutes=1))
    for n in range(proposals - 2):
        number = game.propose(CAROL, enact(f"Rule number {n}."), title=f"More {n}")
        game.votes(number, alice="FOR", bob="FOR", carol="FOR")
        game.later(timedelta(hours=1, minutes=1))
    game.ok(c.CallForJudgement(BOB, "Alice may sing.", "Rule 301 says so.", False))
    cfj = game.last(e.CfjCalled).number
    judge = game.last(e.JudgeAssigned).judge
    game.ok(c.DeliverJudgement(judge, cfj, Judgement.TRUE, "It says so."))
    game.propose(ALICE, amend(205, "Rule 205, amended."), title="Still open")
    assert SPEAKER
    return game
