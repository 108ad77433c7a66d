"""A TOML file read with the line of every key, so that each fault can say where it is.

``tomllib`` reads the values but keeps no positions, and neither does ``tomlkit``; a
ruleset or a game's snapshot is checked whole and each fault names its line, so the
lines are found by a small scan beside the parse. The scan knows only what these files
are written in (tables, arrays of tables, ``key = value`` lines, multi-line strings and
arrays); a key it cannot place is reported without a line, never misplaced.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 1_000_000
"""The largest ruleset or snapshot read: a long-played game's rules fit in a few hundred
kilobytes; a larger file is refused before it is read, so it costs nothing."""

Key = tuple[str | int, ...]
"""Where a value is: table names, key names and array indexes (from 0), top down."""

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
_ASSIGN = re.compile(r"^\s*([A-Za-z0-9_\-]+(?:\s*\.\s*[A-Za-z0-9_\-]+)*)\s*=(.*)$")


@dataclass(frozen=True)
class Fault:
    """One thing wrong in a file: where, which key, and what is allowed."""

    line: int | None
    key: str
    message: str

    def said(self, origin: str) -> str:
        """Return the fault as one line: ``FILE:LINE: key: message``."""
        where = f"{origin}:{self.line}" if self.line is not None else origin
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


class PresetError(ValueError):
    """A ruleset is unknown, cannot be read, or has faults."""


class FileFaults(PresetError):
    """A file has faults: every one found, in the order of the file."""

    def __init__(self, origin: str, faults: Sequence[Fault]) -> None:
        self.origin = origin
        self.faults = sorted(faults, key=lambda f: (f.line is None, f.line or 0))
        count = len(self.faults)
        head = f"{origin}: {count} fault{'s' if count != 1 else ''}"
        super().__init__("\n".join([head, *(f.said(origin) for f in self.faults)]))


def key_name(key: Key) -> str:
    """Write a key as the file's reader thinks of it: ``rules[3].number`` (counted from 1)."""
    written = ""
    for part in key:
        if isinstance(part, int):
            written += f"[{part + 1}]"
        else:
            written += f".{part}" if written else part
    return written


@dataclass
class Located:
    """A parsed TOML document and the line where each key (or table) begins."""

    data: dict[str, Any]
    lines: dict[Key, int]
    faults: list[Fault] = field(default_factory=list)

    def line(self, key: Key) -> int | None:
        """Return the line of ``key``, or of the nearest enclosing table that has one."""
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return None

    def fault(self, key: Key, message: str) -> None:
        """Note a fault at ``key``."""
        self.faults.append(Fault(self.line(key), key_name(key), message))

    def table(self, key: Key, *, required: bool, holds: str = "") -> dict[str, Any]:
        """Return the table at ``key``; a fault where it is missing (if required) or no table.

        ``holds``: what the table should hold, said in the fault.
        """
        found: Any = self.data
        for part in key:
            found = found.get(part) if isinstance(found, dict) else None
        if isinstance(found, dict):
            return found
        if found is not None or required:
            self.fault(key, f"expected a [{key_name(key)}] table{holds}")
        return {}

    def entries(self, name: str, known: Sequence[str], *,
                needed: str = "") -> Iterator[tuple[Key, dict[str, Any]]]:
        """Yield each table of the array ``[[name]]`` with its key, noting what is wrong.

        An entry that is no table, and every unknown key in one, is a fault. ``needed``:
        the array must have an entry, and the fault says what each holds.
        """
        found = self.data.get(name, [])
        if not isinstance(found, list) or (needed and not found):
            self.fault((name,), f"expected [[{name}]] tables{needed}")
            return
        for index, entry in enumerate(found):
            at: Key = (name, index)
            if not isinstance(entry, dict):
                self.fault(at, f"expected a [[{name}]] table")
                continue
            self.unknown_keys(at, entry, known)
            yield at, entry

    def unknown_keys(self, key: Key, table: Mapping[str, Any], known: Iterable[str]) -> None:
        """Note each key of ``table`` that is not ``known``, naming the nearest known one."""
        allowed = list(known)
        for name in table:
            if name not in allowed:
                # The nearest key alone where one is near; the whole list only otherwise.
                near = difflib.get_close_matches(name, allowed, n=1)
                self.fault((*key, name), f"unknown key; did you mean {near[0]}?" if near else
                           f"unknown key; the keys here are {', '.join(allowed)}")


