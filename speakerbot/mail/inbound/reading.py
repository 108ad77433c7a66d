r"""Reads one raw email message into an :class:`InboundMail`.

:func:`read_message` never raises: whatever the bytes, it returns an
``InboundMail``. A message that cannot be read carries a ``problem`` (a sentence
that can be sent back to the sender); a message that must not be answered at all
(auto-replies, bounces, list mail, the game's own mail coming back) carries a
``skipped`` reason from :data:`NEVER_ANSWER`.

What the caller does with a message:

========================================  ==========================================
``mail.skipped in NEVER_ANSWER``          record it; never reply (avoids mail loops)
``mail.problem`` set (``skipped`` is      reply with ``mail.problem`` when
None or one of :data:`REFUSED`)           ``mail.sender`` is known; apply nothing
otherwise                                 parse ``mail.subject`` and ``mail.body``
========================================  ==========================================

:func:`can_acknowledge` says whether any reply may be sent at all.

The body is the message's plain text: the ``text/plain`` alternative when there
is one, otherwise the ``text/html`` alternative turned into text by
:func:`html_to_text`; attachments are ignored. Transfer encodings
(base64, quoted-printable) are undone, the charset is decoded (with fallbacks for
unknown or mislabelled charsets), ``format=flowed`` is unwrapped (RFC 3676), line
endings become ``\n`` and a byte-order mark at the start is removed. Those are
the lines that :mod:`speakerbot.mail.inbound.language` numbers from 1.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from datetime import datetime
from email import policy
from email.header import decode_header
from email.message import Message
from email.parser import BytesHeaderParser, BytesParser
from email.utils import collapse_rfc2231_value, getaddresses, parsedate_to_datetime
from html import unescape

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FROM_PROBLEM",
    "MAX_DEPTH",
    "MAX_PARAMETER_HEADER",
    "MAX_PARTS",
    "NEVER_ANSWER",
    "REFUSED",
    "InboundMail",
    "can_acknowledge",
    "decode_bytes",
    "html_to_text",
    "kilobytes",
    "read_message",
    "unflow",
]

DEFAULT_MAX_BYTES = 256 * 1024
"""Messages larger than this (in bytes, as received) are refused unread."""

MAX_PARTS = 100
"""At most this many MIME parts below the top-level message."""

MAX_DEPTH = 10
"""At most this many levels of MIME nesting below the top-level message."""

MAX_PARAMETER_HEADER = 4096
"""The longest Content-Type or Content-Disposition header read, in bytes (folded lines included)."""

NEVER_ANSWER: frozenset[str] = frozenset({"auto-reply", "bounce", "list", "loop"})
"""``skipped`` reasons for mail that is recorded but never answered, not even with an error."""

REFUSED: frozenset[str] = frozenset({"too-large", "too-many-parts", "too-deep"})
"""``skipped`` reasons for mail refused by a limit; it is answered with ``problem``."""

FROM_PROBLEM = "cannot tell who sent this: the From header must hold exactly one address"

_HEADER_LIMIT = 64 * 1024
_MAX_FROM_LENGTH = 998  # RFC 5322's line length limit; real From headers are far shorter
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_FOLD = re.compile(r"\r?\n(?=[ \t])")
_MESSAGE_ID = re.compile(r"<[^<>\s]+>")
_ADDR_SPEC = re.compile(r"[^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+")
_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class InboundMail:
    """One message as read from the wire, before any command is parsed.

    ``sender`` is the lower-cased addr-spec of the single From address, or None
    when the From header is missing or does not hold exactly one address (then
    ``problem`` says so). ``body`` is the decoded plain text (see the module
    docstring); it is empty when the message was not read. ``body`` is left out
    of ``repr`` because it may hold the Speaker's PASSWORD line.
    ``auth_results`` holds the Authentication-Results header values, topmost
    first; ``date`` the Date header (None when missing or unreadable);
    ``recipients`` the lower-cased addresses of To and Cc.
    """

    sender: str | None
    sender_name: str
    subject: str
    message_id: str | None
    in_reply_to: str | None
    references: tuple[str, ...]
    body: str = field(repr=False)
    skipped: str | None
    problem: str | None
    auth_results: tuple[str, ...] = ()
    date: datetime | None = None
    recipients: tuple[str, ...] = ()


def can_acknowledge(mail: InboundMail) -> bool:
    """Tell whether any reply (results or an explanation) may be sent for ``mail``.

    False for mail skipped for a reason in :data:`NEVER_ANSWER` and for mail whose
    sender is unknown; True otherwise.
    """
    return mail.sender is not None and mail.skipped not in NEVER_ANSWER


def read_message(
    raw: bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    loop_token: str | None = None,
) -> InboundMail:
    """Read the raw bytes of one email message; never raises.

    ``max_bytes`` bounds the size of the whole message. ``loop_token`` is the
    game's own ``X-Loop`` value: a message carrying it is skipped as ``"loop"``.
    """
    try:
        return _read(raw, max_bytes, loop_token)
    except Exception:  # a last resort: the stdlib parser should not fail, but never crash
        return InboundMail(
            sender=None,
            sender_name="",
            subject="",
            message_id=None,
            in_reply_to=None,
            references=(),
            body="",
            skipped=None,
            problem=(
                "This message could not be read (its structure is damaged); "
                "send your commands again as a plain-text message."
            ),
        )


# --------------------------------------------------------------------------- headers


def _header_values(message: Message, name: str) -> list[str]:
    """All raw values of header ``name`` (unfolded), without the policy's conversions."""
    wanted = name.lower()
    return [_unfold(str(value)) for key, value in message.raw_items() if key.lower() == wanted]


