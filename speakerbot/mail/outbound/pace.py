"""The pace of play's mail: the mover's reminder, a turn's overdue notice, and their lines.

The lines say a pause, a resumption or an absence, and what the reply to their sender says.

The pause and the host's ADMIN ABSENT and ADMIN SKIP are overrides: their announcement is the
override's, with the lines below as its effects. A player's own absence, and its end, are
news to every player.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from speakerbot.engine import pace_events as pe
from speakerbot.engine.base_event import Event
from speakerbot.engine.durations import format_duration
from speakerbot.engine.model import GameState
from speakerbot.mail.outbound.batch import Batch, Composer, Voice, announce
from speakerbot.mail.outbound.compose import Outgoing, format_time


def turn_reminder(voice: Voice, head: pe.TurnReminder, batch: Batch) -> Outgoing:
    """Remind the mover privately that their time to propose runs out soon."""
    state = batch.state
    body = voice.renderer.render("reminder_turn.txt", game=state, reminder=head,
                                 mover=state.name_of(head.mover), identity=voice.identity)
    subject = f"Reminder: your turn {head.turn} ends {format_time(head.deadline)}"
    return Outgoing("reminder", (head.mover,), subject, body, batch.key)


def turn_overdue(voice: Voice, head: pe.TurnOverdue, batch: Batch) -> Outgoing:
    """Tell every player (the Speaker too) who holds the game, and what the host may do."""
    state = batch.state
    mover = state.name_of(head.mover)
    absence = state.absences.get(head.mover)
    return announce(
        voice, batch, f"Turn {head.turn}: waiting for {mover}", "turn_overdue.txt",
        overdue=head, mover=mover, absence=absence, speaker=state.name_of(state.speaker),
        rule=state.sources.get("turn_period"),
    )


COMPOSERS: dict[type[Event], Composer] = {
    pe.TurnReminder: turn_reminder,
    pe.TurnOverdue: turn_overdue,
}
"""The pace's composers, by the event that heads their message."""


def _paused(event: pe.GamePaused, state: GameState) -> str:
    reason = f": {event.reason}" if event.reason else ""
    return (f"The game is paused{reason}. No vote closes, no deadline runs and no reminder "
            "goes out until it resumes; proposals and ballots are still taken in")


def _resumed(event: pe.GameResumed, state: GameState) -> str:
    moved = format_duration(max(event.at - event.paused_at, timedelta(0)))
    return (f"The game has resumed after a pause since {format_time(event.paused_at)}: "
            f"every running deadline moves on by {moved}")


def _absence_declared(event: pe.AbsenceDeclared, state: GameState) -> str:
    reason = f" ({event.reason})" if event.reason else ""
    return f"{state.name_of(event.player)} is away until {format_time(event.until)}{reason}"


def _absence_ended(event: pe.AbsenceEnded, state: GameState) -> str:
    how = "is back" if event.early else "is back: the absence ended at its date"
    return f"{state.name_of(event.player)} {how}"


def _turn_overdue(event: pe.TurnOverdue, state: GameState) -> str:
    return (f"Turn {event.turn}: {state.name_of(event.mover)} has not proposed by "
            f"{format_time(event.deadline)}")


SAYERS: dict[type[Any], Callable[[Any, GameState], str]] = {
    pe.GamePaused: _paused,
    pe.GameResumed: _resumed,
    pe.AbsenceDeclared: _absence_declared,
    pe.AbsenceEnded: _absence_ended,
    pe.TurnOverdue: _turn_overdue,
}
"""One line for each of the pace's public events (see describe.py, which lists them)."""


def said_absent(event: pe.AbsenceDeclared, state: GameState) -> str:
    """Say to a player what their absence means."""
    return (f"You are away until {format_time(event.until)}: you get no reminders and are "
            "not drawn as Judge; a ballot you do not send counts as any missing ballot. "
            "Every player is told. Send BACK if you return earlier.")


def said_back(event: pe.AbsenceEnded, state: GameState) -> str:
    """Say to a player that their absence is over."""
    return "Welcome back: your absence is over, and every player is told."


SAYINGS: dict[type[Any], Callable[[Any, GameState], str]] = {
    pe.AbsenceDeclared: lambda ev, state: (
        said_absent(ev, state) if not ev.by_speaker else _absence_declared(ev, state) + "."),
    pe.AbsenceEnded: said_back,
}
"""What the reply to a pace command says of each of its events (see replies.py)."""


def _history_absence(ev: pe.AbsenceDeclared, name: Callable[[str], str]) -> str:
    by = " (declared by the Speaker)" if ev.by_speaker else ""
    return f"{name(ev.player)} is away until {format_time(ev.until)}{by}"


HISTORY_SAYERS: dict[type[Any], Callable[[Any, Callable[[str], str]], str]] = {
    pe.GamePaused: lambda ev, _: "The game was paused" + (f": {ev.reason}" if ev.reason else ""),
    pe.GameResumed: lambda ev, _: (
        f"The game resumed; every running deadline moved on by "
        f"{format_duration(max(ev.at - ev.paused_at, timedelta(0)))}"),
    pe.AbsenceDeclared: _history_absence,
    pe.AbsenceEnded: lambda ev, name: f"{name(ev.player)} is back",
    pe.TurnOverdue: lambda ev, name: (
        f"Turn {ev.turn}: {name(ev.mover)} had not proposed by {format_time(ev.deadline)}"),
}
"""The HISTORY line of each of the pace's public events (see lookups.py, which lists them)."""
