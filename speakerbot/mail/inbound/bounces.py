"""Reading a bounce: which VERP address it came back to, and whether delivery failed.

A bounce is mail delivered to one of the game's VERP addresses (:mod:`speakerbot.mail.verp`).
Where it was delivered is read from the headers a delivering server writes for the envelope
recipient (:data:`ADDRESS_HEADERS`: Delivered-To, X-Original-To, Envelope-To, X-Envelope-To;
speakerbot's own LMTP listener writes Delivered-To), never from To or Cc: anyone may write
any address there, and a player answering a discussion with reply-all copies whatever the
first writer put in Cc. :func:`return_path_tokens` lists the tokens found there, for the
service to check each one's MAC, and :func:`read_report` says what kind of report the
message is:

- ``hard``: delivery failed for good (an RFC 3464 ``failed`` with a 5.x.x status, or a
  failure in a non-standard format);
- ``soft``: delivery failed for a reason that may pass (``failed`` with a 4.x.x status,
  such as a full mailbox when the sending server gave up retrying);
- ``delivered``: a successful delivery report (``delivered``, ``relayed``, ``expanded``);
- ``none``: sent to the VERP address but no failure: a delay warning, an auto-reply, or
  anything not recognised.

RFC 3464 delivery reports are read here with the standard library; other formats (Exim,
qmail, old Exchange and the rest) with Mailman's detectors in ``flufl.bounce``. Those report
delay warnings as "temporary failures" (its DSN reader and its warning patterns are the
only sources of them), so a temporary failure from ``flufl.bounce`` is ``none`` here, as a
delayed DSN is; every failure it can report in a non-standard bounce is a permanent one.

Any bytes at all may arrive at a public address: reading never raises, looks at most
:data:`MAX_BOUNCE_BYTES` of a message, and refuses hostile MIME structure before parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email import policy
from email.message import Message
from email.parser import BytesHeaderParser, BytesParser
from email.utils import getaddresses
from typing import Literal

from flufl.bounce import all_failures

from speakerbot.mail.inbound.charsets import decode_bytes
from speakerbot.mail.inbound.headers import first_header, header_values, read_headers
from speakerbot.mail.inbound.mime import MAX_PARTS, Refused, check_limits, prescan
from speakerbot.mail.verp import token_of

__all__ = ["ADDRESS_HEADERS", "MAX_BOUNCE_BYTES", "Bounce", "BounceKind", "read_bounce",
           "read_report", "return_path_tokens"]

BounceKind = Literal["hard", "soft", "delivered", "none"]

MAX_BOUNCE_BYTES = 256 * 1024
"""The most of a bounce that is read: reports come first, the returned message last."""

ADDRESS_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To")
"""Where a VERP address is looked for, in this order: the envelope recipient, as the
delivering server wrote it. To and Cc are the sender's words and are never looked at."""

DETAIL_LENGTH = 200
"""The longest detail given."""

_MAX_VALUES = 20  # per header name: a real bounce has a handful of Delivered-To at most
_MAX_VALUE_CHARS = 2000
_RANK: dict[BounceKind, int] = {"none": 0, "delivered": 1, "soft": 2, "hard": 3}
_STATUS = re.compile(r"\s*([245])\.[0-9]{1,3}\.[0-9]{1,3}")
_BLANK_LINE = re.compile(rb"\r?\n[ \t]*\r?\n")
_SURROGATE = re.compile("[\udc80-\udcff]")  # how the parser keeps a raw 8-bit byte


@dataclass(frozen=True)
class Bounce:
    """A message to one of the game's VERP addresses, and what it reports.

    ``token`` is the VERP token (for :func:`speakerbot.mail.verp.recipient_of`),
    ``kind`` what the report says, ``detail`` one printable line for the logs.
    """

    token: str
    kind: BounceKind
    detail: str


def read_bounce(raw: bytes, game_address: str) -> Bounce | None:
    """Read ``raw`` as a bounce to the game at ``game_address``; never raises.

    None when no header of :data:`ADDRESS_HEADERS` holds one of this game's VERP
    addresses (the message is not a bounce of the game's mail). The token is the first one
    found; whether it is genuine is for :func:`speakerbot.mail.verp.recipient_of`.
    """
    tokens = return_path_tokens(raw, game_address)
    if not tokens:
        return None
    kind, detail = read_report(raw)
    return Bounce(token=tokens[0], kind=kind, detail=detail)


def return_path_tokens(raw: bytes, game_address: str) -> list[str]:
    """Return the VERP tokens of the game's return paths ``raw`` was delivered to, in order.

    In the order of :data:`ADDRESS_HEADERS`, each once; only the first values of each header
    are looked at. Any of them may be a forger's: the caller checks each one's MAC.
    """
    found: list[str] = []
    headers = read_headers(raw)
    for name in ADDRESS_HEADERS:
        for value in header_values(headers, name)[:_MAX_VALUES]:
            for address in _addresses(value[:_MAX_VALUE_CHARS]):
                token = token_of(address, game_address)
                if token is not None and token not in found:
                    found.append(token)
    return found


def read_report(raw: bytes) -> tuple[BounceKind, str]:
    """Return what kind of report ``raw`` is and one printable line about it; never raises."""
    kind, detail = _classify(raw[:MAX_BOUNCE_BYTES])
    return kind, _one_line(detail)


