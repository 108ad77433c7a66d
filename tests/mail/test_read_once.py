"""read_inbound returns exactly what intake and processing each read of a message before.

Before it, intake redacted and authenticated a message (``redact_message``, then
``authenticate_mail``), and processing read it again: from what intake read when nothing was
masked and in the same transaction, otherwise from the stored bytes (``read_message``,
``parse_commands``, ``authenticate_mail``). ``composed_as_before`` composes those functions
as the service did; every message of the corpus, mutated ones and generated Speaker mail
must read the same through ``read_inbound``, and the same again from what is kept of it.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.header import Header
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given

from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.authentication import Authentication, AuthPolicy, authenticate_mail
from speakerbot.mail.inbound.intake import (
    Reading,
    ReadingPolicy,
    decode_reading,
    encode_reading,
    read_inbound,
    reading_of,
)
from speakerbot.mail.inbound.reading import InboundMail, read_message
from speakerbot.mail.inbound.redaction import redact_message
from speakerbot.rfc5322 import message_id_of
from tests.mail.test_mail_properties import SETTINGS, mutated, speaker_mail

CORPUS = Path(__file__).resolve().parent / "corpus"
MESSAGES = sorted(CORPUS.glob("*.eml"))
RECEIVED = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
GAME = "nomic@example.org"
_PASSWORD_LINE = re.compile(rb"^\s*PASSWORD:?[ \t]+(\S[^\r\n]*?)\s*$", re.IGNORECASE | re.MULTILINE)


def policy(password: str = "", *, require: Literal["dmarc", "none"] = "dmarc") -> ReadingPolicy:
    """The game's policy as the service gives it, with the corpus's loop token."""
    return ReadingPolicy(password, max_bytes=256 * 1024, max_command_lines=1000,
                         loop_token=GAME, auth=AuthPolicy(require, ("mx.example.org",)),
                         game_addresses=(GAME,))


Acted = tuple[InboundMail, lang.ParseResult, Authentication]


@dataclass(frozen=True)
class Before:
    """What the service read of one message before read_inbound, at each of its steps."""

    recorded: tuple[object, ...]
    """What intake stored and recorded, in the order of ``recorded``."""
    acted_on: Acted
    """What processing read in intake's transaction (from what intake read, unless masked)."""
    retried: Acted
    """What processing read in any later transaction: the stored bytes, read again."""


def recorded(reading: Reading) -> tuple[object, ...]:
    """What intake stores and records of a message, from its reading."""
    return (reading.stored, reading.password, reading.sender, reading.body_sha256,
            reading.received_sha256, reading.size, reading.authenticated, reading.message_id)


def composed_as_before(raw: bytes, rules: ReadingPolicy) -> Before:
    """Compose the reading functions as intake (``_intake``) and processing did."""
    redacted = redact_message(raw, rules.admin_password, max_bytes=rules.max_bytes,
                              max_command_lines=rules.max_command_lines,
                              loop_token=rules.loop_token)
    verdict = authenticate(redacted.mail, rules)
    message_id = message_id_of(redacted.raw) if redacted.masked else redacted.mail.record_id
    mail = read_message(redacted.raw, max_bytes=rules.max_bytes, loop_token=rules.loop_token)
    retried = (mail, parse(mail, rules), authenticate(mail, rules))
    acted_on = retried if redacted.masked else (
        redacted.mail, redacted.parsed or parse(redacted.mail, rules), verdict)
    return Before((redacted.raw, redacted.verdict, redacted.sender, redacted.body_sha256,
                   hashlib.sha256(raw).hexdigest(), len(raw), verdict.authenticated,
                   message_id), acted_on, retried)


def parse(mail: InboundMail, rules: ReadingPolicy) -> lang.ParseResult:
    if mail.problem:
        return lang.ParseResult((), (), ())
    return lang.parse_commands(mail.subject, mail.body, max_command_lines=rules.max_command_lines)


def authenticate(mail: InboundMail, rules: ReadingPolicy) -> Authentication:
    return authenticate_mail(mail.sender, mail.auth_results, rules.auth,
                             recipients=mail.recipients, date=mail.date, received=RECEIVED,
                             game_addresses=rules.game_addresses)


def read_as_before(raw: bytes, rules: ReadingPolicy) -> Reading:
    """Read a message once, check it against the service's old steps, and return it."""
    reading = read_inbound(raw, RECEIVED, rules)
    before = composed_as_before(raw, rules)
    assert recorded(reading) == before.recorded
    assert same(acted_on(reading), before.acted_on)
    assert same(acted_on(reading), before.retried)
    # Kept with the stored message, or read again from it: the same again.
    kept = encode_reading(reading, rules)
    if kept is not None:
        assert reading_of(reading.stored, kept, RECEIVED, rules) == reading
    assert same(acted_on(reading_of(reading.stored, None, RECEIVED, rules)), before.retried)
    return reading


def acted_on(reading: Reading) -> Acted:
    return reading.mail, reading.commands, reading.authentication


def same(one: Acted, other: Acted) -> bool:
    """Equal, the Message-ID the record keeps included (left out of the mail's ==)."""
    return one == other and one[0].record_id == other[0].record_id


