"""``speakerbot record export|verify``: the record as JSONL, and its hash chain checked.

The export is one JSON object a line: ``seq``, ``at``, ``type``, the event's fields, then
``prev`` and ``hash`` as the database holds them (``speakerbot.engine.chain`` says how a
hash is made). ``--public`` writes the public record only, as players may see it. A file
is written 0600 (0644 with ``--public``) whatever the umask, even over an older file.
``verify`` checks the database's two chains, or an export's chain, then every draw of the
public record (``speakerbot.engine.draw_check``); it exits 0 when the chain holds and every
draw verifies or awaits its seed, and 1 naming the first event that breaks the chain or
each draw that does not verify, or the first line of the file that is not a JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from speakerbot.engine import chain
from speakerbot.engine.draw_check import check_draws, report_lines
from speakerbot.entrypoints.commands import USER_ERRORS as _COMMAND_ERRORS
from speakerbot.entrypoints.exports import write_export
from speakerbot.entrypoints.opening import open_game, settings_from

USER_ERRORS = (*_COMMAND_ERRORS, OSError)

MAX_DEPTH = 100
"""How deeply a line of an export may nest: an event nests a few levels, never a hundred."""

PRIVATE_MODE = 0o600
"""A full export's mode: it holds sealed ballots and their salts, for the host alone."""

PUBLIC_MODE = 0o644
"""A ``--public`` export's mode: what every player may see, as the archive's record.jsonl."""


def record_export(args: argparse.Namespace) -> int:
    """Write the record (or the public record) as JSONL to a file or standard output."""
    with open_game(settings_from(args)) as service:
        stored = service.stored_record()
    with _output(args.file, PUBLIC_MODE if args.public else PRIVATE_MODE) as out:
        count = write_export(stored, out, public=args.public)
    if args.file != "-":
        which = "public record" if args.public else "record"
        print(f"wrote {count} events of the {which} to {args.file}")
    return 0


def record_verify(args: argparse.Namespace) -> int:
    """Check a chain and the draws; print what holds, or what does not (exit 1).

    The draws are checked even when the chain is broken: a forger who changed an outcome
    and wrote every hash after it again still fails on the draw, whose anchor came before.
    """
    if args.file:
        try:
            lines = _read_lines(Path(args.file))
        except NotAnObject as error:
            print(error)
            return 1
        broken = chain.verify(lines)
        where, count, public = args.file, len(lines), _public_lines(lines)
    else:
        with open_game(settings_from(args)) as service:
            stored = service.stored_record(as_stored=True)
        broken = chain.verify_stored(stored)
        where, count = "the database", len(stored)
        public = list(chain.lines(stored, public=True))
    if broken is not None:
        print(f"the record's chain is broken at event {broken.seq}: {broken.problem}")
    else:
        print(f"the record's chain holds: {count} events in {where}")
    draws = check_draws(public)
    for line in report_lines(draws):
        print(line)
    return 1 if broken is not None or draws.failures else 0


def _public_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the public record's lines of an export, which may be the host's full one.

    A draw is anchored to a line of the public record, by its number and hash there; a
    full export (it has private events) numbers and hashes every event, so its public lines
    are linked again from its events, as the public record links them.
    """
    if all(chain.is_public(line) for line in lines):
        return lines
    events = ({key: value for key, value in line.items() if key not in ("seq", "prev", "hash")}
              for line in lines)
    return list(chain.public_lines_after(chain.Links(), events))


class NotAnObject(Exception):
    """A line of an export that is no JSON object an event could be: ``verify`` exits 1."""


def _read_lines(path: Path) -> list[dict[str, Any]]:
    """Read an export's lines, each a JSON object; raise NotAnObject at the first that is not.

    A hostile file must end in one clear line, not a traceback: bytes that are not UTF-8,
    a number too long for ``int`` (over 4300 digits), nesting too deep for the parser or for
    the checks that walk a line afterwards.
    """
    lines: list[dict[str, Any]] = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            where = f"line {number} of {path} is not a JSON object"
            try:
                text = raw.decode("utf-8")
                value = json.loads(text) if text.strip() else None
            except UnicodeDecodeError:
                raise NotAnObject(f"{where}: it is not UTF-8") from None
            except RecursionError:
                raise NotAnObject(f"{where}: it is nested too deeply") from None
            except json.JSONDecodeError as error:
                raise NotAnObject(f"{where}: {error.msg} (column {error.colno})") from None
            except ValueError as error:  # a number of more digits than int will read
                raise NotAnObject(f"{where}: {error}") from None
            if text.strip():
                if not isinstance(value, dict):
                    raise NotAnObject(where)
                if _depth(value) > MAX_DEPTH:
                    raise NotAnObject(f"{where}: it is nested too deeply")
                lines.append(value)
    return lines


def _depth(value: Any) -> int:
    """Return how deeply ``value`` nests, without recursion (it may nest a thousand deep)."""
    deepest, waiting = 0, [(value, 1)]
    while waiting:
        item, depth = waiting.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        if isinstance(item, dict):
            waiting.extend((each, depth + 1) for each in item.values())
        elif isinstance(item, list):
            waiting.extend((each, depth + 1) for each in item)
    return deepest


@contextmanager
def _output(name: str, mode: int) -> Iterator[TextIO]:
    """Open the export's file with ``mode``, whatever the umask and whoever made it before.

    The mode is set on the open file before a line is written, so that a full export is
    never readable by others, not even for a moment, nor left so by an older file's mode.
    """
    if name == "-":
        yield sys.stdout
        return
    descriptor = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(descriptor, mode)
    except BaseException:
        os.close(descriptor)
        raise
    with open(descriptor, "w", encoding="utf-8") as handle:
        yield handle
