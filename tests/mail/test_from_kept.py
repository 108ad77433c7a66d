"""A From line's reading, and a To and Cc line's, is kept for the next message with it.

Players send the same From line again and again, so its reading is kept (1,024 lines); a
line longer than any real one (which the reading refuses anyway) is never kept, so that a
stranger's long lines cannot hold memory.
"""

from __future__ import annotations

from email import message_from_bytes

from speakerbot.mail.inbound import headers
from speakerbot.mail.inbound.headers import FROM_PROBLEM, parse_sender


def _from(value: str) -> tuple[str | None, str, str | None]:
    return parse_sender(message_from_bytes(b"From: " + value.encode() + b"\r\n\r\nBody.\r\n"))


def test_the_same_line_reads_the_same_and_is_kept() -> None:
    line = "Alice Liddell <Alice@Example.ORG>"
    assert _from(line) == ("alice@example.org", "Alice Liddell", None)
    hits = headers._kept_sender_of.cache_info().hits
    assert _from(line) == ("alice@example.org", "Alice Liddell", None)
    assert headers._kept_sender_of.cache_info().hits == hits + 1


def test_a_line_too_long_to_be_real_is_refused_and_never_kept() -> None:
    before = headers._kept_sender_of.cache_info()
    for n in range(3):
        assert _from(f"{'x' * 5000}{n} <mallory@example.org>") == (None, "", FROM_PROBLEM)
    after = headers._kept_sender_of.cache_info()
    assert (after.hits, after.misses, after.currsize) == (before.hits, before.misses,
                                                          before.currsize)


def _recipients(to: str, cc: str = "") -> tuple[str, ...]:
    head = f"From: a@example.org\r\nTo: {to}\r\n" + (f"Cc: {cc}\r\n" if cc else "")
    return headers.recipients_of(message_from_bytes((head + "\r\nBody.\r\n").encode()))


def test_the_same_to_and_cc_lines_read_the_same_and_are_kept() -> None:
    assert _recipients("Nomic <Nomic@Example.ORG>", "b@example.org") == (
        "nomic@example.org", "b@example.org")
    hits = headers._kept_recipients.cache_info().hits
    assert _recipients("Nomic <Nomic@Example.ORG>", "b@example.org") == (
        "nomic@example.org", "b@example.org")
    assert headers._kept_recipients.cache_info().hits == hits + 1
    # Another Cc line is another reading.
    assert _recipients("Nomic <Nomic@Example.ORG>") == ("nomic@example.org",)


def test_to_and_cc_lines_longer_than_a_line_are_read_but_never_kept() -> None:
    before = headers._kept_recipients.cache_info()
    for n in range(3):
        many = ", ".join(f"p{k}@example.org" for k in range(60 + n))
        assert _recipients(many)[-1] == f"p{59 + n}@example.org"
    after = headers._kept_recipients.cache_info()
    assert (after.hits, after.misses, after.currsize) == (before.hits, before.misses,
                                                          before.currsize)
