"""The Speaker's password never reaches the database: only the verdict of checking it does."""

from __future__ import annotations

import base64

from speakerbot.mail.language import parse_commands
from speakerbot.mail.reading import read_message
from speakerbot.service import PASSWORD_RIGHT, PASSWORD_WRONG, without_password

SECRET = "horse-battery-9"
LIMIT = 256 * 1024


def mail(body: str, *, encoding: str = "8bit", extra: str = "") -> bytes:
    payload = body.encode()
    if encoding == "base64":
        payload = base64.encodebytes(payload)
    head = (f"From: Chuck <chuck@example.org>\r\nTo: game@example.org\r\nSubject: fix\r\n"
            f"Message-ID: <admin-1@example.org>\r\n{extra}MIME-Version: 1.0\r\n"
            f"Content-Type: text/plain; charset=utf-8\r\n"
            f"Content-Transfer-Encoding: {encoding}\r\n\r\n")
    return head.encode() + payload


def test_the_right_password_becomes_a_verdict_and_the_secret_is_gone() -> None:
    raw = mail(f"PASSWORD {SECRET}\r\nADMIN SCORE Alice +5 typo\r\n")
    stored = without_password(raw, SECRET, max_bytes=LIMIT)
    assert SECRET.encode() not in stored
    read = read_message(stored)
    assert read.sender == "chuck@example.org" and read.message_id == "<admin-1@example.org>"
    parsed = parse_commands(read.subject, read.body)
    assert parsed.password == PASSWORD_RIGHT and not parsed.errors
    assert [c.verb for c in parsed.commands] == ["ADMIN"]
    assert without_password(raw, SECRET, max_bytes=LIMIT) == stored  # deterministic


def test_a_wrong_or_forged_password_is_marked_wrong() -> None:
    for given in ("guess", PASSWORD_RIGHT):
        stored = without_password(mail(f"password {given}\r\nADMIN DIGEST\r\n"), SECRET,
                                  max_bytes=LIMIT)
        assert parse_commands("", read_message(stored).body).password == PASSWORD_WRONG


def test_encoded_and_quoted_passwords_are_removed_too() -> None:
    encoded = without_password(mail(f"PASSWORD {SECRET}\nADMIN DIGEST\n", encoding="base64"),
                               SECRET, max_bytes=LIMIT)
    assert SECRET.encode() not in encoded and base64.b64encode(SECRET.encode()) not in encoded
    quoted = without_password(mail(f"Thanks!\n\n> PASSWORD {SECRET}\n> ADMIN DIGEST\n"),
                              SECRET, max_bytes=LIMIT)
    assert SECRET.encode() not in quoted


def test_headers_that_matter_are_kept_byte_for_byte() -> None:
    raw = mail(f"PASSWORD {SECRET}\n", extra="Auto-Submitted: auto-replied\r\n"
               "X-Folded: one\r\n two\r\n")
    stored = without_password(raw, SECRET, max_bytes=LIMIT)
    assert b"Auto-Submitted: auto-replied\r\n" in stored and b"X-Folded: one\r\n two\r\n" in stored
    assert stored.count(b"Content-Type:") == 1
    assert read_message(stored).skipped == "auto-reply"


def test_mail_without_a_password_line_is_stored_unchanged() -> None:
    for body in ("VOTE 301 FOR\n", "My password manager ate my vote.\nVOTE 301 FOR\n"):
        raw = mail(body)
        assert without_password(raw, SECRET, max_bytes=LIMIT) == raw


def test_unreadable_mail_that_may_hold_the_password_keeps_only_its_headers() -> None:
    raw = b"From: a@b.example, c@d.example\r\nSubject: x\r\n\r\nPASSWORD " + SECRET.encode()
    stored = without_password(raw, SECRET, max_bytes=LIMIT)
    assert SECRET.encode() not in stored and b"Subject: x" in stored


def test_unreadable_encoded_mail_keeps_only_its_headers() -> None:
    body = base64.encodebytes(f"PASSWORD {SECRET}\n".encode() + b"x" * 300_000)
    raw = mail("", encoding="base64") + body
    stored = without_password(raw, SECRET, max_bytes=LIMIT)
    assert read_message(raw, max_bytes=LIMIT).problem is not None
    assert base64.b64encode(f"PASSWORD {SECRET}".encode())[:12] not in stored
    assert b"Message-ID: <admin-1@example.org>" in stored


def test_colon_and_misspelled_password_lines_are_redacted_too() -> None:
    colon = without_password(mail(f"Password: {SECRET}\nADMIN DIGEST\n"), SECRET,
                             max_bytes=LIMIT)
    assert SECRET.encode() not in colon
    assert parse_commands("", read_message(colon).body).password == PASSWORD_RIGHT
    typo = without_password(mail(f"PASWORD {SECRET}\nADMIN DIGEST\n"), SECRET, max_bytes=LIMIT)
    assert SECRET.encode() not in typo
    prose = mail("Passport renewal is due.\nVOTE 301 FOR\n")
    assert without_password(prose, SECRET, max_bytes=LIMIT) == prose


def test_a_password_without_a_space_behind_a_nbsp_or_elsewhere_is_not_kept() -> None:
    for body in (f"PASSWORD:{SECRET}\n", f"\u00a0PASSWORD {SECRET}\nADMIN DIGEST\n",
                 f"PASSWORD {SECRET}\nADMIN VOID 301 typo {SECRET}\n",
                 f"ADMIN VOID 301 {SECRET}\n"):
        stored = without_password(mail(body), SECRET, max_bytes=LIMIT)
        assert SECRET.encode() not in stored, body
    nbsp = without_password(mail(f"\u00a0PASSWORD {SECRET}\nADMIN DIGEST\n"), SECRET,
                            max_bytes=LIMIT)
    assert parse_commands("", read_message(nbsp).body).password == PASSWORD_RIGHT
    # A word that merely contains the secret is left alone.
    longer = mail(f"VOTE 301 FOR\nx{SECRET}y\n")
    assert without_password(longer, SECRET, max_bytes=LIMIT) == longer
