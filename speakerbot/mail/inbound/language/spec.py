"""The shapes the command table is made of, and the small readers every command head uses.

A command head reads the rest of a keyword's line and returns an outcome: a plan (how to
finish the command, with or without a block of following lines), the secret of a PASSWORD
line, or the reason the line cannot be read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from speakerbot.addresses import as_compared
from speakerbot.mail.inbound.language.results import (
    MAX_NAME_LENGTH,
    MAX_SHOWN,
    Choice,
    Command,
    JudgementValue,
    ParseError,
    Who,
)

__all__ = ["AdminSpec", "CommandSpec", "SubjectShortcut", "one_edit_apart"]


@dataclass(frozen=True)
class _Block:
    """The lines of a block as (line number, text without trailing space); no quoted lines."""

    lines: tuple[tuple[int, str], ...]

    def text(self) -> str:
        return _join_text([text for _, text in self.lines])


_Build: TypeAlias = Callable[[_Block | None], "Command | list[ParseError]"]


@dataclass(frozen=True)
class _Plan:
    """How to finish reading a command whose first line was read: its block and its builder."""

    build: _Build
    block: Literal["none", "optional", "required"] = "none"
    ends: tuple[str, ...] = ()
    opener: str = ""


@dataclass(frozen=True)
class _Secret:
    """The outcome of a PASSWORD line."""

    value: str


_Outcome: TypeAlias = "_Plan | _Secret | str"
_Head: TypeAlias = Callable[[int, str], _Outcome]


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
    head: _Head | None = field(default=None, repr=False)
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
    head: _Head = field(repr=False)


@dataclass(frozen=True)
class SubjectShortcut:
    """A Subject that is a command; the body is the named part of that command."""

    syntax: str
    summary: str


# --------------------------------------------------------------------------- small readers

_NUMBER = re.compile(r"#?([0-9]{1,9}):?")
_SIGNED = re.compile(r"[+\-\u2212\u2013]([0-9]{1,9})")
_EMAIL = re.compile(r"<?([^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+)>?")
_PARAMETER = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_TRAILING = ".!"
_BARE_TRAILING = ".!?"
_CHOICES: Mapping[str, Choice] = {
    "FOR": Choice.FOR, "YES": Choice.FOR, "AYE": Choice.FOR,
    "AGAINST": Choice.AGAINST, "NO": Choice.AGAINST, "NAY": Choice.AGAINST,
    "ABSTAIN": Choice.ABSTAIN,
}  # fmt: skip
_VALUES: Mapping[str, JudgementValue] = {value.value: value for value in JudgementValue}


def _number(token: str) -> int | None:
    match = _NUMBER.fullmatch(token)
    return int(match.group(1)) if match else None


def _word(token: str) -> str:
    """Upper-case a keyword-like token and drop trailing . and !."""
    return token.upper().rstrip(_TRAILING)


def _join_text(lines: list[str]) -> str:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(line.rstrip() for line in lines[start:end])


def _name(value: str, verb: str) -> str:
    """Check a display name; return it with white space tidied, or raise ValueError."""
    name = " ".join(value.split())
    example = (
        f"e.g. {verb} Alice Smith"
        if verb == "JOIN"
        else f"e.g. {verb} alice@example.org Alice Smith"
    )
    if not name:
        raise ValueError(f"{verb} needs a display name, {example}")
    if "@" in name:
        raise ValueError(f"a display name may not contain @; {example}")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"a display name may be at most {MAX_NAME_LENGTH} characters long")
    return name


def _player(value: str) -> str:
    """Tidy a player reference: an email address (canonical, <> removed) or a display name."""
    value = " ".join(value.split())
    match = _EMAIL.fullmatch(value)
    return as_compared(match.group(1)) if match else value


def _shown(text: str) -> str:
    """Cut a line quoted back in an error or as ignored to :data:`MAX_SHOWN` characters."""
    text = text.strip()
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _plan(command: Command) -> _Plan:
    return _Plan(build=lambda _block: command)


def _one_edit(a: str, b: str) -> bool:
    """Tell whether a and b are one Damerau–Levenshtein edit apart (and not equal)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    common = min(len(a), len(b))
    while i < common and a[i] == b[i]:
        i += 1
    if len(a) > len(b):  # a letter added
        return a[i + 1 :] == b[i:]
    if len(a) < len(b):  # a letter left out
        return b[i + 1 :] == a[i:]
    if a[i + 1 :] == b[i + 1 :]:  # a letter changed
        return True
    return (  # two neighbouring letters swapped
        i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    )




def one_edit_apart(a: str, b: str) -> bool:
    """Tell whether two words are one Damerau–Levenshtein edit apart (and not equal)."""
    return _one_edit(a, b)
