"""What the language reads a message into, as a whole: the result, its errors and ignored lines.

The commands themselves are in :mod:`.commands`; the limits on what one message may hold are
here. Only the ``speakerbot parse`` JSON is shaped here and there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

# Re-exported: the engine's values, as the language's callers have always named them here.
from speakerbot.engine.condition import Condition
from speakerbot.engine.model import Choice, Clause, ClauseKind
from speakerbot.engine.model import Judgement as JudgementValue
from speakerbot.mail.inbound.language.commands import Command

__all__ = [
    "HISTORY_DEFAULT",
    "HISTORY_MAX",
    "MAX_COMMAND_LINES",
    "MAX_NAME_LENGTH",
    "MAX_SHOWN",
    "REDACTED",
    "Choice",
    "Clause",
    "ClauseKind",
    "Command",
    "Condition",
    "IgnoredLine",
    "JudgementValue",
    "ParseError",
    "ParseResult",
    "Who",
]

MAX_COMMAND_LINES = 200
"""A message with more command lines than this (commands plus errors) is refused whole."""

MAX_NAME_LENGTH = 60
"""The longest display name JOIN and ADMIN ADD accept."""

MAX_SHOWN = 200
"""Lines quoted back in errors and ignored lines are cut to this many characters."""

HISTORY_DEFAULT = 20
"""How many events ``HISTORY`` alone asks for."""

HISTORY_MAX = 100
"""The most events one HISTORY answer sends; asked for more, it sends these and says so."""


Who: TypeAlias = Literal["anyone", "player", "judge", "Speaker"]

REDACTED = "********"
"""What stands in place of the Speaker's password wherever it would be shown."""


@dataclass(frozen=True)
class ParseError:
    """A line meant as a command that cannot be read; ``reason`` says what to write instead."""

    line: int
    text: str
    reason: str

    def to_json(self) -> dict[str, object]:
        """Return the error as in ``speakerbot parse`` output."""
        return {"line": self.line, "text": self.text, "reason": self.reason}


@dataclass(frozen=True)
class IgnoredLine:
    """A prose line: not a command, listed in the reply so the sender can check."""

    line: int
    text: str

    def to_json(self) -> dict[str, object]:
        """Return the ignored line as in ``speakerbot parse`` output."""
        return {"line": self.line, "text": self.text}


@dataclass(frozen=True)
class ParseResult:
    """Everything read from one message.

    ``password`` is the secret of the message's ``PASSWORD`` line (None if there
    is none). It is left out of :meth:`to_json` and of ``repr``, and the secret
    does not occur in any command, error or ignored line: wherever else it
    appears in the message it is replaced by ``********``.
    """

    commands: tuple[Command, ...]
    errors: tuple[ParseError, ...]
    ignored: tuple[IgnoredLine, ...]
    password: str | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """True when the message has no errors, so its commands may be applied."""
        return not self.errors

    def to_json(self) -> dict[str, object]:
        """Return commands, errors and ignored lines as in ``speakerbot parse`` output."""
        return {
            "commands": [command.to_json() for command in self.commands],
            "errors": [error.to_json() for error in self.errors],
            "ignored": [line.to_json() for line in self.ignored],
        }

