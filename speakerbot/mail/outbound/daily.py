"""A reader's daily digest: the day's public mail in one MIME digest, as Mailman sends them.

A player or observer in digest mode (``DIGEST ON``) is not sent the game's public mail as
it goes; their copies are kept, and once a day they get one message: a ``multipart/mixed``
whose first part (``text/plain``, from ``daily_digest.txt``) lists what the day held, and
whose second is a ``multipart/digest`` with each public message whole (headers and all, as
every other player was sent it) as a ``message/rfc822`` part, in the order they went
(RFC 2046 5.1.5). A mail client shows each as a message of its own that can be answered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from speakerbot.mail.outbound.compose import (
    GameIdentity,
    Outgoing,
    Renderer,
    headers_of,
    list_headers,
    message_id_for,
)
from speakerbot.mail.outbound.gathering import read_part
from speakerbot.mail.outbound.wire import WIRE

KIND = "digest"
"""The outbox kind of a reader's daily digest."""


def digest_subject(day: datetime, count: int) -> str:
    """Return a digest's subject (without the tag): its day and how many messages it holds."""
    return (f"Digest for {day:%A} {day.day} {day:%B %Y}: {count} message"
            f"{'s' if count != 1 else ''}")


def daily_digest(renderer: Renderer, identity: GameIdentity, reader: str,
                 raws: Sequence[tuple[bytes, datetime]], moment: datetime, key: str, *,
                 date: datetime, observer: bool = False) -> tuple[str, bytes]:
    """Compose ``reader``'s digest of ``raws`` (each message's bytes, and when it went).

    ``moment``: the digest's time in the game's time zone (its day names it); ``date``:
    the message's Date. Return its Message-ID (from ``key``) and its bytes.
    """
    parts = [read_part(identity, raw, at) for raw, at in raws]
    text = renderer.render("daily_digest.txt", parts=parts, moment=moment,
                           identity=identity, observer=observer)
    outgoing = Outgoing(KIND, (reader,), digest_subject(moment, len(parts)), text, key)
    message_id = message_id_for(identity, key)
    message = EmailMessage(policy=policy.default)
    # A digest is the list's own mail: it carries the list's headers, as Mailman's do.
    for name, value in [*headers_of(identity, outgoing, date, message_id),
                        *list_headers(identity)]:
        message[name] = value
    message.set_content(text, charset="utf-8", cte="quoted-printable")
    message.make_mixed()
    message.attach(_enclosing(raw for raw, _ in raws))
    return message_id, message.as_bytes(policy=WIRE)


def _enclosing(raws: Iterable[bytes]) -> EmailMessage:
    """Return the ``multipart/digest`` part holding each message whole, in order."""
    digest = EmailMessage(policy=policy.default)
    digest.make_mixed()
    digest.set_type("multipart/digest")
    for raw in raws:
        enclosed = BytesParser(policy=policy.default).parsebytes(raw)
        part = EmailMessage(policy=policy.default)
        part.set_content(enclosed, cte="7bit")
        digest.attach(part)
    # A part's headers are its own: MIME-Version belongs to the whole message only.
    for inner in (digest, *digest.iter_parts()):
        del inner["MIME-Version"]
    return digest
