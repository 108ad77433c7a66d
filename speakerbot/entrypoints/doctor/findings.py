"""What ``speakerbot doctor`` found: one finding a line, its level, and the exit status.

Pure. A finding names its check (``dns.dmarc``), its level (``ok``, ``warning`` or
``fault``), what was found and, for a warning or a fault, what to change. The worst level
decides the exit status: 0 when all is well, 1 for a warning, 2 for a fault.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

__all__ = ["LEVELS", "Finding", "Level", "exit_status", "fault", "for_game", "lines", "ok",
           "to_json", "warning"]

Level = Literal["ok", "warning", "fault"]

LEVELS: tuple[Level, ...] = ("ok", "warning", "fault")
"""The levels, from best to worst; a level's place is the exit status it gives."""


@dataclass(frozen=True)
class Finding:
    """One thing doctor found: ``check`` names what was looked at, ``fix`` what to change.

    ``game`` is the id of the game it is about, or None for what the games share (the
    configuration file, the SMTP relay).
    """

    check: str
    level: Level
    message: str
    fix: str | None = None
    game: str | None = None

    def to_json(self) -> dict[str, object]:
        """Return the finding as ``--json`` prints it (docs/operations.md gives the shape)."""
        return {"check": self.check, "level": self.level, "message": self.message,
                "fix": self.fix, "game": self.game}

    def line(self, *, with_game: bool = False) -> str:
        """Return the finding as one line of text: level, check, what was found, what to do."""
        where = f"[{self.game}] " if with_game and self.game is not None else ""
        advice = f" -> {self.fix}" if self.fix else ""
        return f"{self.level:<7} {self.check:<10} {where}{self.message}{advice}"


def ok(check: str, message: str) -> Finding:
    """Return a finding that all is well."""
    return Finding(check, "ok", message)


def warning(check: str, message: str, fix: str) -> Finding:
    """Return a finding of something that works, but not as it should."""
    return Finding(check, "warning", message, fix)


def fault(check: str, message: str, fix: str) -> Finding:
    """Return a finding of something that stops the game working as it should."""
    return Finding(check, "fault", message, fix)


def for_game(findings: Iterable[Finding], game: str) -> list[Finding]:
    """Return ``findings`` as findings about the game ``game``."""
    return [replace(finding, game=game) for finding in findings]


def exit_status(findings: Iterable[Finding]) -> int:
    """Return 0 when every finding is ok, 1 when the worst is a warning, 2 for any fault."""
    return max((LEVELS.index(finding.level) for finding in findings), default=0)


def lines(findings: Sequence[Finding]) -> list[str]:
    """Return the findings as text, one a line; each names its game when several are checked."""
    games = {finding.game for finding in findings} - {None}
    return [finding.line(with_game=len(games) > 1) for finding in findings]


def to_json(findings: Iterable[Finding]) -> list[dict[str, object]]:
    """Return the findings as ``--json`` prints them: a list of objects, in order."""
    return [finding.to_json() for finding in findings]
