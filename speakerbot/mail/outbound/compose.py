"""Outgoing mail: what the Speaker sends, rendered from templates and wrapped in proper headers.

Every message has its own Message-ID (derived from a stable key, so the same message composed
twice gets the same ID), ``Auto-Submitted`` (``auto-replied`` for replies, ``auto-generated``
for the rest), ``X-Loop``, a Reply-To of the game's address, and a subject that starts with
the game's tag, once (:mod:`.subjects` folds a reply's tags and prefixes). Replies carry
In-Reply-To and References. Public mail carries a mailing list's headers (RFC 2919
List-Id, RFC 2369 List-Post, List-Help, List-Archive), so that mail clients can file a
game's mail and providers see what it is; an observer's copy adds List-Unsubscribe
(:func:`unsubscribe_line`, put in by the outbox). Replies and private mail carry none of
them.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from email.utils import format_datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from speakerbot.mail.outbound.subjects import tagged_subject
from speakerbot.mail.outbound.wire import header_line, message_bytes

if TYPE_CHECKING:
    from jinja2 import Environment, Template

WIDTH = 72
_LIST_MARK = re.compile(r"(- |\d+\. )")


@dataclass(frozen=True)
class GameIdentity:
    """Who the game is on the wire: its name, its address, its list."""

    name: str
    address: str
    list_address: str | None = None
    # Kept by the game, never published: Message-IDs are derived with it, so nobody can
    # work back from one to the key it was made from (a record number would tell how many
    # sealed ballots came before it).
    secret: str = ""
    # The web archive's public address ([site] url), for links in mail; None: no links.
    site_url: str | None = None

    def page(self, path: str) -> str | None:
        """Return the archive's address of a page (``proposals/301.html``), or None."""
        return None if not self.site_url else f"{self.site_url.rstrip('/')}/{path}"

    @property
    def tag(self) -> str:
        """Return the subject tag, e.g. ``[Camford Nomic]``."""
        return f"[{self.name}]"

    @property
    def domain(self) -> str:
        """Return the domain of the game's address, for Message-IDs and List-Id."""
        return self.address.rpartition("@")[2] or "speakerbot.invalid"

    @property
    def loop_token(self) -> str:
        """Return the X-Loop value that marks the game's own mail."""
        return self.address

    @property
    def list_id(self) -> str:
        """Return the List-Id of the game's announcements."""
        slug = re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-") or "nomic"
        return f"{self.name} <{slug}.{self.domain}>"


@dataclass(frozen=True)
class Outgoing:
    """One message to send, before it gets its envelope."""

    kind: str  # reply | limit | stranger | confirm | announcement | reminder | notice
    recipients: tuple[str, ...]
    subject: str  # without the game's tag
    body: str
    key: str  # stable: the same key always gives the same Message-ID
    public: bool = False
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    topic: str | None = None  # results | distribution: what the outbox counts apart


ANSWERING_KINDS = frozenset({"reply", "limit", "stranger", "confirm"})
"""Kinds of mail sent in answer to someone's message (``Auto-Submitted: auto-replied``)."""
MAX_REFERENCES = 10
"""A reply's References header keeps at most this many of the message's own."""
MAX_THREAD_ID = 250
"""A Message-ID longer than this is not repeated in In-Reply-To or References."""
# What a sender's Message-ID must look like to be repeated in our headers: printable ASCII,
# one <...>, no white space (a bare CR in it would otherwise reach the header).
_THREAD_ID = re.compile(rf"<[!-;=?-~]{{1,{MAX_THREAD_ID - 2}}}>")


def clean_text(text: str) -> str:
    """Return a sender's text fit for one header line.

    No control characters, no lone surrogates (a utf-7 subject can decode to one), white
    space collapsed.
    """
    kept = "".join(ch if ch.isprintable() and not "\ud800" <= ch <= "\udfff" else " "
                   for ch in text)
    return " ".join(kept.split())


