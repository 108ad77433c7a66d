"""Blocks: the lines a command takes after its first one, and where reading stops.

A block (a proposal's text, a CFJ's arguments, a JUDGEMENT's reasons, ADMIN RULE's text)
runs to its END line. Quoted lines are left out of it; a signature, a final END, THANKS or
STOP, or the start of a quoted history that mail clients do not mark with ``>`` ends what
is read of the message. :class:`Lines` holds a message's lines and what was read from
them so far; the parser builds on it.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from speakerbot.mail.inbound.language import tokens
from speakerbot.mail.inbound.language.commands import Command
from speakerbot.mail.inbound.language.grammar import KEYWORDS
from speakerbot.mail.inbound.language.prose import RuleTitles
from speakerbot.mail.inbound.language.results import (
    MAX_COMMAND_LINES,
    REDACTED,
    IgnoredLine,
    ParseError,
)
from speakerbot.mail.inbound.language.spec import Block, Plan

_QUOTED = re.compile(r"\s*>")
_STOP_INITIALS = frozenset("-_*eEtTsSbBfFvVdD")  # first characters of the stop patterns below
_FINAL = re.compile(r"(?:END|THANKS|STOP)[.!,]*", re.IGNORECASE)
_HISTORY = re.compile(
    r"-{2,}\s*(?:original|forwarded)\s+message\s*-{2,}|_{10,}|begin forwarded message:",
    re.IGNORECASE,
)
_HEADER_FROM = re.compile(r"\*?(?:from|von|de|da|van|från|fra)\s*:\*?\s*\S.*", re.IGNORECASE)
_HEADER_SENT = re.compile(
    r"\*?(?:sent|date|gesendet|datum|envoyé|enviado|inviato|skickat|sendt|verzonden)\s*:.*",
    re.IGNORECASE,
)


def _password_in(text: str) -> str | None:
    """Return the secret if ``text`` (stripped) is a PASSWORD line, else None."""
    words = text.split(None, 1)
    if len(words) == 2 and tokens.keyword(words[0]) == "PASSWORD":
        return words[1].strip()
    return None


class Lines:
    """A message's lines and what was read from them: the state the parser builds on."""

    def __init__(self, lines: list[str], max_command_lines: int = MAX_COMMAND_LINES) -> None:
        self.lines = lines
        self.limit = max_command_lines
        self.commands: list[Command] = []
        self.errors: list[ParseError] = []
        self.ignored: list[IgnoredLine] = []
        self.passwords: list[tuple[int, str]] = []
        self.command_lines: set[int] = set()
        self.too_many = False
        # The rules in effect, by title, for the proposals' changes (None: none known).
        self.titles: RuleTitles | None = None
        self._landmarks: tuple[list[int], dict[str, list[int]], dict[str, list[int]]] | None = None

    # ------------------------------------------------------------------ line kinds

    def stops(self, index: int, text: str | None = None) -> bool:
        """Tell whether line ``index`` ends what is read: signature, END/THANKS/STOP, history.

        ``text`` is the line with white space stripped, if the caller has it.
        """
        if text is None:
            text = self.lines[index].strip()
        if text[:1] not in _STOP_INITIALS:
            return False
        if text == "--" or _FINAL.fullmatch(text) or _HISTORY.fullmatch(text):
            return True
        if _HEADER_FROM.fullmatch(text):
            for following in self.lines[index + 1 : index + 4]:
                if following.strip():
                    return _HEADER_SENT.fullmatch(following.strip()) is not None
        return False

    def collect(self, start: int, ends: tuple[str, ...]) -> tuple[Block, int, bool]:
        """Read a block from line ``start``: (block, index after it, closed by an end line)."""
        lines: list[tuple[int, str]] = []
        index = start
        while index < len(self.lines):
            raw = self.lines[index]
            text = raw.strip()
            if text and tokens.end_name(text) in ends:
                return Block(tuple(lines), self.titles), index + 1, True
            if self.stops(index):
                return Block(tuple(lines), self.titles), len(self.lines), False
            if not _QUOTED.match(raw):
                secret = _password_in(text)
                if secret is None:
                    lines.append((index + 1, raw.rstrip()))
                else:  # never let the Speaker's password become a block's text
                    self.password_line(index + 1, text.split()[0], secret)
            index += 1
        return Block(tuple(lines), self.titles), index, False

    def block_follows(self, start: int, plan: Plan) -> bool:
        """Tell whether an optional block is closed before the message ends or the verb recurs.

        Looks up indexes built once per message (see :meth:`landmarks`), so that
        many block commands in one message cost no more than one pass over it.
        """
        stops, ends, verbs = self.landmarks()

        def first(at: list[int]) -> int:
            position = bisect_left(at, start)
            return at[position] if position < len(at) else len(self.lines)

        end = min(first(ends.get(name, [])) for name in plan.ends)
        return (
            end < len(self.lines) and end < first(stops) and end < first(verbs.get(plan.opener, []))
        )

    def landmarks(self) -> tuple[list[int], dict[str, list[int]], dict[str, list[int]]]:
        """Index the lines that can end a block: stop lines, END lines, and lines by verb."""
        if self._landmarks is None:
            stops: list[int] = []
            ends: dict[str, list[int]] = {}
            verbs: dict[str, list[int]] = {}
            for index, raw in enumerate(self.lines):
                text = raw.strip()
                if not text or _QUOTED.match(text):
                    continue
                name = tokens.end_name(text)
                if name.startswith("END "):
                    ends.setdefault(name, []).append(index)
                elif self.stops(index):
                    stops.append(index)
                else:
                    spec = KEYWORDS.get(tokens.keyword(text.split()[0]))
                    if spec is not None:
                        verbs.setdefault(spec.verb, []).append(index)
            self._landmarks = (stops, ends, verbs)
        return self._landmarks

    # ------------------------------------------------------------------ recording
    def error(self, line: int, text: str, reason: str) -> None:
        """Record that line ``line`` (quoted as ``text``) cannot be read, and why."""
        self.errors.append(ParseError(line, tokens.shown(text), reason))
        self.count(line)

    def count(self, line: int) -> None:
        """Count line ``line`` as a command line; past the limit, the message is refused."""
        self.command_lines.add(line)
        if len(self.command_lines) > self.limit:
            self.too_many = True

    def finish_plan(self, plan: Plan, line: int, text: str, index: int) -> int:
        """Read the block of ``plan`` (if any), build the command; return the next index."""
        block: Block | None = None
        if plan.block == "required":
            block, index, closed = self.collect(index + 1, plan.ends)
            if not closed:
                self.error(
                    line,
                    text,
                    f"{plan.opener} is never closed: write {plan.ends[0]} on a line of its own "
                    "after its text (before any signature)",
                )
                return len(self.lines)
        elif plan.block == "optional" and self.block_follows(index + 1, plan):
            block, index, _closed = self.collect(index + 1, plan.ends)
        else:
            index += 1
        self.record(plan.build(block), line, text)
        return index

    def record(self, built: Command | list[ParseError], line: int, text: str) -> None:
        """Record what a plan built from line ``line`` (quoted as ``text``): a command or errors.

        An error that quotes no text is about the command's first line, and quotes it.
        """
        if isinstance(built, list):
            self.errors.extend(
                error if error.text else ParseError(error.line, tokens.shown(text), error.reason)
                for error in built
            )
        else:
            self.commands.append(built)
        self.count(line)

    def password_line(self, line: int, first: str, secret: str) -> None:
        """Record a PASSWORD line; two different secrets in one message are an error."""
        if self.passwords and self.passwords[0][1] != secret:
            self.error(
                line,
                f"{first} {REDACTED}",
                "this message has two different PASSWORD lines; give the password only once",
            )
        self.passwords.append((line, secret))

