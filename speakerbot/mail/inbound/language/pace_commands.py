"""What the pace lines read into: absences, and the host's pause, absence and skip actions.

``ABSENT UNTIL``, ``BACK``; ``ADMIN PAUSE``, ``ADMIN RESUME``, ``ADMIN ABSENT`` and
``ADMIN SKIP`` (read by :mod:`.pace`).

Kept apart from :mod:`.results` (which lists them in its ``Command`` union) so that the
pace's part of the language stays in modules of its own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from speakerbot.mail.inbound.language.json_values import _json_value

__all__ = ["Absent", "AdminAbsent", "AdminPause", "AdminResume", "AdminSkip", "Back"]


@dataclass(frozen=True)
class _PaceLine:
    """The line a pace command was read from, and its JSON as ``speakerbot parse`` shows it."""

    line: int
    verb: ClassVar[str]

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        out: dict[str, object] = {"line": self.line, "verb": self.verb}
        for item in dataclasses.fields(self):
            if item.name != "line":
                out[item.name] = _json_value(getattr(self, item.name))
        return out


@dataclass(frozen=True)
class Absent(_PaceLine):
    """``ABSENT UNTIL <YYYY-MM-DD> [reason]``: away until that day (it ends at its start, UTC)."""

    until: str
    reason: str | None
    verb: ClassVar[str] = "ABSENT"


@dataclass(frozen=True)
class Back(_PaceLine):
    """``BACK``: back before the declared date."""

    verb: ClassVar[str] = "BACK"


@dataclass(frozen=True)
class _PaceAdmin(_PaceLine):
    """The host's pace actions; JSON has verb ADMIN and the action, as every ADMIN's."""

    verb: ClassVar[str] = "ADMIN"
    action: ClassVar[str]

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        out = super().to_json()
        return {"line": out.pop("line"), "verb": out.pop("verb"), "action": self.action, **out}


@dataclass(frozen=True)
class AdminPause(_PaceAdmin):
    """``ADMIN PAUSE [reason]``: pause the game; ``reason`` is None when not given."""

    reason: str | None
    action: ClassVar[str] = "pause"


@dataclass(frozen=True)
class AdminResume(_PaceAdmin):
    """``ADMIN RESUME``: resume a paused game."""

    action: ClassVar[str] = "resume"


@dataclass(frozen=True)
class AdminAbsent(_PaceAdmin):
    """``ADMIN ABSENT <player> UNTIL <YYYY-MM-DD> [reason]``: declare a player absent."""

    player: str
    until: str
    reason: str | None
    action: ClassVar[str] = "absent"


@dataclass(frozen=True)
class AdminSkip(_PaceAdmin):
    """``ADMIN SKIP``: pass the turn of a mover who has not proposed."""

    action: ClassVar[str] = "skip"
