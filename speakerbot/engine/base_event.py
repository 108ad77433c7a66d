"""What every event is: something that happened in a game, at a time, public or private.

The kinds of event are declared in :mod:`.events`, :mod:`.pace_events` and
:mod:`.debate_events`; :data:`speakerbot.engine.events.EVENT_TYPES` lists them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar


@dataclass(frozen=True)
class Event:
    """Something that happened in a game, at a time."""

    at: datetime
    public: ClassVar[bool] = True

    def recipients(self) -> tuple[str, ...]:
        """Return who may see a private event (empty for a public one)."""
        return ()


@dataclass(frozen=True)
class PrivateEvent(Event):
    """An event only one person may see: the one named by its field ``seen_by``."""

    public: ClassVar[bool] = False
    seen_by: ClassVar[str]

    def recipients(self) -> tuple[str, ...]:
        """Return the one person who may see the event."""
        return (str(getattr(self, self.seen_by)),)
