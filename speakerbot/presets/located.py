"""A TOML file read with the line of every key, so that each fault can say where it is.

``tomllib`` reads the values but keeps no positions, and neither does ``tomlkit``; a
ruleset or a game's snapshot is checked whole and each fault names its line, so the
lines are found by a small scan beside the parse. The scan knows only what these files
are written in (tables, arrays of tables, ``key = value`` lines, multi-line strings and
arrays); a key it cannot place is reported without a line, never misplaced.

Every TOML file speakerbot reads (a configuration, a ruleset, a snapshot) is parsed by
:func:`load_toml`, within bounds no honest file comes near: tomllib parses nested arrays
and inline tables by recursion, and Python's own recursion (in tomllib, or later in
msgspec and ``repr``) gives out a few hundred levels down, as its integers give out past
4,300 digits; a file beyond the bounds is one fault, with its line, never a traceback.
"""

from __future__ import annotations

import difflib
import re
import sys
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 1_000_000
"""The largest ruleset or snapshot read: a long-played game's rules fit in a few hundred
kilobytes; a larger file is refused before it is read, so it costs nothing."""

MAX_DEPTH = 20
"""The deepest tables, arrays and inline tables are nested in a file read: the files need
three levels at most, and Python's recursion gives out in the hundreds."""

Key = tuple[str | int, ...]
"""Where a value is: table names, key names and array indexes (from 0), top down."""

_INT64 = 1 << 63  # TOML's integers are 64-bit: a larger one "must" be an error, says TOML 1.0
_TOO_DEEP = (f"tables, arrays and inline tables nested more than {MAX_DEPTH} deep; speakerbot "
             "reads no deeper")
_TOO_BIG = "a whole number beyond TOML's 64 bits (-9223372036854775808 to 9223372036854775807)"
# The pieces of TOML text a bound's line is found by: each string whole (a bracket in one
# opens nothing), a comment, a bracket or brace, a line's end, a run of the rest, and a
# lone quote (in a file tomllib refuses) as a piece of its own.
_PIECES = re.compile(r"""
    "{3}(?:\\.|[^\\])*?"{3,5} | '{3}.*?'{3,5}    # multi-line strings: 2 more quotes may end one
  | "(?:\\.|[^"\\\n])*" | '[^'\n]*'              # one-line strings
  | \#[^\n]* | [\[\]{}\n] | [^\[\]{}"'\#\n]+ | ["']
""", re.DOTALL | re.VERBOSE)

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
        parsed = load_toml(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+), column \d+\)", str(error))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        return _broken(f"not TOML: {message}", int(found.group(1)) if found else None)
    except TomlRefused as refused:
        return Located({}, {}, [Fault(refused.line, refused.key, refused.reason)])
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


class TomlRefused(ValueError):
    """TOML beyond the bounds of :func:`load_toml`: what, where (a line, a key) when known."""

    def __init__(self, reason: str, line: int | None, key: str = "") -> None:
        self.reason = reason
        self.line = line
        self.key = key
        where = ", ".join(part for part in (
            f"line {line}" if line is not None else "", key) if part)
        super().__init__(f"{reason} (at {where})" if where else reason)


def load_toml(text: str) -> dict[str, Any]:
    """Parse TOML as ``tomllib.loads`` does, within the bounds no honest file comes near.

    Raise ``tomllib.TOMLDecodeError`` for text that is not TOML, and TomlRefused for tables,
    arrays and inline tables nested more than :data:`MAX_DEPTH` deep, or a whole number
    beyond TOML's 64 bits: each would crash what reads it (tomllib, msgspec, ``repr``).
    """
    try:
        data = tomllib.loads(text)
    except RecursionError:
        # tomllib reads an array or inline table within another by recursion.
        raise TomlRefused(_TOO_DEEP, _deep_line(text)) from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:
        # tomllib makes each integer an int, which Python refuses past 4,300 digits.
        raise TomlRefused(_TOO_BIG, _long_number_line(text)) from None
    _check_bounds(data, text)
    return data


def _check_bounds(data: dict[str, Any], text: str) -> None:
    """Raise TomlRefused for a table or array nested too deep, or an integer out of range.

    Walked with a list, not by recursion: the walk must not fail where tomllib did not.
    """
    waiting: list[tuple[Key, object]] = [((), data)]
    while waiting:
        key, value = waiting.pop()
        if isinstance(value, int) and not -_INT64 <= value < _INT64:
            raise TomlRefused(_TOO_BIG, _line_of(text, key), key_name(key))
        if not isinstance(value, dict | list):
            continue
        if len(key) > MAX_DEPTH:
            raise TomlRefused(_TOO_DEEP, _deep_line(text) or _line_of(text, key))
        inside = value.items() if isinstance(value, dict) else enumerate(value)
        # Reversed, so that the first out of bounds in the file is the one found.
        waiting.extend(((*key, name), item) for name, item in reversed(list(inside)))


def _deep_line(text: str) -> int | None:
    """Return the line where brackets and braces first open more than MAX_DEPTH deep."""
    line, depth = 1, 0
    for piece in _PIECES.finditer(text):
        found = piece.group()
        if found in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return line
        elif found in ("]", "}"):
            depth = max(depth - 1, 0)
        line += found.count("\n")
    return None


def _long_number_line(text: str) -> int | None:
    """Return the line of the first number of more digits than Python makes an int of."""
    digits = re.compile(rf"\d{{{sys.get_int_max_str_digits() + 1}}}")
    line = 1
    for piece in _PIECES.finditer(text):
        found = piece.group()
        if found[0] not in "\"'#" and digits.search(found.replace("_", "")):
            return line
        line += found.count("\n")
    return None


def _line_of(text: str, key: Key) -> int | None:
    """Return the line of the key the file writes nearest ``key``: the longest shared start."""
    lines = _key_lines(text)
    for size in range(len(key), 0, -1):
        found = [line for placed, line in lines.items() if placed[:size] == key[:size]]
        if found:
            return min(found)
    return None


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