def message_id_for(identity: GameIdentity, key: str) -> str:
    """Derive a Message-ID from a stable key, so a message composed again keeps its ID."""
    if identity.secret:
        digest = hmac.new(identity.secret.encode(), f"{identity.address}\n{key}".encode(),
                          hashlib.sha256).hexdigest()[:24]
    else:
        digest = hashlib.sha256(f"{identity.address}\n{key}".encode()).hexdigest()[:24]
    return f"<sb.{digest}@{identity.domain}>"


def compose(identity: GameIdentity, outgoing: Outgoing, date: datetime) -> tuple[str, bytes]:
    """Wrap a message in its headers; return its Message-ID and its bytes (CRLF line ends)."""
    message_id = message_id_for(identity, outgoing.key)
    return message_id, message_bytes(headers_of(identity, outgoing, date, message_id),
                                     outgoing.body)


def headers_of(identity: GameIdentity, outgoing: Outgoing, date: datetime,
               message_id: str) -> list[tuple[str, str]]:
    """Return a message's headers, in order, as (name, value) before any encoding.

    No header names more than one player's address: public mail is addressed to the list
    when there is one, otherwise to the game's own address, with the players only in the
    envelope (a big game's To line would hand every player's address to everyone).
    """
    headers = [
        ("From", f"{identity.name} <{identity.address}>"),
        ("To", addressee_of(identity, outgoing)),
        ("Reply-To", identity.address),
        ("Subject", tagged_subject(identity.tag, clean_text(outgoing.subject))),
        ("Date", format_datetime(date.astimezone(UTC))),
        ("Message-ID", message_id),
        ("Auto-Submitted",
         "auto-replied" if outgoing.kind in ANSWERING_KINDS else "auto-generated"),
        ("X-Loop", identity.loop_token),
    ]
    if outgoing.in_reply_to and _THREAD_ID.fullmatch(outgoing.in_reply_to):
        headers.append(("In-Reply-To", outgoing.in_reply_to))
        # The sender wrote these: keep the thread, not a copy of whatever they sent.
        kept = [ref for ref in outgoing.references if _THREAD_ID.fullmatch(ref)]
        headers.append(("References", " ".join((*kept[-MAX_REFERENCES:], outgoing.in_reply_to))))
    if outgoing.public:
        headers += list_headers(identity)
    return headers


def list_headers(identity: GameIdentity) -> list[tuple[str, str]]:
    """Return the mailing-list headers of public mail (RFC 2919, RFC 2369)."""
    headers = [
        ("List-Id", identity.list_id),
        ("List-Post", f"<mailto:{identity.address}>"),
        ("List-Help", f"<mailto:{identity.address}?subject=HELP>"),
    ]
    archive = identity.page("")
    if archive is not None:
        headers.append(("List-Archive", f"<{archive}>"))
    # Vacation responders and list servers leave mail marked so alone.
    headers.append(("Precedence", "list"))
    return headers


def unsubscribe_line(identity: GameIdentity) -> bytes:
    """Return the List-Unsubscribe header line of an observer's copy (CRLF ended).

    Its link mails UNOBSERVE as the Subject, which the mail language reads as the command.
    """
    return header_line("List-Unsubscribe", f"<mailto:{identity.address}?subject=UNOBSERVE>")


def addressee_of(identity: GameIdentity, outgoing: Outgoing) -> str:
    """Return the To header: public mail's list (else the game), or the one recipient.

    Mail to several that is not public (none is composed today) goes to the game too.
    """
    if outgoing.public:
        return identity.list_address or identity.address
    if len(outgoing.recipients) == 1:
        return outgoing.recipients[0]
    return identity.address


# --- Rendering ------------------------------------------------------------------------------