def _one_line(text: str, limit: int = DETAIL_LENGTH) -> str:
    """Return ``text`` as one line of printable characters, at most ``limit`` long."""
    printable = "".join(ch if ch.isprintable() else " " for ch in text[: limit * 4])
    return " ".join(printable.split())[:limit]


def _addresses(value: str) -> list[str]:
    try:
        return [address for _, address in getaddresses([value]) if address]
    except Exception:
        # A header is whatever a stranger wrote; one that the parser chokes on names nobody.
        return []


def _classify(raw: bytes) -> tuple[BounceKind, str]:
    try:
        prescan(raw)
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
        check_limits(message)
    except Refused as refused:
        return "none", f"not read: MIME structure refused ({refused.reason or 'unreadable'})"
    except RecursionError:
        return "none", "not read: MIME structure too deep"
    report = _delivery_report(message)
    return report if report is not None else _other_bounce(message)


def _delivery_report(message: Message) -> tuple[BounceKind, str] | None:
    """Return the worst per-recipient outcome of an RFC 3464 report; None when it is not one."""
    parts = _delivery_status_parts(message)
    if not parts:
        return None
    outcomes = [
        outcome
        for part in parts
        for block in _blocks(part)
        if (outcome := _outcome(block)) is not None
    ]
    if not outcomes:
        return "none", "a delivery report that names no recipient's action"
    # max keeps the first of equals: the first recipient's reason, unless a worse one follows.
    return max(outcomes, key=lambda outcome: _RANK[outcome[0]])


def _delivery_status_parts(message: Message) -> list[Message]:
    """Return the message/delivery-status parts, outside any returned message."""
    found: list[Message] = []
    stack = [message]
    seen = 0
    while stack and seen <= MAX_PARTS:
        part = stack.pop()
        seen += 1
        if part.get_content_type() == "message/delivery-status":
            found.append(part)
        elif part.get_content_maintype() == "multipart" and part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                stack.extend(reversed([p for p in payload if isinstance(p, Message)]))
    return found


def _blocks(part: Message) -> list[Message]:
    """Return the header blocks of a delivery-status part (per-message, then per-recipient)."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return [block for block in payload if isinstance(block, Message)]
    # The parser leaves a report it could not split as text: split it the same way.
    data = part.get_payload(decode=True)
    if not isinstance(data, bytes):
        return []
    parser = BytesHeaderParser(policy=policy.compat32)
    return [parser.parsebytes(chunk) for chunk in _BLANK_LINE.split(data)[:MAX_PARTS]]


def _outcome(block: Message) -> tuple[BounceKind, str] | None:
    """Return what one per-recipient block reports; None for a block without an Action."""
    action = (first_header(block, "Action") or "").lower()
    if not action:
        return None
    status = first_header(block, "Status") or ""
    diagnostic = first_header(block, "Diagnostic-Code") or ""
    detail = f"{action} {status}".strip() + (f": {diagnostic}" if diagnostic else "")
    kind: BounceKind
    if action.startswith(("failed", "error")):  # "error": OpenSMTPD's word for failed
        code = _STATUS.match(status)
        kind = "soft" if code is not None and code.group(1) == "4" else "hard"
    elif action.startswith(("delivered", "relayed", "expanded")):
        kind = "delivered"
    else:
        kind = "none"  # delayed, or an action RFC 3464 does not define
    return kind, detail


def _other_bounce(message: Message) -> tuple[BounceKind, str]:
    """Read a bounce in some other format with flufl.bounce's detectors."""
    _headers_as_text(message)
    if not (first_header(message, "From") or "").strip():
        # flufl.bounce's Yale detector fails on a message without a From address (and logs
        # the traceback), before the qmail and later detectors have had their turn.
        del message["From"]
        message["From"] = "<>"
    try:
        temporary, permanent = all_failures(message)
    except Exception:
        # Its detectors are heuristics over whatever arrived; one failing is no bounce.
        return "none", "not read: a bounce detector failed on this message"
    if permanent:
        return "hard", f"failed: {_listed(permanent)} ({_subject(message)})"
    if temporary:
        return "none", f"delayed: {_listed(temporary)} ({_subject(message)})"
    if _is_auto_reply(message):
        return "none", f"an auto-reply: {_subject(message)}"
    return "none", f"not a delivery report: {_subject(message)}"


def _headers_as_text(message: Message) -> None:
    """Decode 8-bit header bytes in every part, in place, so that each value reads as a str.

    The lenient parser gives a header with raw 8-bit bytes as an ``email.header.Header``,
    on which flufl.bounce's detectors fail (calling ``.lower()``).
    """
    for part in message.walk():  # check_limits has bounded its size and depth
        items = list(part.raw_items())
        if not any(_SURROGATE.search(str(value)) for _, value in items):
            continue
        for name in {name for name, _ in items}:
            del part[name]
        for name, value in items:
            text = str(value).encode("utf-8", "surrogateescape")
            part.set_raw(name, decode_bytes(text, "utf-8"))


def _listed(addresses: frozenset[bytes]) -> str:
    return ", ".join(sorted(address.decode("ascii", "replace") for address in addresses))


def _subject(message: Message) -> str:
    return _one_line(first_header(message, "Subject") or "no subject", 80)


def _is_auto_reply(message: Message) -> bool:
    submitted = (first_header(message, "Auto-Submitted") or "no").lower()
    return submitted != "no" or bool(
        header_values(message, "X-Autoreply") or header_values(message, "X-Autorespond")
    )
