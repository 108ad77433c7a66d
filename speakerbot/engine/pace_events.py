"""The pace of play's events: the host's pause, players' absences, a turn's deadline, reminders.

They are listed with every other kind of event in :data:`speakerbot.engine.events.EVENT_TYPES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Literal

from speakerbot.engine.base_event import Event, PrivateEvent


@dataclass(frozen=True)
class GamePaused(Event):
    """The host paused the game: no vote closes, no deadline runs, no reminder goes out."""

    by: str
    reason: str


@dataclass(frozen=True)
class GameResumed(Event):
    """The host resumed the game: every running deadline moves on by the time it was paused."""

    by: str
    paused_at: datetime


@dataclass(frozen=True)
class AbsenceDeclared(Event):
    """A player is away until ``until``: no reminders, not drawn as Judge."""

    player: str
    until: datetime
    reason: str
    by_speaker: bool = False


@dataclass(frozen=True)
class AbsenceEnded(Event):
    """A player's absence ended: ``early`` when they (or the host) said so, else its date came."""

    player: str
    early: bool


@dataclass(frozen=True)
class TurnReminder(PrivateEvent):
    """A private reminder to the mover that their turn's deadline is near."""

    seen_by: ClassVar[str] = "mover"
    turn: int
    mover: str
    deadline: datetime


@dataclass(frozen=True)
class TurnOverdue(Event):
    """A turn's deadline passed with no proposal: everyone is told who holds the game."""

    turn: int
    mover: str
    deadline: datetime
    absent: bool = False


@dataclass(frozen=True)
class Owed:
    """One thing a player owes: a ballot on a proposal, or a judgement on a CFJ, and when."""

    what: Literal["vote", "judgement"]
    number: int
    due: datetime


@dataclass(frozen=True)
class Reminded(PrivateEvent):
    """One reminder mail to one player: everything they owe that falls due soon, soonest first.

    It replaces a reminder per player per proposal (``VoteReminder``) and per CFJ
    (``JudgeReminder``), which older records still hold and replay as before.
    """

    seen_by: ClassVar[str] = "player"
    player: str
    owed: tuple[Owed, ...]

