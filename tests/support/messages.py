"""Plain messages for the tests that carry mail (IMAP, SMTP) without reading what it says."""

from __future__ import annotations

import uuid
from email.message import EmailMessage


def plain_message(subject: str, body: str) -> bytes:
    """A text/plain message from Alice to the Speaker with a fresh Message-ID, in CRLF."""
    msg = EmailMessage()
    msg["From"] = "alice@example.test"
    msg["To"] = "speaker@example.test"
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@example.test>"
    msg.set_content(body)
    return msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))
