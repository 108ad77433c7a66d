"""How a game begins: afresh from a ruleset, or where a hand-run game stands.

``StartGame`` starts from a ruleset; ``ImportGame`` from a snapshot of a game played by
hand until now. Either way the first event, ``GameStarted``, holds the whole ruleset, so
a later change to a ruleset's file never changes a game in progress.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable
from typing import Any

from speakerbot.addresses import as_compared, canonical_address
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import players
from speakerbot.engine.edits import check_rule_size
from speakerbot.engine.mechanics import ADDED_LATER, PARAMETERS, Flow, Mechanics
from speakerbot.engine.model import Role, Rule, RuleSpec
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import Facts, GameError, Refusal

IMPORTED_SCORE = "the score they had when the game was imported"
"""Why an imported player's score is what it is, as their score's history says."""


def ruleset_digest(rules: Iterable[RuleSpec | Rule]) -> str:
    """Return the SHA-256 of a ruleset, so that players can check the rules they play by.

    Over one JSON array, compact (no spaces), in UTF-8 (characters not escaped): for each
    rule in the order of its number, ``[number, "mutable" or "immutable", title, text]``.
    JSON rather than lines, so that no rule's text can pass for a rule boundary: a text
    holding a blank line and a number would otherwise digest as two rules.
    """
    written = json.dumps(
        [[rule.number, "mutable" if rule.mutable else "immutable", rule.title, rule.text]
         for rule in sorted(rules, key=lambda rule: rule.number)],
        ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(written.encode("utf-8")).hexdigest()


def start_game(play: Play, cmd: c.StartGame) -> None:
    """Start a game from a ruleset; the last game's players (if any) are in it from the start."""
    _begin(play, cmd)
    for address, name in cmd.players:
        if canonical_address(address) not in play.state.players:
            players.add_player(play, address, name, by_speaker=True)


def import_game(play: Play, cmd: c.ImportGame) -> None:
    """Start a game where a hand-run one stands: its rules, players, scores and open votes.

    Everything after it plays as in any game: the next proposal takes ``next_proposal``,
    scores count on from the imported ones, and each open proposal goes to its vote with
    no ballots (what was cast before the import is not known to be secret, nor complete).
    """
    _check_import(cmd)
    _begin(play, cmd.start, cmd)
    state, now = play.state, play.now
    turns = play.mechanics.flow is Flow.TURNS
    for player in cmd.players:
        if player.address not in state.players:
            role = Role.PLAYER if turns else Role.VOTER
            play.emit(e.PlayerJoined(now, player.address, player.name, role, True))
    if turns:
        play.emit(e.TurnPassed(now, 1, cmd.mover or cmd.players[0].address, 0))
    for player in cmd.players:
        if player.score:
            play.emit(e.ScoreChanged(now, player.address, player.score, IMPORTED_SCORE,
                                     by_speaker=True))
    for open_proposal in cmd.proposals:
        turn = state.turn.number if turns and state.turn is not None else None
        proposal = open_proposal.proposal
        play.emit(e.ProposalSubmitted(
            now, open_proposal.number, proposal.title, proposal.text, proposal.clauses,
            proposal.actor, open_proposal.closes_at, len(state.voters()), turn,
        ))


def _check_import(cmd: c.ImportGame) -> None:
    """Refuse what the snapshot's reader should have refused already (the engine's own word)."""
    addresses = [player.address for player in cmd.players]
    numbers = [proposal.number for proposal in cmd.proposals]
    if not addresses or len(set(addresses)) != len(addresses):
        raise GameError(Refusal.BAD_IMPORT, Facts(text="the players must be given, each once"))
    if cmd.mover and cmd.mover not in addresses:
        raise GameError(Refusal.BAD_IMPORT, Facts(text="the player to move is not a player"))
    if len(set(numbers)) != len(numbers) or any(n >= cmd.next_proposal for n in numbers):
        raise GameError(Refusal.BAD_IMPORT, Facts(
            text="each open proposal's number must be given once, below the next number"))
    if any(open_proposal.proposal.actor not in addresses for open_proposal in cmd.proposals):
        raise GameError(Refusal.BAD_IMPORT, Facts(text="a proposal's proposer is not a player"))
    if any(rule.number >= cmd.next_proposal for rule in cmd.start.preset.rules):
        raise GameError(Refusal.BAD_IMPORT, Facts(
            text="the next proposal number must be above every rule's number"))


