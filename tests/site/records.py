"""Public records of scripted games, played on the engine, as the site reads them."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal
from typing import Any

from speakerbot.engine import chain
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_to_json
from speakerbot.engine.model import Choice, Judgement
from speakerbot.presets import load_preset
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import DirectGame, Game, amend, enact, repeal, transmute

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


def long_game(rounds: int = 24) -> Game:
    """A nomicam game of ``rounds`` proposals that goes through every kind of page.

    Rules enacted, amended, repealed and transmuted; CFJs called and judged; players
    joining, forfeiting and one coming back under another name; a score adjusted; a win,
    which begins the next game of the same rules. Draws are made with committed seeds.
    """
    game = Game("nomicam", [ALICE, BOB, CAROL], provable=True,
                mechanics={"voting_period": "1h", "win_points": "60"})
    joined: list[str] = []
    for n in range(rounds):
        mutable = sorted(rule.number for rule in game.state.rules.values() if rule.mutable)
        clause = (enact(f"New rule {n}: players may do thing {n}.") if n % 4 == 0 or len(
            mutable) < 4 else amend(mutable[n % len(mutable)], f"Amended in round {n}.\nAgain.")
            if n % 4 == 1 else repeal(mutable[-1]) if n % 4 == 2 else transmute(mutable[0]))
        number = game.propose((ALICE, BOB, CAROL)[n % 3], clause, title=f"Round {n}")
        for voter in (ALICE, BOB, CAROL, *joined):
            # The Speaker (a winner may become it) and those who left are refused: no matter.
            game.send(c.CastBallot(voter, number, Choice.AGAINST if voter == BOB and n % 5 == 0
                                   else Choice.FOR))
        game.later(timedelta(hours=1, minutes=1))
        if n % 6 == 2:
            game.ok(c.CallForJudgement(BOB, f"Statement {n}.", "Arguments.", False))
            judge = game.last(e.JudgeAssigned).judge
            game.ok(c.DeliverJudgement(judge, game.last(e.CfjCalled).number, Judgement.TRUE,
                                       "Reasons."))
        if n % 5 == 3:
            joined.append(f"joiner{n}@example.org")
            game.ok(c.Join(joined[-1], f"Joiner {n}"))
        if n % 7 == 6 and joined and game.state.players[joined[-1]].active:
            game.ok(c.Forfeit(joined[-1]))
            if n == 20:
                game.ok(c.AddPlayer(SPEAKER, joined[-1], "Back Again"))
        if n % 8 == 5:
            game.ok(c.AdjustScore(SPEAKER, ALICE, Decimal(3), "a gift"))
    return game


def voted_record(proposals: int, players: int = 5) -> list[dict[str, Any]]:
    """The public record of a nomicam game of ``proposals``, each voted on and closed.

    Played on the engine directly (no harness checks), to be long and quick: every
    proposal amends or enacts a rule, and every player votes.
    """
    game = DirectGame(5)
    game.run(c.StartGame(SPEAKER, load_preset("nomicam"), "Speaker", game_id="long",
                         mechanics={"win_points": "1000000", "voting_period": "1h"}))
    voters = [f"p{n}@example.org" for n in range(players)]
    for n, voter in enumerate(voters):
        game.run(c.AddPlayer(SPEAKER, voter, f"Player {n}"))
    for n in range(proposals):
        # Only rules of its own are amended: an initial one may set a mechanic.
        own = [rule for rule in game.state.rules.values() if rule.text.startswith("New rule")]
        target = game.rng.choice(own) if own else None
        game.run(c.Propose(voters[n % players], f"Proposal {n}", "Its text.", (
            amend(target.number, f"{target.text} Amended {n}.") if n % 2 and target else
            enact(f"New rule {n}."),)))
        number = max(game.state.proposals)
        for count, voter in enumerate(voters):
            game.run(c.CastBallot(voter, number,
                                  Choice.FOR if (n + count) % 3 else Choice.AGAINST))
        game.later(timedelta(hours=1, minutes=1))
    return list(chain.extend(chain.Head(),
                             [event_to_json(ev) for ev in game.events if ev.public]))
