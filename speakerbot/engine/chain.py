"""The record as a hash chain: each line carries the SHA-256 of the line before it.

Two chains are kept over one record. The *full* chain links every event in the order it
was recorded, private ones included; only the host sees it. The *public* chain links the
public events alone, numbered by their own count: a private event (a sealed ballot, a
reminder, an answer to one person) takes no number in it, so neither its lines nor their
numbers tell how many ballots were cast before a vote closes. The ballots join the public
record in the event that closes their vote, each with the salt of its receipt.

A line is the event's JSON (``at``, ``type`` and its fields) with its number under
``seq`` and the hash of the line before it under ``prev``; its own ``hash`` is the SHA-256
of that line's canonical JSON (keys sorted, no spaces, UTF-8), ``hash`` left out. The first
line's ``prev`` is :data:`GENESIS`. Changing any byte of a line changes its hash, and so
breaks the next line's ``prev``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from speakerbot.engine.events import EVENT_TYPES

GENESIS = "0" * 64
"""The ``prev`` of a chain's first line."""


@dataclass(frozen=True)
class Head:
    """The end of a chain: the number and hash of its last line (0 and GENESIS if empty)."""

    seq: int = 0
    hash: str = GENESIS


def is_public(data: Mapping[str, Any]) -> bool:
    """Tell whether a recorded event (its JSON) belongs to the public record."""
    kind = EVENT_TYPES.get(str(data.get("type", "")))
    return kind is None or kind.public  # an unknown type is shown, never hidden


def canonical(line: Mapping[str, Any]) -> bytes:
    """Return the bytes a line's hash is taken of: its canonical JSON without ``hash``."""
    body = {key: value for key, value in line.items() if key != "hash"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def digest(line: Mapping[str, Any]) -> str:
    """Return the SHA-256 (64 lowercase hex digits) of a line, as its ``hash``."""
    return hashlib.sha256(canonical(line)).hexdigest()


def link(seq: int, data: Mapping[str, Any], prev: str) -> dict[str, Any]:
    """Return the line of an event numbered ``seq`` after a line whose hash is ``prev``."""
    line: dict[str, Any] = {"seq": seq}
    line.update((key, value) for key, value in data.items() if key not in line)
    line["prev"] = prev
    line["hash"] = digest(line)
    return line


def extend(head: Head, events: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Link events after ``head``, numbering them on from it; yield each line in turn."""
    seq, prev = head.seq, head.hash
    for data in events:
        seq += 1
        line = link(seq, data, prev)
        prev = line["hash"]
        yield line


def head_after(head: Head, events: Iterable[Mapping[str, Any]]) -> Head:
    """Return the chain's head once ``events`` are linked after ``head``."""
    last = head
    for line in extend(head, events):
        last = Head(line["seq"], line["hash"])
    return last


@dataclass(frozen=True)
class Break:
    """Where a chain does not hold: the line's number and what is wrong with it."""

    seq: int
    problem: str


def verify(lines: Iterable[Mapping[str, Any]]) -> Break | None:
    """Check a chain, line by line from its first; return the first break, None if it holds.

    Each line must be numbered one after the last, name the last line's hash as ``prev``,
    and carry its own correct ``hash``.
    """
    expected = Head()
    for line in lines:
        seq = line.get("seq")
        if not isinstance(seq, int) or seq != expected.seq + 1:
            return Break(expected.seq + 1, f"line numbered {seq!r} where "
                         f"{expected.seq + 1} was due (a line missing or moved)")
        if line.get("prev") != expected.hash:
            return Break(seq, "its prev is not the hash of the line before it")
        if line.get("hash") != digest(line):
            return Break(seq, "its hash does not match its content (it was changed)")
        expected = Head(seq, str(line["hash"]))
    return None