def _unfold(value: str) -> str:
    return _FOLD.sub("", value)


def _first_header(message: Message, name: str) -> str | None:
    values = _header_values(message, name)
    return values[0].strip() if values else None


def _undo_8bit(value: str) -> str:
    """Turn raw 8-bit header bytes (kept by the parser as surrogates) into text."""
    if not any("\udc80" <= ch <= "\udcff" for ch in value):
        return value
    return decode_bytes(value.encode("ascii", "surrogateescape"), "utf-8")


def _decode_header_text(value: str) -> str:
    """Decode a header's RFC 2047 encoded-words into text, tolerating bad charsets."""
    value = _undo_8bit(value)
    try:
        chunks = decode_header(value)
    except Exception:
        return " ".join(value.split())
    pieces: list[str] = []
    for chunk, charset in chunks:
        if isinstance(chunk, str):
            pieces.append(chunk)
        else:
            pieces.append(decode_bytes(chunk, charset))
    return " ".join("".join(pieces).split())


def _parse_sender(message: Message) -> tuple[str | None, str, str | None]:
    """Return (sender, sender_name, problem) from the From header only."""
    values = _header_values(message, "From")
    if len(values) != 1:
        return None, "", FROM_PROBLEM
    value = _undo_8bit(values[0]).strip()
    if len(value) > _MAX_FROM_LENGTH:  # the stdlib's address parser is quadratic on junk
        return None, "", FROM_PROBLEM
    try:
        header = policy.default.header_factory("From", value)
        groups = header.groups
        defects = header.defects
    except Exception:
        return None, "", FROM_PROBLEM
    if len(groups) != 1 or groups[0].display_name is not None:
        return None, "", FROM_PROBLEM
    addresses = groups[0].addresses
    if len(addresses) != 1:
        return None, "", FROM_PROBLEM
    if any(type(defect).__name__ == "InvalidHeaderDefect" for defect in defects):
        return None, "", FROM_PROBLEM
    address = addresses[0]
    username = str(address.username)
    domain = str(address.domain)
    addr_spec = f"{username}@{domain}"
    if not username or not domain or not _ADDR_SPEC.fullmatch(addr_spec):
        return None, "", FROM_PROBLEM
    if not addr_spec.isprintable():  # a NUL or a control character: no real address
        return None, "", FROM_PROBLEM
    name = " ".join(str(address.display_name).split())
    return addr_spec.lower(), name, None


