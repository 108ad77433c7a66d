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

_Open = tuple[str, int]
"""What a line leaves open: a multi-line string's delimiter (or ""), and arrays' depth."""

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
        text = data.decode("utf-8")
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
    still_open: _Open = ("", 0)  # a multi-line string or array that goes on, skipped
    for number, raw in enumerate(text.splitlines(), start=1):
        if still_open != ("", 0):
            still_open = _still_open(raw, still_open)
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
            still_open = _still_open(assign.group(2), ("", 0))
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


def _still_open(value: str, before: _Open) -> _Open:
    """Return what is still open at the end of a line: a multi-line string, or arrays.

    ``before``: what was open where ``value`` begins. Quotes, brackets and ``#`` are read
    as TOML reads them: inside a string they are text, and a ``#`` outside one begins a
    comment (counting them anywhere misplaced the lines of every key after them).
    """
    quote, depth = before
    index = 0
    while index < len(value):
        if quote:
            index = _string_end(value, index, quote)
            if index < 0:
                return (quote if len(quote) == 3 else "", depth)
            quote = ""
        elif value.startswith(('"""', "'''"), index):
            quote, index = value[index:index + 3], index + 3
        elif value[index] in "\"'":
            quote, index = value[index], index + 1
        elif value[index] == "#":
            break
        else:
            depth += {"[": 1, "]": -1}.get(value[index], 0)
            index += 1
    return ("", max(depth, 0))


def _string_end(value: str, index: int, quote: str) -> int:
    """Return where the string closed by ``quote`` ends in ``value``, from ``index``; or -1."""
    while index < len(value):
        if quote[0] == '"' and value[index] == "\\":
            index += 2  # an escape: the next character is text
        elif value.startswith(quote, index):
            index += len(quote)
            # A multi-line string may end in up to two more quotes of its own.
            for _ in range(2 if len(quote) == 3 else 0):
                if value.startswith(quote[0], index):
                    index += 1
            return index
        else:
            index += 1
    return -1
