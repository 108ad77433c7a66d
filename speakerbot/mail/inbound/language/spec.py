"""The shapes the command table is made of: its rows, and what a command head returns.

A command head reads the rest of a keyword's line and returns an outcome: a plan (how to
finish the command, with or without a block of following lines), the secret of a PASSWORD
line, or the reason the line cannot be read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from speakerbot.mail.inbound.language.commands import Command
from speakerbot.mail.inbound.language.prose import RuleTitles
from speakerbot.mail.inbound.language.results import ParseError, Who
from speakerbot.mail.inbound.language.tokens import join_text


@dataclass(frozen=True)
class Block:
    """The lines of a block as (line number, text without trailing space); no quoted lines.

    ``titles``: the rules in effect, by title, that a proposal's changes may name a rule by
    (None: none known, as when a message is read at intake).
    """

    lines: tuple[tuple[int, str], ...]
    titles: RuleTitles | None = None

    def text(self) -> str:
        """Return the block's text: its lines joined, without blank lines around them."""
        return join_text([text for _, text in self.lines])


Build: TypeAlias = Callable[[Block | None], "Command | list[ParseError]"]


@dataclass(frozen=True)
class Plan:
    """How to finish reading a command whose first line was read: its block and its builder."""

    build: Build
    block: Literal["none", "optional", "required"] = "none"
    ends: tuple[str, ...] = ()
    opener: str = ""


@dataclass(frozen=True)
class Secret:
    """The outcome of a PASSWORD line."""

    value: str


Outcome: TypeAlias = "Plan | Secret | str"
Head: TypeAlias = Callable[[int, str], Outcome]


@dataclass(frozen=True)
class CommandSpec:
    """One keyword of the language: its argument syntax, what it does, who may use it.

    ``bare`` keywords take no arguments and count only when alone on their line.
    ``alone``: the arguments are optional, and the keyword alone on its line may end in
    ``.``, ``!`` or ``?`` as a bare one may. ``prose`` tells, from the rest of the line,
    that a line starting with the keyword is a sentence and not the command (listed as
    ignored, not as an error): for keywords that are everyday words, such as SHOW.
    """

    verb: str
    syntax: str
    summary: str
    who: Who
    head: Head | None = field(default=None, repr=False)
    aliases: tuple[str, ...] = ()
    bare: bool = False
    example: str = ""
    ends: tuple[str, ...] = ()
    alone: bool = False
    prose: Callable[[str], bool] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class AdminSpec:
    """One action of the Speaker's ``ADMIN`` command."""

    action: str
    syntax: str
    summary: str
    head: Head = field(repr=False)


@dataclass(frozen=True)
class SubjectShortcut:
    """A Subject that is a command; the body is the named part of that command."""

    syntax: str
    summary: str


def plan(command: Command) -> Plan:
    """Return the plan of a command read whole from its first line: it takes no block."""
    return Plan(build=lambda _block: command)

