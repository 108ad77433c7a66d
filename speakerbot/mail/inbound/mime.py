"""A message's MIME tree: the limits on its shape, and the readable text found in it.

The body is the ``text/plain`` alternative when there is one, otherwise the ``text/html``
alternative turned into text; attachments (and forwarded messages) are ignored.
"""

from __future__ import annotations

import re
from email.message import Message
from email.utils import collapse_rfc2231_value

from speakerbot.mail.inbound.charsets import decode_bytes, unflow
from speakerbot.mail.inbound.headers import first_header
from speakerbot.mail.inbound.html_text import html_to_text

__all__ = [
    "MAX_DEPTH",
    "MAX_PARAMETER_HEADER",
    "MAX_PARTS",
    "NO_TEXT",
    "TOO_DEEP",
    "Refused",
    "check_limits",
    "prescan",
    "text_of",
]

MAX_PARTS = 100
"""At most this many MIME parts below the top-level message."""

MAX_DEPTH = 10
"""At most this many levels of MIME nesting below the top-level message."""

MAX_PARAMETER_HEADER = 4096
"""The longest Content-Type or Content-Disposition header read, in bytes (folded lines included)."""


class Refused(Exception):
    """A limit was hit: carries the skipped reason and the problem sentence."""

    def __init__(self, reason: str | None, problem: str) -> None:
        super().__init__(problem)
        self.reason = reason
        self.problem = problem


TOO_DEEP = (
    f"This message nests its MIME parts more than {MAX_DEPTH} levels deep; the Speaker "
    "reads at most that many. Send your commands again as a plain message, without "
    "forwarded messages as attachments."
)
_TOO_MANY_PARTS = (
    f"This message has more than {MAX_PARTS} MIME parts (attachments and alternatives); "
    f"the Speaker reads at most {MAX_PARTS}. Send your commands again as a plain message "
    "without attachments."
)
NO_TEXT = (
    "This message has no readable text: no plain-text or HTML part outside the attachments. "
    "Write your commands in the body of the message."
)
_LONG_HEADER = (
    "This message has a Content-Type or Content-Disposition header longer than 4 KB, which "
    "the Speaker does not read. Send your commands again as a plain message without "
    "attachments."
)
_BROKEN_MIME = (
    "This message's MIME structure is broken (a multipart message without a usable "
    "boundary), so its text cannot be found. Send your commands again as a plain-text message."
)


def check_limits(message: Message) -> None:
    """Raise Refused if the MIME tree has too many parts or is nested too deep."""
    parts = 0
    stack: list[tuple[Message, int]] = [(message, 0)]
    while stack:
        part, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Refused("too-deep", TOO_DEEP)
        if depth:
            parts += 1
            if parts > MAX_PARTS:
                raise Refused("too-many-parts", _TOO_MANY_PARTS)
        if part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                stack.extend((child, depth + 1) for child in payload if isinstance(child, Message))
        elif part.get_content_maintype() == "multipart":
            raise Refused(None, _BROKEN_MIME)


_CONTAINER_HEADER = re.compile(
    rb"^content-type:[ \t]*(?:\r?\n[ \t]+)?(?:multipart|message)/", re.IGNORECASE | re.MULTILINE
)
_PARAMETER_HEADER = re.compile(
    rb"^content-(?:type|disposition):[^\n]*(?:\n[ \t][^\n]*)*", re.IGNORECASE | re.MULTILINE
)
_BOUNDARY_PARAM = re.compile(rb'boundary\s*=\s*"?([^"\r\n;]+)', re.IGNORECASE)


