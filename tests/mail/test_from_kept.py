"""A From line's reading is kept for the next message with the same line, within bounds.

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
