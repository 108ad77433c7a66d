"""What the pace lines read into: absences, and the host's pause, absence and skip actions.

``ABSENT UNTIL``, ``BACK``; ``ADMIN PAUSE``, ``ADMIN RESUME``, ``ADMIN ABSENT`` and
``ADMIN SKIP`` (read by :mod:`.pace`).

Kept apart from :mod:`.results` (which lists them in its ``Command`` union) so that the
pace's part of the language stays in modules of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from speakerbot.mail.inbound.language.command_base import _AdminBase, _CommandBase

__all__ = ["Absent", "AdminAbsent", "AdminPause", "AdminResume", "AdminSkip", "Back"]


@dataclass(frozen=True)
class Absent(_CommandBase):
    """``ABSENT UNTIL <YYYY-MM-DD> [reason]``: away until that day (it ends at its start, UTC)."""

    until: str
    reason: str | None
    verb: ClassVar[str] = "ABSENT"


@dataclass(frozen=True)
class Back(_CommandBase):
    """``BACK``: back before the declared date."""

    verb: ClassVar[str] = "BACK"


@dataclass(frozen=True)
class AdminPause(_AdminBase):
    """``ADMIN PAUSE [reason]``: pause the game; ``reason`` is None when not given."""

    reason: str | None
    action: ClassVar[str] = "pause"


@dataclass(frozen=True)
class AdminResume(_AdminBase):
    """``ADMIN RESUME``: resume a paused game."""

    action: ClassVar[str] = "resume"


@dataclass(frozen=True)
class AdminAbsent(_AdminBase):
    """``ADMIN ABSENT <player> UNTIL <YYYY-MM-DD> [reason]``: declare a player absent."""

    player: str
    until: str
    reason: str | None
    action: ClassVar[str] = "absent"


@dataclass(frozen=True)
class AdminSkip(_AdminBase):
    """``ADMIN SKIP``: pass the turn of a mover who has not proposed."""

    action: ClassVar[str] = "skip"