def prescan(raw: bytes) -> None:
    """Refuse hostile MIME structure before the stdlib parser sees it.

    The stdlib parser reads MIME parameters in time that grows with the square
    of a header's length, and parts in time that grows with the square of their
    nesting depth (failing with RecursionError when deep enough). So, in the raw
    bytes: a Content-Type or Content-Disposition header (continuation lines
    included) longer than MAX_PARAMETER_HEADER bytes is refused; boundary
    delimiter lines of the declared boundaries are followed to find how deeply
    multiparts nest and how many parts they open; and more than MAX_PARTS + 1
    container headers (multipart/* and message/*) mean more than MAX_PARTS
    parts. Each test only refuses what the parsed message would be refused for.
    """
    for match in _PARAMETER_HEADER.finditer(raw):
        if match.end() - match.start() > MAX_PARAMETER_HEADER:
            raise Refused(None, _LONG_HEADER)
    declared = {boundary.strip() for boundary in _BOUNDARY_PARAM.findall(raw)}
    opened: list[bytes] = []  # boundaries whose multipart is open, outermost first
    where: dict[bytes, int] = {}  # boundary -> its index in opened
    deepest = delimiters = 0
    if declared:
        for line in raw.split(b"\n"):
            if not line.startswith(b"--"):
                continue
            token = line[2:].rstrip(b"\r \t")
            closing = token.endswith(b"--") and token[:-2] in declared
            name = token[:-2] if closing else token
            if name not in declared:
                continue
            if name in where:  # parts nested inside an earlier part of this boundary end here
                keep = where[name] if closing else where[name] + 1
                for inner in opened[keep:]:
                    del where[inner]
                del opened[keep:]
            elif not closing:
                where[name] = len(opened)
                opened.append(name)
                deepest = max(deepest, len(opened))
            delimiters += not closing
    if deepest > MAX_DEPTH:
        raise Refused("too-deep", TOO_DEEP)
    if delimiters > MAX_PARTS or len(_CONTAINER_HEADER.findall(raw)) > MAX_PARTS + 1:
        raise Refused("too-many-parts", _TOO_MANY_PARTS)


def _param(part: Message, name: str) -> str | None:
    try:
        value = part.get_param(name)
    except Exception:
        return None
    if value is None:
        return None
    if isinstance(value, tuple):
        return str(collapse_rfc2231_value(value))
    return str(value)


def _is_attachment(part: Message) -> bool:
    disposition = (first_header(part, "Content-Disposition") or "").lower()
    if disposition.startswith("attachment"):
        return True
    try:
        filename = part.get_filename()
    except Exception:
        return True
    return bool(filename) or bool(_param(part, "name"))


def _decoded_text(part: Message) -> str:
    """Decode a single text part: transfer encoding, charset, flowed, BOM, newlines."""
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        payload = None
    if not isinstance(payload, bytes):
        raw = part.get_payload()
        payload = raw.encode("ascii", "surrogateescape") if isinstance(raw, str) else b""
    text = decode_bytes(payload, _param(part, "charset"))
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if (
        part.get_content_type() == "text/plain"
        and (_param(part, "format") or "").lower() == "flowed"
    ):
        text = unflow(text, delsp=(_param(part, "delsp") or "").lower() == "yes")
    return text


def text_of(part: Message, top: bool) -> tuple[str, bool] | None:
    """Find the readable text below ``part``: (text, came_from_html), or None.

    ``top`` is True for the message itself, which is read even when it calls itself an
    attachment.
    """
    if part.is_multipart():
        return _text_of_multipart(part)
    if not top and _is_attachment(part):
        return None
    content_type = part.get_content_type()
    if content_type == "text/plain":
        return _decoded_text(part), False
    if content_type == "text/html":
        return html_to_text(_decoded_text(part)), True
    return None


def _text_of_multipart(part: Message) -> tuple[str, bool] | None:
    """Read a multipart's text, or None when nothing in it is readable.

    An alternative gives its plain text (else its first readable part); any other
    multipart its readable parts joined (only the plain ones if it has any).
    """
    if part.get_content_maintype() != "multipart":
        return None  # message/rfc822 and the like: a forwarded attachment
    children = (child for child in part.get_payload() if isinstance(child, Message))
    found = [text for text in (text_of(child, False) for child in children) if text is not None]
    plain = [text for text in found if not text[1]]
    if part.get_content_type() == "multipart/alternative":
        return plain[0] if plain else (found[0] if found else None)
    chosen = plain or found
    if not chosen:
        return None
    return "\n".join(text for text, _ in chosen), not plain
