"""Turns in the turn-based presets: who moves next, and when a turn may begin."""

from __future__ import annotations

from speakerbot.engine import events as e
from speakerbot.engine.mechanics import Adoption
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import Facts, GameError, Refusal


def pass_turn(play: Play) -> None:
    """Give the turn to the next active player; a full circuit may switch the adoption rule."""
    state = play.state
    everyone = list(state.players)
    active = [p.address for p in state.active_players()]
    turn = state.turn
    if not active or turn is None:
        return
    here = everyone.index(turn.mover)
    following = everyone[here + 1:] + everyone[: here + 1]
    mover = next(a for a in following if state.players[a].active)
    wrapped = everyone.index(mover) <= here
    circuits = state.circuits_completed + (1 if wrapped else 0)
    play.emit(e.TurnPassed(play.now, turn.number + 1, mover, circuits))
    mechanics = play.mechanics
    if (
        wrapped
        and mechanics.majority_after_circuits is not None
        and circuits >= mechanics.majority_after_circuits
        and mechanics.adoption is Adoption.UNANIMOUS
        and not state.adoption_rule_amended
    ):
        play.emit(e.AdoptionSwitchedToMajority(play.now, state.sources.get("adoption", 0),
                                               circuits))


def turn_may_begin(play: Play) -> None:
    """Refuse a new turn while a CFJ is undecided, where the rules say so."""
    mechanics = play.mechanics
    pending = tuple(cfj.number for cfj in play.state.open_cfjs())
    if not pending or not mechanics.cfj_blocks_turn:
        return
    turn = play.state.turn
    assert turn is not None
    others = [p.address for p in play.state.active_players() if p.address != turn.mover]
    agreed = [a for a in turn.consenters if a in others]
    if mechanics.turn_consent_overrides_cfj and 2 * len(agreed) > len(others):
        return
    raise GameError(Refusal.TURN_HELD_BY_CFJ, Facts(
        numbers=pending, rule=play.source("cfj_blocks_turn"), count=len(agreed),
        limit=len(others), allowed=mechanics.turn_consent_overrides_cfj,
    ))
