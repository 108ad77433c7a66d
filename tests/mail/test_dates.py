"""The Date header: a zone of -0000 is UTC; a date with no zone, or junk, is no date."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import Message
from email.utils import formatdate

import pytest

from speakerbot.mail.inbound.headers import date_of

NOON = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)


def head(date: str) -> Message:
    message = Message()
    message["Date"] = date
    return message


@pytest.mark.parametrize(("value", "expected"), [
    ("Tue, 24 Nov 2026 10:00:00 -0000", NOON),  # what formatdate() writes
    ("Tue, 24 Nov 2026 10:00:00 -0000 (UTC)", NOON),
    ("Tue, 24 Nov 2026 10:00:00 +0000", NOON),
    ("Tue, 24 Nov 2026 12:00:00 +0200", NOON),
    ("Tue, 24 Nov 2026 10:00:00 GMT", NOON),
    ("Tue, 24 Nov 2026 10:00:00", None),  # no zone: unreadable, not guessed
    ("Tue, 24 Nov 2026 10:00:00 -0000 and more", None),
    ("yesterday", None),
    ("", None),
])
def test_date_of(value: str, expected: datetime | None) -> None:
    assert date_of(head(value)) == expected


def test_what_the_standard_library_writes_is_read_back() -> None:
    written = formatdate(NOON.timestamp())
    assert written.endswith("-0000")
    assert date_of(head(written)) == NOON
