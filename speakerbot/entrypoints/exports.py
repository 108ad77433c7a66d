"""A game's record written as the export's JSONL (``record export``, ``init`` keeping a copy)."""

from __future__ import annotations

import itertools
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from speakerbot.engine import chain


def write_export(stored: list[chain.StoredEvent], out: TextIO, *, public: bool) -> int:
    """Write the record (or the public record) as the export's JSONL; return the lines."""
    count = 0
    for line in chain.lines(stored, public=public):
        out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        count += 1
    return count


def keep_copy(stored: list[chain.StoredEvent], folder: Path, game_id: str) -> Path:
    """Write the whole record, as ``record export`` would, to a new file in ``folder``.

    The copy of a record about to be deleted (``init --force``): named with the game's id
    and the time, never over an older copy, readable by its owner alone (the full record
    holds every sealed ballot).
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    for attempt in itertools.count(1):
        suffix = "" if attempt == 1 else f"-{attempt}"
        path = folder / f"speakerbot-record-{game_id or 'game'}-{stamp}{suffix}.jsonl"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            write_export(stored, out, public=False)
            # On disk before the game it copies is deleted.
            out.flush()
            os.fsync(out.fileno())
        return path
    raise AssertionError("itertools.count never ends")
