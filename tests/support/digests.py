"""Reading a MIME digest back in tests: the messages it encloses, in order."""

from __future__ import annotations

from email.message import EmailMessage


def enclosed(message: EmailMessage) -> list[EmailMessage]:
    """Return the messages a digest holds, in order (each a message/rfc822 part).

    A digest is multipart/mixed: a table of contents, then a multipart/digest of them.
    """
    assert message.get_content_type() == "multipart/mixed"
    [digest] = [part for part in message.iter_parts()
                if part.get_content_type() == "multipart/digest"]
    found = []
    for part in digest.iter_parts():
        assert part.get_content_type() == "message/rfc822"
        inner = part.get_content()
        assert isinstance(inner, EmailMessage)
        found.append(inner)
    return found
