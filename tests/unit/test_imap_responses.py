"""The IMAP adapter's pure helpers: reading the server's answers without a server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from speakerbot.adapters.imap.records import ImapConnectionLost
from speakerbot.adapters.imap.responses import (
    announces_mail,
    chunks,
    fetched_message,
    hierarchy_delimiter,
    idle_line_announces_mail,
    sizes_to_fetch,
    uid_set,
)
from speakerbot.adapters.transport import is_loopback

WHERE = "bot@imap.test:143"


def test_idle_lines() -> None:
    assert idle_line_announces_mail(b"* 3 EXISTS\r\n", WHERE)
    assert idle_line_announces_mail(b"* 4 recent\r\n", WHERE)
    assert not idle_line_announces_mail(b"* 2 EXPUNGE\r\n", WHERE)
    assert not idle_line_announces_mail(b"* OK Still here\r\n", WHERE)
    with pytest.raises(ImapConnectionLost, match="said"):
        idle_line_announces_mail(b"* BYE shutting down\r\n", WHERE)
    with pytest.raises(ImapConnectionLost, match="ended IDLE"):
        idle_line_announces_mail(b"A001 OK IDLE terminated\r\n", WHERE)


def test_parsed_responses_that_announce_mail() -> None:
    assert announces_mail((5, b"EXISTS"))
    assert not announces_mail((5, b"EXPUNGE"))
    assert not announces_mail(b"* 5 EXISTS")


def test_the_hierarchy_delimiter() -> None:
    assert hierarchy_delimiter([((b"\\Noselect",), b".", "")]) == "."
    assert hierarchy_delimiter([((), None, "")]) == "/"
    assert hierarchy_delimiter([]) == "/"


def test_sizes_skip_deleted_vanished_and_sizeless_messages() -> None:
    meta: dict[int, dict[bytes, object]] = {
        1: {b"RFC822.SIZE": 10, b"FLAGS": ()},
        2: {b"RFC822.SIZE": 20, b"FLAGS": (b"\\Deleted",)},
        4: {b"FLAGS": ()},
    }
    assert sizes_to_fetch(meta, [1, 2, 3, 4], WHERE) == {1: 10}


def test_a_fetched_message_is_dated_in_utc() -> None:
    plus_two = datetime(2026, 1, 2, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    message = fetched_message(7, 1, {b"INTERNALDATE": plus_two}, {b"BODY[]": b"raw"}, None,
                              WHERE)
    assert message is not None
    assert (message.uidvalidity, message.uid, message.raw) == (7, 1, b"raw")
    assert message.internaldate == datetime(2026, 1, 2, 10, 0, tzinfo=UTC)
    header = fetched_message(7, 2, {}, {b"BODY[HEADER]<0>": b"head"}, 5000, WHERE)
    assert header is not None and header.size == 5000 and header.raw == b"head"
    assert fetched_message(7, 3, {}, None, None, WHERE) is None
    assert fetched_message(7, 4, {}, {b"BODY[]": None}, None, WHERE) is None


def test_uid_sets_and_chunks() -> None:
    assert uid_set([1, 5, 7]) == "1,5,7"
    assert list(chunks([1, 2, 3, 4, 5], 2)) == [[1, 2], [3, 4], [5]]


@pytest.mark.parametrize(("host", "loopback"), [
    ("localhost", True), ("LocalHost.", True), ("127.9.9.9", True), ("::1", True),
    ("[::1]", True), ("::ffff:127.0.0.1", True), ("mail.example.org", False),
    ("192.0.2.1", False), ("127.0.0.1.nip.io", False),
])
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
