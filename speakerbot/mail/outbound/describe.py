"""One line for each event, in the game's words: what announcements and replies say it did.

:func:`describe` looks the event's kind up in a table of small sayers; a kind with no sayer
is written as its name (nothing announced should reach that).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from speakerbot.addresses import as_compared
from speakerbot.engine import events as e
from speakerbot.engine.model import GameState
from speakerbot.mail.outbound.compose import format_time, points
from speakerbot.mail.outbound.pace import SAYERS as PACE_SAYERS
from speakerbot.mail.outbound.wording import clause_failure_text


def describe(event: e.Event, state: GameState) -> str:
    """Say in one line what an event did, in the game's words."""
    sayer = _SAYERS.get(type(event))
    return sayer(event, state) if sayer else type(event).__name__


# An address in angle brackets (after its name, or alone), and an address on its own: any
# run of non-space around an @, but for what ends a word around it (a possessive's 's, a
# closing bracket, punctuation).
_BRACKETED = re.compile(r"(?<!\s)\s*+<([^<>\s@]*+@[^<>\s]*+)>")
# Tried only where a word begins, and never backtracking into a run, so that a long word
# costs once (100 KB of one word took 28 s otherwise); the same for a run of spaces.
_ADDRESS = re.compile(r"(?<![^\s<>@,;:\"()\[\]])(?:\"[^\"\n]*+\"|[^\s<>@,;:\"()\[\]]*+)"
                      r"@[^\s<>@,;:'\"()\[\]!?]++")


def without_addresses(text: str, name: Callable[[str], str]) -> str:
    """Write a player's address as their name, for what every player reads.

    An override's summary is the host's words, kept in the record as written ("added player
    Bob <bob@example.org>", "removed player bob@example.org"): names are public, addresses
    are shown only where a rule needs them (the receipts). An address with no name is
    withheld.
    """
    def shown(address: str) -> str:
        said = name(as_compared(address))
        return said if "@" not in said else "(an address)"

    def bracketed(match: re.Match[str]) -> str:
        said = shown(match.group(1))
        before = match.string[:match.start()]
        return "" if before.endswith(said) else " " + said  # "Bob <bob@...>": Bob once

    def bare(match: re.Match[str]) -> str:
        address = match.group(0).rstrip(".")
        return shown(address) + match.group(0)[len(address):]

    return _ADDRESS.sub(bare, _BRACKETED.sub(bracketed, text)).strip()


def names(addresses: Sequence[str], state: GameState) -> str:
    """Name players as a sentence does: "Alice", "Alice and Bob", "Alice, Bob and Carol"."""
    named = [state.name_of(a) for a in addresses]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def _status(mutable: bool) -> str:
    return "mutable" if mutable else "immutable"


def _renumbered(number: int, new_number: int) -> str:
    return f", now rule {new_number}" if new_number != number else ""


def _player_left(event: e.PlayerLeft, state: GameState) -> str:
    verb = "forfeited" if event.reason == "forfeit" else "was removed from the game"
    return f"{state.name_of(event.address)} {verb}"


def _rule_transmuted(event: e.RuleTransmuted, state: GameState) -> str:
    renumbered = _renumbered(event.number, event.new_number)
    return f"Rule {event.number} transmuted to {_status(event.mutable)}{renumbered}"


def _mechanics_may_have_changed(event: e.MechanicsMayHaveChanged, state: GameState) -> str:
    return (f"Rule {event.rule} changed; the Speaker should check {', '.join(event.mechanics)} "
            "(ADMIN SET)")


# One sayer per kind of event: a flat table, each entry a sentence with the event's fields.
_SAYERS: dict[type[e.Event], Callable[[Any, GameState], str]] = {
    e.PlayerJoined: lambda ev, _: f"{ev.name} joined the game",
    e.PlayerLeft: _player_left,
    e.TurnPassed: lambda ev, state: (
        f"Turn {ev.number}: it is {state.name_of(ev.mover)}'s turn to propose"),
    e.ScoreChanged: lambda ev, state: (
        f"{state.name_of(ev.player)} {points(ev.delta, signed=True)}: {ev.reason}"),
    e.DieThrown: lambda ev, state: (
        f"{state.name_of(ev.player)} threw a {ev.sides}-sided die: {ev.value}"),
    e.RuleEnacted: lambda ev, _: f"Rule {ev.number} enacted ({_status(ev.mutable)})",
    e.RuleAmended: lambda ev, _: (
        f"Rule {ev.number} amended{_renumbered(ev.number, ev.new_number)}"),
    e.RuleRepealed: lambda ev, _: f"Rule {ev.number} repealed",
    e.RuleTransmuted: _rule_transmuted,
    e.MechanicSet: lambda ev, _: f"Mechanic {ev.name} set to {ev.value}",
    e.AdoptionSwitchedToMajority: lambda ev, _: (
        f"After {ev.circuits} complete circuits rule {ev.rule} now requires only a simple "
        "majority"),
    e.ClauseFailed: lambda ev, _: (
        f"Proposal {ev.proposal}: could not {ev.clause.describe()}: {clause_failure_text(ev)}"),
    e.InformalProposalAdopted: lambda ev, _: (
        f"Proposal {ev.proposal} has no structured clauses: the Speaker carries it out"),
    e.MechanicsMayHaveChanged: _mechanics_may_have_changed,
    e.JudgeAssigned: lambda ev, state: (
        f"CFJ {ev.cfj}: {state.name_of(ev.judge)} is the Judge ({ev.how})"),
    e.VoteExtended: lambda ev, _: (
        f"The vote on proposal {ev.proposal} now closes at {format_time(ev.closes_at)}"),
    e.ProposalVoided: lambda ev, _: f"Proposal {ev.proposal} is void: {ev.reason}",
    e.VoteClosed: lambda ev, _: (
        f"Proposal {ev.proposal} {'ADOPTED' if ev.adopted else 'REJECTED'}"),
    e.SpeakerChanged: lambda ev, state: f"{state.name_of(ev.new)} is now the Speaker",
    e.GameWon: lambda ev, state: f"{names(ev.winners, state)} won: {ev.reason}",
    e.NewGameBegun: lambda ev, state: (
        f"Game {ev.game_number} begins; {state.name_of(ev.new_speaker)} is the Speaker"),
    e.GameEnded: lambda ev, _: f"The game has ended: {ev.reason}",
    e.JudgementDelivered: lambda ev, _: f"CFJ {ev.cfj} judged {ev.judgement.value}",
    e.CfjCalled: lambda ev, _: f"CFJ {ev.number} called: {ev.statement}",
    e.ProposalSubmitted: lambda ev, _: f"Proposal {ev.number} submitted: {ev.title}",
    e.ProposalRevised: lambda ev, _: f"Proposal {ev.proposal} revised by its proposer",
    e.VoteStarted: lambda ev, _: f"The vote on proposal {ev.proposal} began",
    e.DebateContributed: lambda ev, state: (
        f"{state.name_of(ev.player)} argued about proposal {ev.proposal}"),
    **PACE_SAYERS,
}