def secret_of(raw: bytes) -> str:
    found = _PASSWORD_LINE.search(raw)
    return found.group(1).decode("utf-8", "replace") if found else ""


@pytest.mark.parametrize("path", MESSAGES, ids=[path.stem for path in MESSAGES])
@pytest.mark.parametrize("require", ["dmarc", "none"])
def test_the_corpus_reads_as_before(path: Path, require: Literal["dmarc", "none"]) -> None:
    raw = path.read_bytes()
    for password in {"", secret_of(raw), "not-the-password"}:
        read_as_before(raw, policy(password, require=require))


def speaker(body: str, *, subject: str = "admin", headers: str = "") -> bytes:
    return (f"From: Speaker <speaker@example.org>\r\nTo: {GAME}\r\nSubject: {subject}\r\n"
            f"Date: Fri, 01 Mar 2024 11:00:00 +0000\r\nMessage-ID: <s@example.org>\r\n"
            f"{headers}\r\n{body}").encode()


SIGNED = ("Authentication-Results: mx.example.org; dmarc=pass header.from=example.org\r\n")
CASES = {
    "right password, authenticated": speaker("PASSWORD hunter2\r\nADMIN DIGEST\r\n",
                                             headers=SIGNED),
    "wrong password": speaker("PASSWORD guess\r\nADMIN DIGEST\r\n", headers=SIGNED),
    "password in the subject": speaker("ADMIN DIGEST\r\n", subject="admin hunter2"),
    "password in an encoded subject": speaker(
        "ADMIN DIGEST\r\n", subject=Header("admin hunter2 é", "utf-8").encode()),
    "password in base64": speaker(
        base64.b64encode(b"PASSWORD hunter2\r\nADMIN DIGEST\r\n").decode() + "\r\n",
        headers="Content-Transfer-Encoding: base64\r\n" + SIGNED),
    "unreadable, may hide it": speaker("x", headers="Content-Type: multipart/mixed\r\n"
                                       "Content-Transfer-Encoding: base64\r\n"),
    "no password at all": speaker("VOTE 301 FOR\r\n", headers=SIGNED),
    "a loop": speaker("VOTE 301 FOR\r\n", headers=f"X-Loop: {GAME}\r\n"),
}


@pytest.mark.parametrize("raw", CASES.values(), ids=CASES.keys())
def test_speaker_mail_reads_as_before(raw: bytes) -> None:
    reading = read_as_before(raw, policy("hunter2"))
    assert b"hunter2" not in reading.stored
    assert "hunter2" not in repr(reading) + repr(reading.mail.body)


def test_what_the_game_acts_on_is_read_from_the_stored_bytes() -> None:
    reading = read_as_before(CASES["right password, authenticated"], policy("hunter2"))
    assert (reading.password, reading.authenticated) == ("right", True)
    assert reading.commands.password == "********"
    assert reading.authentication.authenticated  # the masked copy keeps its headers
    assert reading.stored != CASES["right password, authenticated"]


@SETTINGS
@given(mutated())
def test_mutated_mail_reads_as_before(raw: bytes) -> None:
    read_as_before(raw, policy(secret_of(raw) or "hunter2"))


@SETTINGS
@given(speaker_mail())
def test_generated_speaker_mail_reads_as_before(case: tuple[bytes, str]) -> None:
    raw, secret = case
    reading = read_as_before(raw, policy(secret))
    kept = encode_reading(reading, policy(secret))
    # Nothing the stored bytes do not show: a secret of non-ASCII characters written raw
    # in a header is stored as it is (redaction compares it decoded), so it is in both.
    if kept is not None and len(secret) >= 4 and secret.encode() not in reading.stored:
        assert secret.encode() not in kept


def test_a_reading_is_kept_unless_it_cannot_be_written() -> None:
    rules = policy("hunter2")
    kept = [encode_reading(read_inbound(path.read_bytes(), RECEIVED, rules), rules)
            for path in MESSAGES]
    assert all(data is not None for data in kept)
    # Only for the bytes it was read from.
    reading = read_inbound(MESSAGES[0].read_bytes(), RECEIVED, rules)
    data = encode_reading(reading, rules)
    assert data is not None
    assert decode_reading(data, b"the row's bytes", rules) is None
    assert decode_reading(data, reading.stored, policy("another password")) == reading
    assert decode_reading(data, reading.stored, policy("hunter2", require="none")) is None
    assert decode_reading(b"\x93\x01\x02\x03", reading.stored, rules) is None
    assert decode_reading(b"\xc1", reading.stored, rules) is None


def test_a_date_keeps_its_offset() -> None:
    raw = speaker("VOTE 301 FOR\r\n").replace(b"+0000", b"+0200")
    rules = policy()
    reading = read_inbound(raw, RECEIVED + timedelta(hours=-2), rules)
    data = encode_reading(reading, rules)
    assert data is not None
    back = decode_reading(data, reading.stored, rules)
    assert back is not None and back.mail.date is not None and reading.mail.date is not None
    assert back.mail.date.utcoffset() == reading.mail.date.utcoffset() == timedelta(hours=2)
