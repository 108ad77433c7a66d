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

In a game of record version 2 a public line is the event's *public form*: every player's
address written as their public id (``speakerbot.engine.publicity``), and its hash is
taken of that; the full chain keeps the event as recorded. A game of version 1 shows its
events as recorded in both, as it always did.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from speakerbot.engine.events import EVENT_TYPES
from speakerbot.engine.publicity import learn, public_form

GENESIS = "0" * 64
"""The ``prev`` of a chain's first line."""


@dataclass(frozen=True)
class Head:
    """The end of a chain: the number and hash of its last line (0 and GENESIS if empty)."""

    seq: int = 0
    hash: str = GENESIS

    @classmethod
    def of(cls, line: Mapping[str, Any]) -> Head:
        """Return the head of a chain whose last line is ``line``."""
        return cls(line["seq"], line["hash"])


@dataclass(frozen=True)
class Break:
    """Where a chain does not hold: the line's number and what is wrong with it."""

    seq: int
    problem: str


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
        last = Head.of(line)
    return last


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


# --- The chains as the store keeps them -----------------------------------------------------


@dataclass(frozen=True)
class Links:
    """Where the record's two chains end: the full record's and the public record's.

    With the public ids known there (address: id) and the record version of the game in
    hand, which say how the next public line is written.
    """

    full: Head = Head()
    public: Head = Head()
    ids: Mapping[str, str] = field(default_factory=dict)
    version: int = 1


@dataclass(frozen=True)
class Linked:
    """An event's place in the chains: its hash, and its number and hash if public."""

    seq: int
    hash: str
    public_seq: int | None = None
    public_hash: str | None = None


def shown(data: Mapping[str, Any], ids: Mapping[str, str], version: int) -> Mapping[str, Any]:
    """Return a public event's JSON as its game's public record shows it."""
    return public_form(data, ids) if version >= 2 else data


def public_lines_after(links: Links, events: Iterable[Mapping[str, Any]],
                       ) -> Iterator[dict[str, Any]]:
    """Link recorded events after ``links`` as the public record would: its lines only."""
    ids, version = dict(links.ids), links.version
    public = links.public
    for data in events:
        version = learn(ids, version, data)
        if is_public(data):
            line = link(public.seq + 1, shown(data, ids, version), public.hash)
            public = Head.of(line)
            yield line


def link_all(links: Links, events: Iterable[tuple[int, Mapping[str, Any]]],
             ) -> tuple[list[Linked], Links]:
    """Link events, each with its record number, after ``links``.

    Each is numbered in the public record too if it is public. Return each event's place
    and where the chains then end. (The record's numbers are the store's: they only grow,
    though a database may skip one; the public record's are counted here.)
    """
    placed: list[Linked] = []
    full, public = links.full, links.public
    ids, version = dict(links.ids), links.version
    for seq, data in events:
        line = link(seq, data, full.hash)
        full = Head.of(line)
        version = learn(ids, version, data)
        if is_public(data):
            public_line = link(public.seq + 1, shown(data, ids, version), public.hash)
            public = Head.of(public_line)
            placed.append(Linked(full.seq, full.hash, public.seq, public.hash))
        else:
            placed.append(Linked(full.seq, full.hash))
    return placed, Links(full, public, ids, version)


@dataclass(frozen=True)
class StoredEvent:
    """An event as the store keeps it: its number, its JSON, and its place in the chains."""

    seq: int
    data: Mapping[str, Any]
    place: Linked | None  # None: recorded before the chains, not linked yet


@dataclass(frozen=True)
class Bookmark:
    """Where a reading of the stored record as lines stopped: enough to read on from there.

    ``after`` is the record's number of the last event read (0: none), ``prev`` the hash
    of the last line written, ``ids`` and ``version`` the public ids and record version
    as of that event (``speakerbot.engine.publicity``).
    """

    after: int = 0
    prev: str = GENESIS
    ids: Mapping[str, str] = field(default_factory=dict)
    version: int = 1


def lines(stored: Iterable[StoredEvent], *, public: bool) -> Iterator[dict[str, Any]]:
    """Write the stored record as its chain's lines, with the hashes as stored.

    ``public``: the public record only, numbered as it is, each event in its public form
    (no address, from record version 2). The hashes are the stored ones, not computed
    again, so that an export shows whatever the database holds, and :func:`verify` of the
    export finds what was changed there.
    """
    yield from _read(stored, Bookmark(), public, [])


def read_on(stored: Iterable[StoredEvent], start: Bookmark, *,
            public: bool) -> tuple[list[dict[str, Any]], Bookmark]:
    """Write the stored events that follow ``start`` as :func:`lines` would; where it ends.

    Reading a record in pieces, each from where the last stopped, gives the lines of
    reading it whole.
    """
    ends: list[Bookmark] = []
    found = list(_read(stored, start, public, ends))
    return found, ends[0]


def _read(stored: Iterable[StoredEvent], start: Bookmark, public: bool,
          ends: list[Bookmark]) -> Iterator[dict[str, Any]]:
    """Yield the lines of the ``stored`` events after ``start``; then add where they end."""
    prev, ids, version, after = start.prev, dict(start.ids), start.version, start.after
    for event in stored:
        place, after = event.place, event.seq
        version = learn(ids, version, event.data)
        if public and (place is None or place.public_seq is None):
            continue
        seq = event.seq if not public or place is None else place.public_seq
        value = (place.public_hash if public else place.hash) if place is not None else None
        data = shown(event.data, ids, version) if public else event.data
        line: dict[str, Any] = {"seq": seq}
        line.update((key, item) for key, item in data.items() if key not in line)
        line["prev"], line["hash"] = prev, value
        prev = value or ""
        yield line
    ends.append(Bookmark(after, prev, ids, version))


def verify_stored(stored: Iterable[StoredEvent]) -> Break | None:
    """Check both chains of a stored record; return the first break (by its record number).

    Every event must be linked, its hash must match its JSON and the hash before it, and a
    public event must be the next in the public record with the right hash there too.
    """
    links = Links()
    for event in stored:
        expected, links = link_all(links, [(event.seq, event.data)])
        if event.place != expected[0]:
            if event.place is None or event.place.seq != event.seq:
                return Break(event.seq, "it is not linked into the record's chain")
            return Break(event.seq, _what_broke(event.place, expected[0]))
    return None


def _what_broke(found: Linked, expected: Linked) -> str:
    if found.hash != expected.hash:
        return "its hash does not match its content and the hash before it (it was changed)"
    if found.public_seq != expected.public_seq:
        return "its place in the public record is wrong (an event added, hidden or moved)"
    return "its hash in the public record does not match (it was changed)"
