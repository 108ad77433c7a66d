"""Absences: a player away until a date gets no reminders and is not drawn as Judge.

An absent player's missing ballot counts exactly as the preset counts any missing ballot
(the tally never looks at absences), and an absent mover's turn is handled as a silent
mover's (pace.py). A player may declare an absence of at most ``[limits] max_absence``
(passed in with the command); the host may declare a longer one. An absence ends when the
player says BACK, or by itself at its date (``tick``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from speakerbot.engine import commands as c
from speakerbot.engine import pace_events as pe
from speakerbot.engine.durations import format_duration
from speakerbot.engine.model import GameState
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import Facts, GameError, Refusal


def declare(play: Play, cmd: c.DeclareAbsence) -> None:
    """Record a player's own absence until a date."""
    play.player(cmd.actor)
    _check_until(play, cmd.until, cmd.longest)
    play.emit(pe.AbsenceDeclared(play.now, cmd.actor, cmd.until, " ".join(cmd.reason.split())))


def back(play: Play, cmd: c.EndAbsence) -> None:
    """End a player's absence before its date."""
    play.player(cmd.actor)
    if cmd.actor not in play.state.absences:
        raise GameError(Refusal.NOT_ABSENT)
    play.emit(pe.AbsenceEnded(play.now, cmd.actor, True))


def set_by_host(play: Play, cmd: c.SetAbsence) -> None:
    """Record a player's absence as the host directs (any length)."""
    player = play.find(cmd.player)
    _check_until(play, cmd.until, None)
    play.emit(pe.AbsenceDeclared(play.now, player.address, cmd.until,
                                " ".join(cmd.reason.split()), by_speaker=True))


def _check_until(play: Play, until: datetime, longest: timedelta | None) -> None:
    if until <= play.now:
        raise GameError(Refusal.ABSENCE_IN_PAST, Facts(at=until, deadline=play.now))
    if longest is not None and until - play.now > longest:
        raise GameError(Refusal.ABSENCE_TOO_LONG,
                        Facts(at=until, deadline=play.now + longest,
                              text=format_duration(longest)))


def is_absent(state: GameState, address: str) -> bool:
    """Tell whether a player is away (an absence lasts until the tick after its date)."""
    return address in state.absences


def absences_due(state: GameState) -> list[tuple[datetime, int]]:
    """Return when each absence ends, with the player's place in joining order."""
    return [(state.absences[address].until, index)
            for index, address in enumerate(state.players) if address in state.absences]


def end_at_date(play: Play, index: int) -> None:
    """End the absence of the player at this place in joining order: its date has come."""
    address = list(play.state.players)[index]
    play.emit(pe.AbsenceEnded(play.now, address, False))
