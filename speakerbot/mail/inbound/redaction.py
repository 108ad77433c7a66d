"""The Speaker's password never reaches the database: intake checks it and masks it.

Pure: raw bytes and the expected password in; the bytes to store, the verdict and what
intake read out. The verdict is a value for its own column, never text in the message, so
no sender can write it. Headers and body are found by the same reader and the same parser
that process the message later (:func:`~speakerbot.mail.inbound.reading.read_message` and
:func:`~speakerbot.mail.inbound.language.parse_commands`): what is masked is exactly what would be
read.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
from dataclasses import dataclass
from email import policy as email_policy
from email.header import Header, decode_header, make_header
from email.message import Message
from email.parser import BytesHeaderParser

from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.reading import InboundMail, read_with_headers, split_header_block

__all__ = ["MASK", "Redacted", "body_digest", "literal_mask", "redact_message", "redact_read"]

MASK = "********"

RIGHT = "right"
WRONG = "wrong"

# In mail that cannot be read, a password may stand in clear or be encoded.
_MAY_HIDE_PASSWORD = (b"password", b"base64", b"quoted-printable")
_MIME_HEADERS = frozenset({"content-type", "content-transfer-encoding", "mime-version",
                           "content-disposition"})
# The first word (any leading white space or quote marks aside, as the parser strips them),
# then a colon or white space, then the secret.
_LINE = re.compile(r"^(?P<lead>[\s>]*)(?P<word>[^\s:]+)(?P<gap>\s*:\s*|\s+)(?P<secret>\S.*?)\s*$")
_UNREADABLE = ("[speakerbot kept no body: the message could not be read and may have held "
               "the Speaker's password]\n")


@dataclass(frozen=True)
class Redacted:
    """What intake keeps of a message.

    ``raw``: the bytes to store (the received ones when nothing needed masking);
    ``verdict``: ``"right"`` or ``"wrong"`` for the message's PASSWORD line as the parser
    reads it, None without one; ``sender`` and ``body_sha256`` (of the Subject and the
    text) identify a resent copy; ``mail`` is the message as the reader read it, and
    ``parsed`` its commands (None when it could not be read); ``masked`` tells whether
    ``raw`` differs from the received bytes (then ``mail`` and ``parsed`` show the secret,
    and whoever answers must read ``raw`` again).
    """

    raw: bytes
    verdict: str | None
    sender: str | None
    body_sha256: str
    mail: InboundMail
    parsed: lang.ParseResult | None = None
    masked: bool = True


def redact_message(raw: bytes, expected: str, *, max_bytes: int,
                   max_command_lines: int = lang.MAX_COMMAND_LINES,
                   loop_token: str = "") -> Redacted:
    """Check and mask the password of one received message; raises nothing it can avoid.

    ``loop_token``: the game's own mark, so that the reader knows the game's mail (as the
    service reads it: the result can then serve for answering, without a second read).
    """
    mail, headers = read_with_headers(raw, max_bytes=max_bytes, loop_token=loop_token)
    parsed = None if mail.problem is not None else lang.parse_commands(
        mail.subject, mail.body, max_command_lines=max_command_lines)
    return redact_read(raw, mail, parsed, expected, headers=headers)


def redact_read(raw: bytes, mail: InboundMail, parsed: lang.ParseResult | None,
                expected: str, *, headers: Message | None = None) -> Redacted:
    """Check and mask the password of a message already read: ``mail`` and ``parsed``.

    ``parsed``: the commands of ``mail`` (None when it could not be read); ``headers``:
    the message as the reader parsed it (``read_with_headers``), whose headers serve here
    instead of a second parse. Without them, the header block is parsed here, once, and
    only when the secret may stand in it.
    """
    if mail.problem is not None:
        return Redacted(_unreadable(raw, expected, headers), None, mail.sender,
                        body_digest(raw, mail), mail)
    assert parsed is not None, "a message that could be read has its commands parsed"
    verdict = None
    if parsed.password is not None:
        right = bool(expected) and not any(error.reason.startswith("this message has two")
                                           for error in parsed.errors)
        right = right and hmac.compare_digest(parsed.password.encode("utf-8", "replace"),
                                              expected.encode("utf-8", "replace"))
        verdict = RIGHT if right else WRONG
    body_sha256 = body_digest(raw, mail)
    body, changed = _mask_text(mail.body, expected)
    block = _HeaderBlock(raw, headers)
    changed = changed or (bool(expected) and block.holds(expected))
    if not changed:
        # The secret may still stand in a header or a part the reader does not read.
        kept = literal_mask(raw, expected)
        return Redacted(kept, verdict, mail.sender, body_sha256, mail, parsed, kept != raw)
    # A header's raw 8-bit bytes reach the rebuilt message as they came (the reader kept
    # them as surrogate escapes, which no text search for the secret matches): its bytes
    # are searched too.
    return Redacted(literal_mask(_rebuild(block, body, expected), expected), verdict,
                    mail.sender, body_sha256, mail, parsed)


def body_digest(raw: bytes, mail: InboundMail) -> str:
    """Return what identifies a resent copy: the SHA-256 of the Subject and the text.

    Of the bytes themselves when the message could not be read (``mail.problem``).
    """
    if mail.problem is not None:
        return hashlib.sha256(raw).hexdigest()
    return hashlib.sha256(f"{mail.subject}\n{mail.body}".encode("utf-8", "replace"))\
        .hexdigest()


def literal_mask(raw: bytes, expected: str) -> bytes:
    """Mask the password's bytes wherever they stand: the last resort when intake failed."""
    if not expected:
        return raw
    secret = expected.encode("utf-8", "replace")
    # Even inside a longer word: a reader may join lines (a body that claims base64 and
    # is not), and the secret run into the next word is still the secret.
    return raw.replace(secret, MASK.encode())


