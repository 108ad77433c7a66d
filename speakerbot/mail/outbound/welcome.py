"""The welcome a new player gets: what the game is, what is open now, the rules, how to play.

One private letter to each player who joins (by JOIN, or added by the host: ``ADMIN ADD``,
``speakerbot player add``), or whom the host asks to welcome (``speakerbot player welcome``,
``speakerbot import --welcome``: an import's players are no newcomers to the game, only to
speakerbot, so they are welcomed only when the host says so). A welcome for a join is
composed from the event that made the player, so composing it again gives the same
Message-ID. It teaches by example: the exact lines to vote on each open proposal, to
propose, to ask for help and to leave; and it lists the rules in force one line each, with
the archive's address when the game has one.
"""

from __future__ import annotations

from collections.abc import Iterable

from speakerbot.engine import events as e
from speakerbot.engine.model import GameState, Rule
from speakerbot.mail.outbound.batch import Batch, Voice
from speakerbot.mail.outbound.compose import Outgoing

__all__ = ["rule_line", "welcome", "welcomes"]

_LINE = 64
"""How much of a rule one line of the welcome shows."""


def rule_line(rule: Rule) -> str:
    """Say a rule in one line: its title, else the start of its text, cut at a word."""
    said = " ".join((rule.title or rule.text).split())
    if len(said) <= _LINE:
        return said
    cut = said[:_LINE].rsplit(" ", 1)[0].rstrip(",;:.")
    return cut + "…"


def welcomes(voice: Voice, events: Iterable[e.Event], batch: Batch) -> list[Outgoing]:
    """Return a welcome for each player these events made (one each, the last name taken)."""
    joined = {event.address: event for event in events if isinstance(event, e.PlayerJoined)}
    return [welcome(voice, address, batch) for address in joined
            if address in batch.state.players]


def welcome(voice: Voice, address: str, batch: Batch) -> Outgoing:
    """Return the welcome of one player, as the game stands in ``batch``.

    Its Message-ID comes from the batch's key and the address: the same batch composed
    again gives the same message.
    """
    state: GameState = batch.state
    proposals = [proposal for proposal in state.open_proposals() if not proposal.in_debate]
    turn = state.name_of(state.turn.mover) if state.turn is not None else ""
    body = voice.renderer.render(
        "welcome.txt", game=state, identity=voice.identity,
        name=state.name_of(address), speaker=state.name_of(state.speaker),
        proposals=proposals, cfjs=state.open_cfjs(), turn=turn,
        rules=[(rule.number, rule_line(rule)) for rule in state.rules.values()],
        archive=voice.identity.page("index.html"),
    )
    return Outgoing("welcome", (address,), f"Welcome to {voice.identity.name}", body,
                    f"{batch.key}.welcome.{address}")