def _skip_reason(message: Message, sender: str | None, loop_token: str | None) -> str | None:
    """Return the NEVER_ANSWER reason for this message, or None."""
    if loop_token is not None:
        token = loop_token.strip().lower()
        if any(v.strip().lower() == token for v in _header_values(message, "X-Loop")):
            return "loop"
    local_part = sender.rsplit("@", 1)[0] if sender else ""
    content_type = (_first_header(message, "Content-Type") or "").lower()
    if (
        local_part in ("mailer-daemon", "postmaster")
        or re.match(r"\s*multipart/report\b", content_type) is not None
    ):
        return "bounce"
    for value in _header_values(message, "Auto-Submitted"):
        keyword = re.split(r"[;(\s]", value.strip().lower(), maxsplit=1)[0]
        if keyword != "no":
            return "auto-reply"
    if _header_values(message, "X-Autoreply") or _header_values(message, "X-Autorespond"):
        return "auto-reply"
    if any(v.strip() == "<>" for v in _header_values(message, "Return-Path")):
        return "bounce"
    if any(
        v.strip().lower() in ("bulk", "junk", "list") for v in _header_values(message, "Precedence")
    ):
        return "list"
    if _header_values(message, "List-Id"):
        return "list"
    return None


# --------------------------------------------------------------------------- charsets


_LATIN1_LABELS = frozenset({"iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1"})
_UTF8_LABELS = frozenset(
    {"", "utf-8", "utf8", "us-ascii", "ascii", "unknown-8bit", "x-unknown", "default"}
)


# Codecs that are not mail charsets and may be slow (punycode is quadratic) or misleading.
_UNSAFE_CODECS = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape"})


_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode ``data`` labelled with ``charset``, never failing, never with a lone surrogate.

    UTF-7 (and UTF-16 with odd bytes) can decode to lone surrogates, which no UTF-8 text,
    JSON column or outgoing mail accepts: they become U+FFFD.
    """
    return _SURROGATE.sub("\ufffd", _decode_bytes(data, charset))


def _decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode ``data`` labelled with ``charset``, never failing.

    Order of attempts: a UTF-8 byte-order mark wins (UTF-8, mark removed); the
    declared charset, strictly (ISO-8859-1 is read as its superset Windows-1252,
    as browsers do; US-ASCII as UTF-8); then UTF-8 strictly; then UTF-8 with
    replacement characters if the bytes hold well-formed UTF-8 sequences (a
    mostly-UTF-8 text with a few damaged bytes); then Windows-1252; then
    ISO-8859-1, which accepts any bytes.
    """
    if data.startswith(_BOM):
        return data[len(_BOM) :].decode("utf-8", "replace")
    label = (charset or "").strip().strip("\"'").split("*", 1)[0].lower()
    if label in _UTF8_LABELS:
        label = "utf-8"
    elif label in _LATIN1_LABELS:
        label = "windows-1252"
    try:
        if codecs.lookup(label).name.replace("_", "-") not in _UNSAFE_CODECS:
            return data.decode(label)
    except (LookupError, UnicodeError, ValueError):
        pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    good = len(_UTF8_MULTIBYTE.findall(data))
    if good:
        replaced = data.decode("utf-8", "replace").count("\ufffd")
        if good >= replaced:
            return data.decode("utf-8", "replace")
    try:
        return data.decode("windows-1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# --------------------------------------------------------------------------- format=flowed


def unflow(text: str, *, delsp: bool) -> str:
    r"""Undo ``format=flowed`` soft line breaks (RFC 3676) in ``text`` (lines end in ``\n``).

    A line ending in a space is joined with the next line of the same quote
    depth; with ``delsp`` that trailing space is removed. Space-stuffing is
    undone and the signature separator ``-- `` is never joined. Quoted lines
    come out as ``>`` marks, one space, then the text.
    """
    out: list[str] = []
    pending_depth = -1
    pending: list[str] = []

    def flush() -> None:
        nonlocal pending_depth, pending
        if pending_depth >= 0:
            joined = "".join(pending)
            out.append((">" * pending_depth + " " + joined) if pending_depth else joined)
        pending_depth, pending = -1, []

    lines = text.split("\n")
    trailing_newline = len(lines) > 1 and lines[-1] == ""
    if trailing_newline:
        lines.pop()
    for raw_line in lines:
        depth = len(raw_line) - len(raw_line.lstrip(">"))
        line = raw_line[depth:]
        if line.startswith(" "):
            line = line[1:]
        flowed = line.endswith(" ") and line != "-- "
        if flowed and delsp:
            line = line[:-1]
        if pending_depth != depth:
            flush()
            pending_depth = depth
        pending.append(line)
        if not flowed:
            flush()
    flush()
    return "\n".join(out) + ("\n" if trailing_newline else "")


# --------------------------------------------------------------------------- HTML


_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd",
        "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li",
        "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody",
        "tfoot", "thead", "title", "tr", "ul",
    }
)  # fmt: skip
_DROPPED_TAGS = frozenset({"script", "style", "title", "template", "head"})
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:_-]*)")
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")
_QUOTE_PREFIX = "> "
_MAX_QUOTE_MARKS = 10  # deeper blockquotes get no more marks (hostile nesting stays linear)