def wrap(text: str, width: int = WIDTH, indent: str = "") -> str:
    """Wrap each line of ``text`` to ``width`` columns, keeping its own line breaks."""
    out = []
    for line in str(text).splitlines() or [""]:
        if not line.strip():
            out.append("")
            continue
        lead = line[: len(line) - len(line.lstrip())]
        if "\t" not in line and len(indent) + len(line.rstrip()) <= width:
            # It fits: textwrap would give back the same (most lines of a reply fit).
            out.append(indent + lead + line.strip())
            continue
        mark = _LIST_MARK.match(line.lstrip())
        hang = " " * len(mark.group(1)) if mark else ""  # continue under the item's text
        text = line.strip()
        if text.isprintable() and "  " not in text:
            out.append(fill_words(text.split(" "), width, indent + lead, indent + lead + hang))
            continue
        out.append(
            textwrap.fill(
                text,
                width,
                initial_indent=indent + lead,
                subsequent_indent=indent + lead + hang,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


def fill_words(words: Sequence[str], width: int, first: str, later: str) -> str:
    """Fill words, one space apart, into lines of ``width``, as ``textwrap.fill`` would.

    The same result as ``textwrap.fill`` (without breaking long words or at hyphens) for
    text of printable words single-spaced, in one pass: a results mail names every player
    of a big game who did not vote, and textwrap takes its time over each word.
    """
    lines: list[str] = []
    current: list[str] = []
    room = width - len(first)
    used = 0
    for word in words:
        needed = len(word) if not current else used + 1 + len(word)
        if current and needed > room:
            lines.append((later if lines else first) + " ".join(current))
            current, used, room = [], 0, width - len(later)
            needed = len(word)
        current.append(word)
        used = needed
    if current:
        lines.append((later if lines else first) + " ".join(current))
    return "\n".join(lines)


def format_time(moment: datetime | None) -> str:
    """Write a time as players read it: ``2026-01-12 12:00 UTC``, always to the minute.

    The one time formatter of the Speaker's mail and the archive (templates use it as the
    ``when`` filter); ``None`` is written ``no deadline``. Seconds are never written: a
    time written with them only when they are not 0 put "21:06 UTC" beside "21:05:59
    UTC". They are cut, not rounded, so that a deadline is never said later than it is.
    """
    if moment is None:
        return "no deadline"
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def points(value: Decimal | int, signed: bool = False) -> str:
    """Write a score: whole numbers plainly, fractions (after a new game) with their decimals."""
    number = Decimal(value)
    text = f"{number.normalize():f}" if number != number.to_integral() else f"{int(number)}"
    if signed and number >= 0:
        return "+" + text
    return text


def columns(rows: Iterable[Sequence[Any]], gap: str = "  ") -> str:
    """Lay rows out in left-aligned columns (the last column is not padded)."""
    table = [[str(cell) for cell in row] for row in rows]
    if not table:
        return ""
    widths = [max(len(row[i]) for row in table if i < len(row)) for i in range(len(table[0]))]
    lines = []
    for row in table:
        cells = [cell.ljust(widths[i]) if i < len(row) - 1 else cell for i, cell in enumerate(row)]
        lines.append(gap.join(cells).rstrip())
    return "\n".join(lines)


_BLANK_RUN = re.compile(r"\n{3,}")


@lru_cache(maxsize=8)
def _environment(folder: str) -> Environment:
    """Return the one Jinja2 environment of a templates folder in this process.

    Templates are not reloaded when their files change (no stat of the file at every
    message): they are part of the installed program.
    """
    # Imported here: the command line's queries format times and points from this module
    # but render no template.
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    environment = Environment(
        loader=FileSystemLoader(folder),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    environment.filters.update(wrap=wrap, when=format_time, points=points, columns=columns)
    return environment


class Renderer:
    """Renders the templates in ``templates/`` (one per kind of message), strictly."""

    def __init__(self, folder: Path) -> None:
        self._folder = str(folder)
        self._templates: dict[str, Template] = {}

    @property
    def environment(self) -> Environment:
        """The folder's Jinja2 environment, made at the first message (a query renders none)."""
        return _environment(self._folder)

    def render(self, template: str, **context: Any) -> str:
        """Render one template; collapse runs of blank lines and end with one newline."""
        compiled = self._templates.get(template)
        if compiled is None:
            compiled = self._templates[template] = self.environment.get_template(template)
        text = _BLANK_RUN.sub("\n\n", compiled.render(**context)).strip("\n")
        return text + "\n"
