"""A reading kept with a stored message is taken as it is; a stale one makes it read again.

``read_inbound`` is the one function that reads a message: these tests count the calls to it
through the module attribute by which ``reading_of`` (and the service) calls it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from speakerbot.mail.inbound import intake
from speakerbot.mail.inbound.authentication import AuthPolicy
from speakerbot.mail.inbound.intake import ReadingPolicy, encode_reading, reading_of

RECEIVED = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
POLICY = ReadingPolicy("hunter2", loop_token="nomic@example.org",
                       auth=AuthPolicy("dmarc", ("mx.example.org",)),
                       game_addresses=("nomic@example.org",))
RAW = (b"From: Alice <alice@example.org>\r\nTo: nomic@example.org\r\nSubject: votes\r\n"
       b"Message-ID: <v@example.org>\r\nDate: Fri, 01 Mar 2024 11:00:00 +0000\r\n\r\n"
       b"VOTE 301 FOR\r\nPROPOSE Tea\r\nTea at five.\r\nEND PROPOSE\r\n")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The bytes of each call to ``read_inbound``, counted from here on."""
    calls: list[bytes] = []
    real: Callable[..., intake.Reading] = intake.read_inbound

    def counted(raw: bytes, *args: Any, **kwargs: Any) -> intake.Reading:
        calls.append(raw)
        return real(raw, *args, **kwargs)

    monkeypatch.setattr(intake, "read_inbound", counted)
    return calls


def test_a_kept_reading_is_not_read_again(reads: list[bytes]) -> None:
    reading = intake.read_inbound(RAW, RECEIVED, POLICY)
    kept = encode_reading(reading, POLICY)
    assert kept is not None
    assert reading_of(reading.stored, kept, RECEIVED, POLICY) == reading
    assert reading_of(reading.stored, kept, RECEIVED, POLICY) == reading
    assert reads == [RAW]  # intake's reading alone


def test_a_message_kept_without_a_reading_is_read_from_its_stored_bytes(
        reads: list[bytes]) -> None:
    masked = intake.read_inbound(RAW.replace(b"VOTE", b"PASSWORD hunter2\r\nVOTE"), RECEIVED,
                                 POLICY)
    again = reading_of(masked.stored, None, RECEIVED, POLICY)
    assert len(reads) == 2 and reads[1] == masked.stored
    assert (again.mail, again.commands, again.authentication) == (
        masked.mail, masked.commands, masked.authentication)
    assert again.password is None  # the stored bytes hold no password to check


def test_a_reading_written_by_other_code_is_read_again(reads: list[bytes],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    reading = intake.read_inbound(RAW, RECEIVED, POLICY)
    kept = encode_reading(reading, POLICY)
    assert kept is not None
    monkeypatch.setattr(intake, "reading_format", lambda: "another version's fingerprint")
    again = reading_of(reading.stored, kept, RECEIVED, POLICY)
    assert reads == [RAW, reading.stored]
    assert (again.mail, again.commands, again.authentication) == (
        reading.mail, reading.commands, reading.authentication)


@pytest.mark.parametrize("kept", [b"", b"\xc1", b"\x92\xa1a\xa1b", b"not msgpack at all"])
def test_a_reading_that_does_not_decode_is_read_again(reads: list[bytes], kept: bytes) -> None:
    reading_of(RAW, kept, RECEIVED, POLICY)
    assert reads == [RAW]


def test_a_reading_kept_under_another_policy_is_read_again(reads: list[bytes]) -> None:
    reading = intake.read_inbound(RAW, RECEIVED, POLICY)
    kept = encode_reading(reading, POLICY)
    assert kept is not None
    trusting = ReadingPolicy("hunter2", loop_token="nomic@example.org",
                             auth=AuthPolicy("none"), game_addresses=("nomic@example.org",))
    again = reading_of(reading.stored, kept, RECEIVED, trusting)
    assert len(reads) == 2
    assert again.authentication.authenticated and not reading.authentication.authenticated
    # The password is not part of it: never checked after intake, and never kept.
    other = ReadingPolicy("another", loop_token="nomic@example.org",
                          auth=AuthPolicy("dmarc", ("mx.example.org",)),
                          game_addresses=("nomic@example.org",))
    assert reading_of(reading.stored, kept, RECEIVED, other) == reading
    assert len(reads) == 2


def test_a_reading_of_other_bytes_is_read_again(reads: list[bytes]) -> None:
    reading = intake.read_inbound(RAW, RECEIVED, POLICY)
    kept = encode_reading(reading, POLICY)
    assert kept is not None
    other = RAW.replace(b"VOTE 301 FOR", b"VOTE 301 AGAINST")
    assert reading_of(other, kept, RECEIVED, POLICY).commands != reading.commands
    assert reads == [RAW, other]