class _HtmlText:
    """Collects text lines from HTML, with a quote depth per line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0
        self.pre = 0

    def text(self, data: str) -> None:
        data = unescape(data)
        if self.pre:
            parts = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for index, part in enumerate(parts):
                if index:
                    self.newline()
                self.current.append(part)
        else:
            self.current.append(_HTML_SPACE.sub(" ", data))

    def newline(self) -> None:
        line = "".join(self.current).replace("\xa0", " ").strip()
        prefix = _QUOTE_PREFIX * min(self.depth, _MAX_QUOTE_MARKS)
        self.lines.append((prefix + line).rstrip() if line else "")
        self.current = []

    def soft_break(self) -> None:
        # A block holding only &nbsp; is a blank line (Outlook writes blank lines so);
        # a block holding only collapsible white space is nothing.
        if "".join(self.current).strip(" "):
            self.newline()
        else:
            self.current = []

    def tag(self, name: str, closing: bool) -> None:
        if name == "br" and not closing:
            self.newline()
        elif name == "blockquote":
            self.soft_break()
            self.depth = max(0, self.depth + (-1 if closing else 1))
        elif name == "pre":
            self.soft_break()
            self.pre = max(0, self.pre + (-1 if closing else 1))
        elif name in _BLOCK_TAGS:
            self.soft_break()
        elif name in ("td", "th") and not closing:
            self.current.append(" ")

    def result(self) -> str:
        self.soft_break()
        lines: list[str] = []
        for line in self.lines:
            if line or (lines and lines[-1]):
                lines.append(line)
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines)


def html_to_text(html: str) -> str:
    """Turn an HTML mail body into plain text lines.

    Scripts, styles and the document head are dropped; ``<br>`` and block
    elements (``<p>``, ``<div>``, ``<li>``, table rows, headings...) end lines;
    entities are unescaped; runs of white space collapse as a browser would
    (``&nbsp;`` becomes a plain space, and a block holding only ``&nbsp;`` is a
    blank line); lines inside ``<blockquote>`` are prefixed with ``"> "`` once
    per level (at most ten times), so that they count as quoted. Several blank
    lines in a row become one.

    The tokenizer is written here rather than taken from :mod:`html.parser`,
    whose handling of unfinished constructs takes quadratic time on hostile input
    in the Python versions speakerbot supports; this one reads each character a
    bounded number of times, and drops an unfinished tag or comment at the end.
    """
    out = _HtmlText()
    lower = html.lower()
    position = 0
    length = len(html)
    while position < length:
        start = html.find("<", position)
        if start < 0:
            out.text(html[position:])
            break
        if start > position:
            out.text(html[position:start])
        if html.startswith("<!--", start):
            end = html.find("-->", start + 4)
            if end < 0:
                break
            position = end + 3
            continue
        match = _TAG.match(html, start)
        if match is None:
            if html.startswith("<!", start) or html.startswith("<?", start):
                end = html.find(">", start)
                if end < 0:
                    break
                position = end + 1
            else:
                out.text("<")
                position = start + 1
            continue
        end = html.find(">", match.end())
        if end < 0:
            break
        name = match.group(2).lower()
        closing = bool(match.group(1))
        position = end + 1
        if name in _DROPPED_TAGS and not closing and html[end - 1] != "/":
            close = lower.find("</" + name, position)
            if close < 0:
                break
            close_end = html.find(">", close)
            if close_end < 0:
                break
            position = close_end + 1
            if name == "title":
                out.soft_break()
            continue
        out.tag(name, closing)
    return out.result()


# --------------------------------------------------------------------------- MIME


class _Refused(Exception):
    """A limit was hit: carries the skipped reason and the problem sentence."""

    def __init__(self, reason: str | None, problem: str) -> None:
        super().__init__(problem)
        self.reason = reason
        self.problem = problem


_TOO_DEEP = (
    f"This message nests its MIME parts more than {MAX_DEPTH} levels deep; the Speaker "
    "reads at most that many. Send your commands again as a plain message, without "
    "forwarded messages as attachments."
)
_TOO_MANY_PARTS = (
    f"This message has more than {MAX_PARTS} MIME parts (attachments and alternatives); "
    f"the Speaker reads at most {MAX_PARTS}. Send your commands again as a plain message "
    "without attachments."
)
_NO_TEXT = (
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


def _check_limits(message: Message) -> None:
    """Raise _Refused if the MIME tree has too many parts or is nested too deep."""
    parts = 0
    stack: list[tuple[Message, int]] = [(message, 0)]
    while stack:
        part, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _Refused("too-deep", _TOO_DEEP)
        if depth:
            parts += 1
            if parts > MAX_PARTS:
                raise _Refused("too-many-parts", _TOO_MANY_PARTS)
        if part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                stack.extend((child, depth + 1) for child in payload if isinstance(child, Message))
        elif part.get_content_maintype() == "multipart":
            raise _Refused(None, _BROKEN_MIME)


_CONTAINER_HEADER = re.compile(
    rb"^content-type:[ \t]*(?:\r?\n[ \t]+)?(?:multipart|message)/", re.IGNORECASE | re.MULTILINE
)
_PARAMETER_HEADER = re.compile(
    rb"^content-(?:type|disposition):[^\n]*(?:\n[ \t][^\n]*)*", re.IGNORECASE | re.MULTILINE
)
_BOUNDARY_PARAM = re.compile(rb'boundary\s*=\s*"?([^"\r\n;]+)', re.IGNORECASE)


def _prescan(raw: bytes) -> None:
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
            raise _Refused(None, _LONG_HEADER)
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
        raise _Refused("too-deep", _TOO_DEEP)
    if delimiters > MAX_PARTS or len(_CONTAINER_HEADER.findall(raw)) > MAX_PARTS + 1:
        raise _Refused("too-many-parts", _TOO_MANY_PARTS)


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
    disposition = (_first_header(part, "Content-Disposition") or "").lower()
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


def _text_of(part: Message, top: bool) -> tuple[str, bool] | None:
    """Find the readable text below ``part``: (text, came_from_html), or None."""
    content_type = part.get_content_type()
    if part.is_multipart():
        if part.get_content_maintype() != "multipart":
            return None  # message/rfc822 and the like: a forwarded attachment
        children = [c for c in part.get_payload() if isinstance(c, Message)]
        if content_type == "multipart/alternative":
            found = [t for t in (_text_of(c, False) for c in children) if t is not None]
            plain = [t for t in found if not t[1]]
            return plain[0] if plain else (found[0] if found else None)
        found = [t for t in (_text_of(c, False) for c in children) if t is not None]
        plain = [t for t in found if not t[1]]
        chosen = plain or found
        if not chosen:
            return None
        return "\n".join(t[0] for t in chosen), not plain
    if not top and _is_attachment(part):
        return None
    if content_type == "text/plain":
        return _decoded_text(part), False
    if content_type == "text/html":
        return html_to_text(_decoded_text(part)), True
    return None


# --------------------------------------------------------------------------- reading


def _split_headers(raw: bytes) -> bytes:
    match = _HEADER_END.search(raw, 0, _HEADER_LIMIT)
    if match is None:
        return raw[:_HEADER_LIMIT]
    return raw[: match.end()]


def _date(head: Message) -> datetime | None:
    """Return the Date header as an aware datetime; None when missing or unreadable."""
    value = _first_header(head, "Date")
    if not value:
        return None
    try:
        moment = parsedate_to_datetime(_undo_8bit(value))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return moment if moment.tzinfo is not None else None


def _recipients(head: Message) -> tuple[str, ...]:
    """Return the addresses of To and Cc, lower case (leniently: junk is skipped)."""
    values = [_undo_8bit(v) for name in ("To", "Cc") for v in _header_values(head, name)]
    if sum(len(v) for v in values) > _HEADER_LIMIT // 4:
        return ()  # the address parser is slow on huge junk; such mail names nobody here
    try:
        pairs = getaddresses(values)
    except Exception:
        return ()
    return tuple(address.lower() for _, address in pairs if "@" in address)


def _too_large(size: int, max_bytes: int) -> str:
    return (
        f"This message is {kilobytes(size)} long, more than the {kilobytes(max_bytes)} the "
        "Speaker reads. Send your commands again without attachments, pictures or quoted history."
    )


def kilobytes(size: int) -> str:
    """Write a size in bytes as whole kilobytes, rounded up: ``"257 KB"``."""
    return f"{(size + 1023) // 1024} KB"


def _read(raw: bytes, max_bytes: int, loop_token: str | None) -> InboundMail:
    head = BytesHeaderParser(policy=policy.compat32).parsebytes(_split_headers(raw))
    sender, sender_name, problem = _parse_sender(head)
    subject = _decode_header_text(_first_header(head, "Subject") or "")
    message_id = _first_header(head, "Message-ID") or None
    in_reply_to = _first_header(head, "In-Reply-To") or None
    references = tuple(_MESSAGE_ID.findall(" ".join(_header_values(head, "References"))))
    skipped = _skip_reason(head, sender, loop_token)
    auth_results = tuple(_header_values(head, "Authentication-Results"))
    date = _date(head)
    recipients = _recipients(head)
    body = ""

    def done() -> InboundMail:
        return InboundMail(
            sender=sender,
            sender_name=sender_name,
            subject=subject,
            message_id=message_id,
            in_reply_to=in_reply_to,
            references=references,
            body=body,
            skipped=skipped,
            problem=problem,
            auth_results=auth_results,
            date=date,
            recipients=recipients,
        )

    if len(raw) > max_bytes:
        if problem is None:
            problem = _too_large(len(raw), max_bytes)
            skipped = skipped or "too-large"
        return done()
    try:
        _prescan(raw)
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
        _check_limits(message)
        found = _text_of(message, True)
    except RecursionError:
        if problem is None:
            problem, skipped = _TOO_DEEP, skipped or "too-deep"
        return done()
    except _Refused as refused:
        if problem is None:
            problem, skipped = refused.problem, skipped or refused.reason
        return done()
    if found is None:
        problem = problem or _NO_TEXT
        return done()
    body = found[0]
    return done()
