"""Public mail beyond the hourly limit, gathered: the announcements of an hour in one message.

When more public mail falls due in an hour than ``[limits] public_per_hour``, the service
keeps the rest in the outbox, composed as they would have gone, and sends them at the end of
the clock hour as one message that holds each in order, subject and all. This module reads
a kept message back (it is our own composition: headers we wrote, a quoted-printable UTF-8
body) and composes the gathering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer


@dataclass(frozen=True)
class GatheredPart:
    """One announcement kept to be gathered: its subject (without the tag), body and time."""

    subject: str
    body: str
    at: datetime


def read_part(identity: GameIdentity, raw: bytes, at: datetime) -> GatheredPart:
    """Read back an announcement the game composed and kept: its subject and its text."""
    message = BytesParser(policy=policy.default).parsebytes(raw)
    if not isinstance(message, EmailMessage):  # the default policy always gives one
        raise TypeError("not a message")
    subject = " ".join(str(message.get("Subject", "")).split())
    subject = subject.removeprefix(identity.tag).strip()
    part = message.get_body(("plain",))
    text = part.get_content() if part is not None else ""
    return GatheredPart(subject, str(text).replace("\r\n", "\n").rstrip("\n"), at)


def gathering(renderer: Renderer, identity: GameIdentity, parts: Sequence[GatheredPart],
              recipients: tuple[str, ...], key: str, *, limit: int) -> Outgoing:
    """Compose the one message that carries ``parts``, in order, to ``recipients``."""
    body = renderer.render("gathering.txt", parts=parts, limit=limit, identity=identity)
    count = len(parts)
    subject = (f"{count} announcement{'s' if count != 1 else ''} gathered, "
               f"{_clock(parts[0].at)} to {_clock(parts[-1].at)} UTC")
    return Outgoing("announcement", recipients, subject, body, key, public=True)


def _clock(moment: datetime) -> str:
    """Return the time of day in UTC, as a gathering's subject gives it."""
    return moment.astimezone(UTC).strftime("%H:%M")
