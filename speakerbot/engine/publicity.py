"""Players' public ids: what the public record says in place of their addresses.

Names are public, addresses are not. From record version 2 (a game's ``GameStarted`` says
which), the public record names each player by a public id, everywhere an address stood:
the player's name as they joined (the host and the named Judge by theirs), and, should a
departed player's name be taken again, ``<name> (2)``. An id is given once, at the first
join, and never changes. An address that names nobody (a stranger in an override's words)
is withheld. Receipts of version 2 take the voter's public id (see receipts.py).

The ids are folded from the record itself, by the same rules on the state (``evolve``) and
on the stored JSON (``learn``, for the hash chain), so that a chain linked one transaction
at a time and one relinked from the start agree line for line. A game of version 1 (every
game started before) keeps its addresses in its public record: its hashes were taken over
them, and results mails quote those hashes.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

RECORD_VERSION = 2
"""The version of the public record a game started now keeps (1: addresses, 2: ids)."""

WITHHELD = "(an address)"
"""What the public record says in place of an address that names no one it knows."""

# Characters that end an address written in a text: blanks, brackets, quotes, separators.
_EDGES = frozenset(" \t\r\n\f\v<>()[]{},;:\"'`")


def assign(ids: MutableMapping[str, str], address: str, name: str) -> None:
    """Give ``address`` its public id, once: its name, or ``<name> (n)`` if another has it."""
    if address in ids or not address:
        return
    taken = set(ids.values())
    candidate, count = name, 1
    while candidate in taken or "@" in candidate:
        count += 1
        candidate = f"{name} ({count})".replace("@", " at ")
    ids[address] = candidate


def learn(ids: MutableMapping[str, str], version: int, data: Mapping[str, Any]) -> int:
    """Fold one recorded event's JSON into ``ids``; return the record's version after it.

    A ``GameStarted`` begins a new game: its ids start afresh, with the host's and the
    named Judge's; each ``PlayerJoined`` gives the newcomer theirs.
    """
    kind = data.get("type")
    if kind == "GameStarted":
        ids.clear()
        given = data.get("record_version", 1)
        # A hostile export's "2.5" or null must not end ``record verify`` in a traceback.
        version = given if isinstance(given, int) and not isinstance(given, bool) else 1
        assign(ids, str(data.get("host", "")), str(data.get("host_name", "")))
        assign(ids, str(data.get("named_judge", "")), str(data.get("named_judge_name", "")))
    elif kind == "PlayerJoined":
        assign(ids, str(data.get("address", "")), str(data.get("name", "")))
    return version


def public_form(data: Mapping[str, Any], ids: Mapping[str, str]) -> dict[str, Any]:
    """Return an event's JSON as the public record of version 2 shows it: no address.

    A value that is an address becomes its public id; an address within a text (a
    proposal's, an override's words) likewise, or :data:`WITHHELD` when it names no one.
    """
    return {key: value if key == "type" else _public(value, ids) for key, value in data.items()}


def _public(value: Any, ids: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        if value in ids:
            return ids[value]
        return without_addresses(value, ids) if "@" in value else value
    if isinstance(value, list | tuple):
        return [_public(item, ids) for item in value]
    if isinstance(value, dict):
        return {key: _public(item, ids) for key, item in value.items()}
    return value


def without_addresses(text: str, ids: Mapping[str, str]) -> str:
    """Write every address in ``text`` as its public id, or :data:`WITHHELD`.

    An address is the run of characters around an ``@`` up to a blank, a bracket, a quote
    or a separator (a final full stop left out). Each character is looked at a bounded
    number of times, so that a long text costs no more than its length.
    """
    out: list[str] = []
    done = 0  # text[:done] is written out already
    at = text.find("@")
    while at != -1:
        start, end = at, at + 1
        while start > done and text[start - 1] not in _EDGES:
            start -= 1
        while end < len(text) and text[end] not in _EDGES:
            end += 1
        address = text[start:end].rstrip(".")
        if start < at < start + len(address) - 1:
            out += [text[done:start], ids.get(address.lower(), WITHHELD)]
            done = start + len(address)
        at = text.find("@", max(end, at + 1))
    out.append(text[done:])
    return "".join(out)
