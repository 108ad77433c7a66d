"""What every command read from a message shares: its line, its verb, its JSON.

``_AdminBase`` is the base of every ``ADMIN`` action, wherever it is defined: the parser asks
for the PASSWORD line by it, so no ADMIN command is read without one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from speakerbot.mail.inbound.language.json_values import _json_value


@dataclass(frozen=True)
class _CommandBase:
    """Fields and JSON shared by every command: the line it was read from."""

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
class _AdminBase(_CommandBase):
    """The Speaker's ``ADMIN <action> ...`` commands; JSON has verb ADMIN and the action."""

    verb: ClassVar[str] = "ADMIN"
    action: ClassVar[str]

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        out = super().to_json()
        return {"line": out.pop("line"), "verb": out.pop("verb"), "action": self.action, **out}