def _begin(play: Play, cmd: c.StartGame, imported: c.ImportGame | None = None) -> None:
    """Emit ``GameStarted`` (and the Speaker's joining, where the Speaker is a player)."""
    # Once a game is over, the next may start in the same record; it keeps nothing of it.
    if play.state.started and not play.state.ended:
        raise GameError(Refusal.ALREADY_RUNNING)
    preset = cmd.preset
    mechanics = _mechanics(cmd)
    host = as_compared(cmd.actor)
    judge = as_compared(cmd.named_judge or host)
    judge_name = cmd.named_judge_name or (cmd.host_name if judge == host else judge)
    rules = _with_persons(preset, {"speaker": cmd.host_name, "judge": judge_name})
    for rule in rules:  # a ruleset of the group's own is held to the host's limit too
        check_rule_size(rule.number, len(rule.text.encode()), play.max_rule_bytes)
    sources = _sources(preset, mechanics)
    sourced = {name for name, _ in sources}
    play.emit(e.GameStarted(
        play.now, preset.name, imported.title if imported else preset.title, mechanics,
        sources, rules, host, cmd.host_name, judge, judge_name,
        cmd.open_registration, cmd.game_id, cmd.record_version,
        imported.source if imported else "", imported.next_proposal if imported else 0,
        tuple(sorted((name, phrase) for name, phrase in preset.phrases.items()
                     if name in sourced)),
        tuple(name for name in PARAMETERS if name in cmd.mechanics
              and mechanics.formatted(name) != PARAMETERS[name].as_set(preset.mechanics[name])),
        cmd.commitment,
    ))
    if mechanics.speaker_role:
        play.emit(e.PlayerJoined(play.now, host, cmd.host_name, Role.SPEAKER, True))


def _mechanics(cmd: c.StartGame) -> Mechanics:
    """Return the ruleset's mechanics with the host's overrides, or refuse them."""
    values: dict[str, Any] = dict(cmd.preset.mechanics)
    for name, written in cmd.mechanics.items():
        if name not in PARAMETERS:
            raise GameError(Refusal.UNKNOWN_MECHANIC, Facts(name=name))
        values[name] = written
    try:
        return Mechanics.from_strings(values)
    except ValueError as error:
        raise GameError(Refusal.BAD_MECHANICS, Facts(text=str(error))) from None


def _with_persons(preset: c.Preset, names: dict[str, str]) -> tuple[RuleSpec, ...]:
    """Return the rules with the persons they name (a first Speaker) as this game's own."""
    rules = []
    for spec in preset.rules:
        text = spec.text
        for role, (rule_number, seed_name) in preset.persons.items():
            if rule_number == spec.number and role in names:
                text = text.replace(seed_name, names[role])
        rules.append(dataclasses.replace(spec, text=text))
    return tuple(rules)


def _sources(preset: c.Preset, mechanics: Mechanics) -> tuple[tuple[str, int], ...]:
    """Return the rule each mechanic comes from, for the record.

    A mechanic added later that a game keeps at its older value (ADDED_LATER) names no rule:
    such a game starts, and is recorded, exactly as it would have been before the mechanic.
    """
    legacy = {name for name, written in ADDED_LATER.items()
              if getattr(mechanics, name) == PARAMETERS[name].parse(written)}
    return tuple(sorted((name, rule) for name, rule in preset.sources.items()
                        if name not in legacy))

