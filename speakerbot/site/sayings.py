"""One line for each public event, as the archive's timeline shows it.

The mail's own sentences (``speakerbot.mail.outbound.describe``) say most events, so that
the archive and the announcements speak alike; the few events mail never announces on
their own (the start, reminders going out, overrules) are said here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine.model import GameState
from speakerbot.mail.outbound.compose import format_time
from speakerbot.mail.outbound.describe import describe

__all__ = ["say"]


def say(event: e.Event, state: GameState) -> str:
    """Say in one line what a public event did, in the game's words."""
    sayer = _OWN.get(type(event))
    return sayer(event, state) if sayer is not None else describe(event, state)


def _started(event: e.GameStarted, state: GameState) -> str:
    return (f"The game began under the {event.preset} preset ({event.title}), with "
            f"{len(event.rules)} rules; {event.host_name} is the host")


def _judge_missed(event: e.JudgeDeadlineMissed, state: GameState) -> str:
    return f"CFJ {event.cfj}: {state.name_of(event.judge)} did not judge in time"


_OWN: dict[type[e.Event], Callable[[Any, GameState], str]] = {
    e.GameStarted: _started,
    e.RemindersSent: lambda ev, _: f"Reminders to vote on proposal {ev.proposal} went out",
    e.TurnConsentGiven: lambda ev, state: (
        f"{state.name_of(ev.player)} agreed that turn {ev.turn} may begin with a CFJ open"),
    e.OverruleSupported: lambda ev, state: (
        f"{state.name_of(ev.player)} voted to overrule the judgement of CFJ {ev.cfj}"),
    e.JudgementOverruled: lambda ev, _: f"The judgement of CFJ {ev.cfj} was overruled",
    e.JudgeDeadlineMissed: _judge_missed,
    e.SpeakerOverride: lambda ev, state: (
        f"The Speaker ({state.name_of(ev.speaker)}) overrode: {ev.summary}"),
    e.JudgeAssigned: lambda ev, state: (
        f"CFJ {ev.cfj}: {state.name_of(ev.judge)} is the Judge ({ev.how})"
        + (f", until {format_time(ev.deadline)}" if ev.deadline else "")),
}
