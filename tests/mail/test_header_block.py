"""The one header-block splitter: the reader and the password's redaction cut headers alike."""

from __future__ import annotations

import pytest

from speakerbot.mail.inbound.headers import MAX_HEADER_BYTES, read_headers, split_header_block
from speakerbot.mail.inbound.reading import read_message
from speakerbot.mail.inbound.redaction import redact_message


@pytest.mark.parametrize(
    ("raw", "head"),
    [
        (b"From: a@x\nSubject: s\n\nbody\n", b"From: a@x\nSubject: s\n\n"),
        (b"From: a@x\r\nSubject: s\r\n\r\nbody\r\n", b"From: a@x\r\nSubject: s\r\n\r\n"),
        (b"From: a@x\n\r\nX-Late: y\n\nbody", b"From: a@x\n\r\n"),
        (b"From: a@x\r\n\nX-Late: y\r\n\r\nbody", b"From: a@x\r\n\n"),
        (b"From: a@x\nSubject: no body at all", b"From: a@x\nSubject: no body at all"),
        (b"", b""),
    ],
)
def test_split_header_block(raw: bytes, head: bytes) -> None:
    got_head, body = split_header_block(raw)
    assert got_head == head
    assert got_head + body == raw


def test_read_headers_stops_at_the_first_empty_line_of_either_kind() -> None:
    headers = read_headers(b"From: a@x\nSubject: s\n\r\nX-Late: y\n\nbody")
    assert [name for name, _ in headers.raw_items()] == ["From", "Subject"]


def test_read_headers_reads_only_the_first_bytes_of_a_huge_block() -> None:
    filler = b"X-Filler: " + b"a" * 1000 + b"\n"
    raw = b"From: a@x\n" + filler * (MAX_HEADER_BYTES // len(filler) + 1) + b"Subject: late\n\nx"
    headers = read_headers(raw)
    assert headers["From"] == "a@x"
    assert headers["Subject"] is None


def test_redaction_masks_a_secret_in_what_the_reader_reads_as_the_body() -> None:
    # After "\n\r\n" the reader sees the body; the password line there is masked.
    raw = b"From: a@example.org\nSubject: s\n\r\nX-Late: y\nPASSWORD hunter2x\n"
    mail = read_message(raw)
    assert "PASSWORD hunter2x" in mail.body
    kept = redact_message(raw, "hunter2x", max_bytes=1 << 20)
    assert kept.verdict == "right"
    assert b"hunter2x" not in kept.raw
