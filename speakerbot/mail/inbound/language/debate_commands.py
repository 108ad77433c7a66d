"""What the debate lines read into: ``REVISE``, ``CALL VOTE`` and ``DEBATE`` (see :mod:`.debating`).

Kept apart from :mod:`.results` (which lists them in its ``Command`` union) so that the
debate's part of the language stays in modules of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from speakerbot.engine.model import Clause
from speakerbot.mail.inbound.language.command_base import _CommandBase

__all__ = ["CallVote", "Debate", "Revise"]


@dataclass(frozen=True)
class Revise(_CommandBase):
    """``REVISE <n>``, the proposal's whole new text, ``END REVISE``: its proposer's revision."""

    proposal: int
    text: str
    clauses: tuple[Clause, ...]
    not_understood: tuple[tuple[int, str], ...] = ()
    """Lines of the text that speak of changing a rule in a way no form matches: (line, text)."""
    verb: ClassVar[str] = "REVISE"

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output (as PROPOSE's, without title)."""
        out = super().to_json()
        del out["not_understood"]
        if self.not_understood:
            out["not_understood"] = [
                {"line": line, "text": text} for line, text in self.not_understood
            ]
        return out


@dataclass(frozen=True)
class CallVote(_CommandBase):
    """``CALL VOTE <n>``: the proposer ends the debate; the vote starts."""

    proposal: int
    verb: ClassVar[str] = "CALL VOTE"


@dataclass(frozen=True)
class Debate(_CommandBase):
    """``DEBATE <n>``, an argument, ``END DEBATE``: forwarded to every player."""

    proposal: int
    text: str
    verb: ClassVar[str] = "DEBATE"