def _mask_text(text: str, expected: str) -> tuple[str, bool]:
    lines = [_mask_line(line) for line in text.split("\n")]
    out = "\n".join(line for line, _ in lines)
    changed = any(masked for _, masked in lines)
    if expected and expected in out:
        # The secret written anywhere else (say, as a reason) is masked too, even run into
        # another word (see literal_mask).
        out, changed = out.replace(expected, MASK), True
    return out, changed


def _mask_line(line: str) -> tuple[str, bool]:
    """Mask the secret of a PASSWORD line (read as the parser reads it) or of a near miss."""
    match = _LINE.match(line)
    if match is None:
        return line, False
    word = match["word"].upper().rstrip(":")
    if word != "PASSWORD" and not (len(word) >= 6 and lang.one_edit_apart(word, "PASSWORD")):
        return line, False
    return match["lead"] + match["word"] + match["gap"] + MASK, True


def _unreadable(raw: bytes, expected: str, headers: Message | None) -> bytes:
    """Keep a message that cannot be read, unless it may hide the password somewhere."""
    if not any(word in raw.lower() for word in _MAY_HIDE_PASSWORD):
        return literal_mask(raw, expected)
    return _rebuild(_HeaderBlock(raw, headers), _UNREADABLE, expected)


class _HeaderBlock:
    """A message's whole header block, split off once and parsed at most once.

    Cut where the reader cuts it, but read whole: the reader reads only the first 64 KB of
    its own header block; masking looks at all of it, so that the secret is masked in every
    header the reader could read, and in the rest too. ``headers``: the whole message as
    the reader parsed it, when it did: its header block is this one, parsed the same way.
    """

    def __init__(self, raw: bytes, headers: Message | None = None) -> None:
        self.head = split_header_block(raw)[0]
        if headers is not None:
            self.__dict__["parsed"] = headers  # what the cached property would parse

    @functools.cached_property
    def parsed(self) -> Message:
        """The header block, parsed leniently (compat32) as the reader parses it."""
        return BytesHeaderParser(policy=email_policy.compat32).parsebytes(self.head)

    def holds(self, expected: str) -> bool:
        """Tell whether a header, its encoded words decoded, holds the secret."""
        first = expected.split()[0].encode("utf-8", "replace") if expected.split() else b""
        if b"=?" not in self.head and first not in self.head:
            # Without an encoded word, a header holds the secret only as it is written
            # (folding comes only between words): its first word must stand in the bytes.
            # Most mail.
            return False
        pattern = _masked_word(expected)
        return any(pattern.search(_decoded(str(value))) for _, value in self.parsed.raw_items())


def _rebuild(headers: _HeaderBlock, body: str, expected: str) -> bytes:
    """Return the headers, as the reader's parser sees them, over a new plain body."""
    lines: list[bytes] = []
    for name, value in headers.parsed.raw_items():
        if name.strip().lower() in _MIME_HEADERS:
            continue
        if expected and _masked_word(expected).search(_decoded(value)):
            # An encoded word (=?utf-8?q?...?=) hides the secret from a byte search: the
            # header is written again, decoded and masked.
            masked = _masked_word(expected).sub(MASK, _decoded(value))
            value = masked if masked.isascii() else Header(masked, "utf-8",
                                                           header_name=name).encode()
        text = f"{name}: {value}"
        if expected:
            text = text.replace(expected, MASK)
        data = text.encode("ascii", "surrogateescape") if text.isascii() or _escaped(text) \
            else text.encode("utf-8", "replace")
        lines.append(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    head = b"".join(line + b"\r\n" for line in lines)
    mime = (b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Transfer-Encoding: 8bit\r\nX-Speakerbot-Redacted: password\r\n")
    # A lone surrogate (utf-7 can make one) must not stop the message being stored.
    data = body.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8", "replace")
    return head + mime + b"\r\n" + data


def _masked_word(expected: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(expected) + r"(?!\w)")


def _decoded(value: str) -> str:
    """Decode a header value's RFC 2047 encoded words (never raises)."""
    try:
        return str(make_header(decode_header(value)))
    except Exception:
        return value


def _escaped(text: str) -> bool:
    """Whether every non-ASCII character is a byte the parser kept as a surrogate escape."""
    return all(ord(ch) < 128 or "\udc80" <= ch <= "\udcff" for ch in text)
