"""Pure helpers for IMAP responses and folder names: no socket, no state.

What the mailbox needs to read out of a FETCH answer, an IDLE line or a LIST
answer, and how it spells UID sets and folder names, kept apart from the
connection so that each piece can be read (and tested) on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from speakerbot.adapters.imap.records import FetchedMessage, ImapConnectionLost

__all__ = [
    "DELETED",
    "announces_mail",
    "chunks",
    "fetched_message",
    "hierarchy_delimiter",
    "idle_line_announces_mail",
    "sizes_to_fetch",
    "uid_set",
]

log = logging.getLogger("speakerbot.imap")

DELETED = b"\\Deleted"


def announces_mail(response: object) -> bool:
    """Whether a response parsed by imapclient is ``(n, b"EXISTS")`` or ``(n, b"RECENT")``."""
    return (
        isinstance(response, tuple)
        and len(response) >= 2
        and isinstance(response[0], int)
        and isinstance(response[1], bytes)
        and response[1].upper() in (b"EXISTS", b"RECENT")
    )


def idle_line_announces_mail(line: bytes, where: str) -> bool:
    """Whether one raw line read during IDLE announces mail (EXISTS or RECENT).

    Raises :class:`ImapConnectionLost` for BYE and for anything but an untagged
    response: the server has then ended IDLE, or the session, on its own.
    """
    parts = line.rstrip(b"\r\n").split(b" ", 2)
    word = parts[1].upper() if len(parts) > 1 else b""
    if parts[0] != b"*":
        # Only a tagged response (IDLE ended by the server) or "+" can get here.
        raise ImapConnectionLost(f"IMAP server {where} ended IDLE unexpectedly: {line!r}")
    if word == b"BYE":
        raise ImapConnectionLost(f"IMAP server {where} said {line!r}")
    if word.isdigit() and len(parts) > 2 and parts[2].upper() in (b"EXISTS", b"RECENT"):
        return True
    log.debug("IDLE: %r", line)
    return False


def hierarchy_delimiter(listed: list[Any]) -> str:
    """Return the hierarchy delimiter of a ``LIST "" ""`` answer ("/" if it names none)."""
    delimiter = listed[0][1] if listed else None
    if isinstance(delimiter, bytes):
        delimiter = delimiter.decode("ascii", "replace")
    return delimiter if isinstance(delimiter, str) and delimiter else "/"


def sizes_to_fetch(
    meta: Mapping[int, Mapping[bytes, Any]], uids: list[int], where: str
) -> dict[int, int]:
    r"""Return the RFC822.SIZE of each of ``uids`` still to fetch, from a FETCH of sizes.

    A UID missing from the answer (expunged meanwhile), flagged ``\Deleted`` or
    without a size is left out.
    """
    sizes: dict[int, int] = {}
    for uid in uids:
        data = meta.get(uid)
        if data is None:
            log.debug("IMAP UID %d vanished before it was fetched", uid)
        elif DELETED in tuple(data.get(b"FLAGS", ())):
            continue
        elif not isinstance(size := data.get(b"RFC822.SIZE"), int):
            log.warning("IMAP UID %d in %s has no RFC822.SIZE; skipped", uid, where)
        else:
            sizes[uid] = size
    return sizes


def fetched_message(
    uidvalidity: int,
    uid: int,
    meta: Mapping[bytes, Any],
    data: Mapping[bytes, Any] | None,
    oversized: int | None,
    where: str,
) -> FetchedMessage | None:
    """Build one message from its FETCH answers; None if its body did not come."""
    if data is None:
        log.debug("IMAP UID %d vanished before it was fetched", uid)
        return None
    raw = data.get(b"BODY[]" if oversized is None else b"BODY[HEADER]<0>")
    if not isinstance(raw, bytes):
        log.warning("IMAP UID %d in %s came without a body; skipped", uid, where)
        return None
    when = meta.get(b"INTERNALDATE")
    if not isinstance(when, datetime):
        log.warning("IMAP UID %d has no INTERNALDATE; using the current time", uid)
        when = datetime.now(UTC)
    elif when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return FetchedMessage(uidvalidity, uid, when.astimezone(UTC), raw, oversized)


def chunks(items: list[int], size: int) -> Iterator[list[int]]:
    """Yield ``items`` in consecutive lists of at most ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def uid_set(uids: list[int]) -> str:
    """Spell UIDs as an IMAP sequence set: ``1,5,7``."""
    return ",".join(str(u) for u in uids)
