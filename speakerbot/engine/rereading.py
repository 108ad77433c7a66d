"""The rules are the program: a mechanic is read again when its rule's words change.

A game records, for each mechanic it can read, the phrase in its source rule that states
the value (``GameStarted.phrases``; readings.py reads it). After a rule's text changes, each
mechanic it is the source of is read again: one value, unambiguously, and the game plays by
it (``MechanicChanged``, announced with the results); anything else changes nothing and asks
the host (``MechanicNotRead``, naming the mechanic and why). A SET of the same proposal
wins over the reading; the two disagreeing is said to the host. A new rule is read for a
mechanic only when that mechanic has no source rule left (its rule repealed before): a new
rule that merely mentions points must not move the winning score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from speakerbot.engine import events as e
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.model import GameState
from speakerbot.engine.play import Play
from speakerbot.engine.readings import read_mechanic


def reread(play: Play, rule: int, affected: Mapping[str, int], proposal: int | None,
           also_set: Mapping[str, str]) -> tuple[str, ...]:
    """Read again each mechanic of ``affected`` (name -> its rule before the change).

    ``rule``: the rule's number now (it may have been renumbered; absent if repealed).
    Returns the mechanics that have no phrase, for which the host is warned as before.
    """
    unphrased = []
    for name in affected:
        phrase = play.state.phrases.get(name)
        if phrase is None:
            if name not in also_set:
                unphrased.append(name)
            continue
        text = play.state.rules[rule].text if rule in play.state.rules else None
        if text is None:
            if name not in also_set:  # else the proposal itself says what it is now
                play.emit(e.MechanicNotRead(play.now, name, affected[name],
                                            f"rule {affected[name]} was repealed", proposal))
            continue
        _read_into(play, name, phrase, rule, text, proposal, also_set)
    return tuple(unphrased)


def read_enacted(play: Play, rule: int, proposal: int | None,
                 also_set: Mapping[str, str]) -> None:
    """Read a newly enacted rule for each mechanic whose source rule is gone."""
    text = play.state.rules[rule].text
    for name, phrase in play.state.phrases.items():
        if name in play.state.sources or name in also_set:
            continue
        reading = read_mechanic(name, phrase, text)
        if reading.value is not None:
            # Even at the same value: the new rule is where the mechanic comes from now.
            play.emit(e.MechanicChanged(play.now, name, play.mechanics.formatted(name),
                                        reading.value, rule, reading.words, proposal))


def _read_into(play: Play, name: str, phrase: str, rule: int, text: str,
               proposal: int | None, also_set: Mapping[str, str]) -> None:
    reading = read_mechanic(name, phrase, text)
    current = play.mechanics.formatted(name)
    if name in also_set:
        said = _written(name, also_set[name])
        if reading.value is not None and said is not None and reading.value != said:
            play.emit(e.MechanicNotRead(
                play.now, name, rule, f"rule {rule} now reads {name} = {reading.value} "
                f"(“{reading.words}”), but the same proposal sets it to {said}, which wins",
                proposal))
        return
    if reading.value is None:
        play.emit(e.MechanicNotRead(play.now, name, rule, reading.why, proposal))
    elif reading.value != current:
        play.emit(e.MechanicChanged(play.now, name, current, reading.value, rule,
                                    reading.words, proposal))


def _written(name: str, text: str) -> str | None:
    try:
        return PARAMETERS[name].as_set(text)
    except ValueError:
        return None  # the SET itself fails, on its own


@dataclass(frozen=True)
class InForce:
    """A mechanic in force, and where its value comes from."""

    name: str
    value: str  # as SET writes it
    rule: int | None  # the rule it comes from, where one does
    words: str  # the words of that rule it is read from ("" where it has no phrase)
    origin: str  # how SHOW MECHANICS says where it comes from


def in_force(state: GameState) -> list[InForce]:
    """Every mechanic in force, in the order of the table, with where its value comes from.

    The value comes from a rule (the words it is read from, where the game reads it), was set
    (by the host, or by a proposal's SET), or is the ruleset's own default.
    """
    mechanics = state.rules_mechanics
    found = []
    for name in PARAMETERS:
        value, rule = mechanics.formatted(name), state.sources.get(name)
        words = ""
        if name in state.set_by:
            origin = _set_by(state.set_by[name])
        elif rule is not None and rule in state.rules:
            phrase = state.phrases.get(name)
            reading = read_mechanic(name, phrase, state.rules[rule].text) if phrase else None
            words = reading.words if reading is not None and reading.value == value else ""
            origin = f"rule {rule}: “{words}”" if words else f"rule {rule}"
        else:
            origin, rule = "preset default", None
        found.append(InForce(name, value, rule, words, origin))
    return found


def _set_by(who: str) -> str:
    if who == "host":
        return "set by the host"
    if who.startswith("rule "):
        return who  # "rule 208, since repealed": no rule says it now
    return f"set by {who}"
