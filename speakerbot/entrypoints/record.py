"""``speakerbot record export|verify``: the record as JSONL, and its hash chain checked.

The export is one JSON object a line: ``seq``, ``at``, ``type``, the event's fields, then
``prev`` and ``hash`` as the database holds them (``speakerbot.engine.chain`` says how a
hash is made). ``--public`` writes the public record only, as players may see it. A file
is written 0600 (0644 with ``--public``) whatever the umask, even over an older file.
``verify`` checks the database's two chains, or an export's chain; it exits 0 when the
chain holds and 1 naming the first event that breaks it.
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
from speakerbot.entrypoints.commands import USER_ERRORS as _COMMAND_ERRORS
from speakerbot.entrypoints.exports import write_export
from speakerbot.entrypoints.opening import open_game, settings_from

USER_ERRORS = (*_COMMAND_ERRORS, OSError, json.JSONDecodeError)

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
    """Check a chain; print what holds, or the first broken event (exit 1)."""
    if args.file:
        lines = _read_lines(Path(args.file))
        broken = chain.verify(lines)
        where, count = args.file, len(lines)
    else:
        with open_game(settings_from(args)) as service:
            stored = service.stored_record(as_stored=True)
        broken = chain.verify_stored(stored)
        where, count = "the database", len(stored)
    if broken is not None:
        print(f"the record's chain is broken at event {broken.seq}: {broken.problem}")
        return 1
    print(f"the record's chain holds: {count} events in {where}")
    return 0


def _read_lines(path: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for text in handle:
            if text.strip():
                value = json.loads(text)
                lines.append(value if isinstance(value, dict) else {"seq": None})
    return lines


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