def shown(value: object) -> str:
    """Show a value found in a file, briefly, as a fault quotes it."""
    if value is None:
        return "nothing"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_located(data: bytes, origin: str) -> Located:
    """Parse TOML ``data``; a file too large or not TOML gives a ``Located`` with its fault."""
    if len(data) > MAX_FILE_BYTES:
        return _broken(f"the file is {len(data):,} bytes; the most read is "
                       f"{MAX_FILE_BYTES:,} bytes")
    try:
        # An editor's byte-order mark is no part of the TOML (tomllib refuses it).
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return _broken("the file is not UTF-8 text", line)
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+), column \d+\)", str(error))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        return _broken(f"not TOML: {message}", int(found.group(1)) if found else None)
    return Located(parsed, _key_lines(text))


def read_located_file(path: Path) -> Located:
    """Read a file with :func:`read_located`; one that cannot be read is a fault too."""
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
            size = path.stat().st_size
    except OSError as error:
        return _broken(f"cannot read the file: {error.strerror or error}")
    if size > MAX_FILE_BYTES:
        return _broken(f"the file is {size:,} bytes; the most read is {MAX_FILE_BYTES:,} bytes")
    return read_located(data, str(path))


def _broken(message: str, line: int | None = None) -> Located:
    return Located({}, {}, [Fault(line, "", message)])


def _key_lines(text: str) -> dict[Key, int]:
    """Map each key the text assigns, and each table header, to its line (from 1)."""
    lines: dict[Key, int] = {}
    counts: dict[Key, int] = {}
    table: Key = ()
    closing = ""  # what is open, being skipped: arrays' brackets, a multi-line string's quotes
    for number, raw in enumerate(text.split("\n"), start=1):  # as TOML counts lines
        if closing:
            closing = _still_open(raw, closing)
            continue
        header = _HEADER.match(raw)
        if header is not None:
            names = tuple(_parts(header.group(2)))
            if header.group(1) == "[[":
                index = counts.get(names, 0)
                counts[names] = index + 1
                table = (*names, index)
            else:
                table = _under_arrays(names, counts)
            lines.setdefault(table, number)
            continue
        assign = _ASSIGN.match(raw)
        if assign is not None:
            lines.setdefault((*table, *_parts(assign.group(1))), number)
            closing = _still_open(assign.group(2))
    return lines


def _under_arrays(names: tuple[str, ...], counts: dict[Key, int]) -> Key:
    """Place ``[a.b]`` under the last entry of an array of tables ``[[a]]`` it belongs to."""
    placed: list[str | int] = []
    for index, name in enumerate(names):
        placed.append(name)
        seen = counts.get(names[: index + 1])
        if seen:
            placed.append(seen - 1)
    return tuple(placed)


def _parts(dotted: str) -> list[str]:
    return [part.strip().strip("\"'") for part in dotted.split(".")]


def _still_open(value: str, opened: str = "") -> str:
    """Return what a line leaves open at its end, given what was open at its start.

    What is open is written innermost last: a ``]`` for each array, then the delimiter of
    a multi-line string. Strings on the line are skipped whole (a bracket or three quotes
    inside one opens nothing), and so is a comment.
    """
    at = 0
    while at < len(value):
        if opened.endswith(('"""', "'''")):
            end = _string_end(value, at, opened[-3:])
            if end is None:
                return opened
            opened, at = opened[:-3], end
            continue
        quote = next((q for q in ('"""', "'''", '"', "'") if value.startswith(q, at)), "")
        if quote:
            end = _string_end(value, at + len(quote), quote)
            if end is None:  # a one-line string left open is not TOML: tomllib says so
                return opened + quote if len(quote) == 3 else opened
            at = end
            continue
        if value[at] == "#":
            break
        if value[at] == "[":
            opened += "]"
        elif value[at] == "]" and opened.endswith("]"):
            opened = opened[:-1]
        at += 1
    return opened


def _string_end(value: str, at: int, quote: str) -> int | None:
    """Return where a string that goes on at ``at`` ends on this line (past it), or None."""
    while at < len(value):
        if value[at] == "\\" and quote[0] == '"':
            at += 2  # an escaped character, a quote perhaps
            continue
        if value.startswith(quote, at):
            at += len(quote)
            # A multi-line string may end with one or two quotes of its own before the three.
            while len(quote) == 3 and value.startswith(quote[0], at):
                at += 1
            return at
        at += 1
    return None
