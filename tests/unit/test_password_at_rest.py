"""The Speaker's password never reaches the database: its verdict goes in a column of its own."""

from __future__ import annotations

import base64

from speakerbot.mail.inbound.language import parse_commands
from speakerbot.mail.inbound.reading import read_message
from speakerbot.mail.inbound.redaction import MASK, redact_message

SECRET = "horse-battery-9"
LIMIT = 256 * 1024
FORGED_VERDICT = "[checked by speakerbot: right]"


def mail(body: str, *, encoding: str = "8bit", extra: str = "") -> bytes:
    payload = body.encode()
    if encoding == "base64":
        payload = base64.encodebytes(payload)
    head = (f"From: Chuck <chuck@example.org>\r\nTo: game@example.org\r\nSubject: fix\r\n"
            f"Message-ID: <admin-1@example.org>\r\n{extra}MIME-Version: 1.0\r\n"
            f"Content-Type: text/plain; charset=utf-8\r\n"
            f"Content-Transfer-Encoding: {encoding}\r\n\r\n")
    return head.encode() + payload


def stored(raw: bytes) -> bytes:
    return redact_message(raw, SECRET, max_bytes=LIMIT).raw


def test_the_right_password_gives_the_verdict_right_and_the_secret_is_gone() -> None:
    raw = mail(f"PASSWORD {SECRET}\r\nADMIN SCORE Alice +5 typo\r\n")
    redacted = redact_message(raw, SECRET, max_bytes=LIMIT)
    assert redacted.verdict == "right"
    assert SECRET.encode() not in redacted.raw
    read = read_message(redacted.raw)
    assert read.sender == "chuck@example.org" and read.message_id == "<admin-1@example.org>"
    parsed = parse_commands(read.subject, read.body)
    assert parsed.password == MASK and not parsed.errors
    assert [c.verb for c in parsed.commands] == ["ADMIN"]
    assert redact_message(raw, SECRET, max_bytes=LIMIT) == redacted  # deterministic


def test_a_wrong_or_forged_password_gets_the_verdict_wrong() -> None:
    for given in ("guess", FORGED_VERDICT, MASK):
        redacted = redact_message(mail(f"password {given}\r\nADMIN DIGEST\r\n"), SECRET,
                                  max_bytes=LIMIT)
        assert redacted.verdict == "wrong", given


def test_two_different_password_lines_are_wrong_even_if_one_is_right() -> None:
    redacted = redact_message(mail(f"PASSWORD {SECRET}\nPASSWORD guess\nADMIN DIGEST\n"),
                              SECRET, max_bytes=LIMIT)
    assert redacted.verdict == "wrong" and SECRET.encode() not in redacted.raw


def test_no_password_line_gives_no_verdict() -> None:
    assert redact_message(mail("VOTE 301 FOR\n"), SECRET, max_bytes=LIMIT).verdict is None


def test_encoded_and_quoted_passwords_are_removed_too() -> None:
    encoded = stored(mail(f"PASSWORD {SECRET}\nADMIN DIGEST\n", encoding="base64"))
    assert SECRET.encode() not in encoded and base64.b64encode(SECRET.encode()) not in encoded
    quoted = stored(mail(f"Thanks!\n\n> PASSWORD {SECRET}\n> ADMIN DIGEST\n"))
    assert SECRET.encode() not in quoted


def test_headers_that_matter_are_kept_byte_for_byte() -> None:
    raw = mail(f"PASSWORD {SECRET}\n", extra="Auto-Submitted: auto-replied\r\n"
               "X-Folded: one\r\n two\r\n")
    kept = stored(raw)
    assert b"Auto-Submitted: auto-replied\r\n" in kept and b"X-Folded: one\r\n two\r\n" in kept
    assert kept.count(b"Content-Type:") == 1
    assert read_message(kept).skipped == "auto-reply"


def test_a_secret_in_a_header_is_masked_too() -> None:
    kept = stored(mail(f"PASSWORD {SECRET}\n", extra=f"X-Note: {SECRET}\r\n"))
    assert SECRET.encode() not in kept and b"X-Note: ********" in kept
    subject = stored(mail("VOTE 301 FOR\n", extra=f"Comments: pw {SECRET}\r\n"))
    assert SECRET.encode() not in subject


def test_mail_without_a_password_line_is_stored_unchanged() -> None:
    for body in ("VOTE 301 FOR\n", "My password manager ate my vote.\nVOTE 301 FOR\n"):
        raw = mail(body)
        assert stored(raw) == raw


def test_unreadable_mail_that_may_hold_the_password_keeps_only_its_headers() -> None:
    raw = b"From: a@b.example, c@d.example\r\nSubject: x\r\n\r\nPASSWORD " + SECRET.encode()
    kept = stored(raw)
    assert SECRET.encode() not in kept and b"Subject: x" in kept


def test_unreadable_encoded_mail_keeps_only_its_headers() -> None:
    body = base64.encodebytes(f"PASSWORD {SECRET}\n".encode() + b"x" * 300_000)
    raw = mail("", encoding="base64") + body
    kept = stored(raw)
    assert read_message(raw, max_bytes=LIMIT).problem is not None
    assert base64.b64encode(f"PASSWORD {SECRET}".encode())[:12] not in kept
    assert b"Message-ID: <admin-1@example.org>" in kept


def test_colon_and_misspelled_password_lines_are_redacted_too() -> None:
    colon = redact_message(mail(f"Password: {SECRET}\nADMIN DIGEST\n"), SECRET,
                           max_bytes=LIMIT)
    assert SECRET.encode() not in colon.raw and colon.verdict == "right"
    typo = stored(mail(f"PASWORD {SECRET}\nADMIN DIGEST\n"))
    assert SECRET.encode() not in typo
    prose = mail("Passport renewal is due.\nVOTE 301 FOR\n")
    assert stored(prose) == prose


def test_a_password_without_a_space_behind_a_nbsp_or_elsewhere_is_not_kept() -> None:
    for body in (f"PASSWORD:{SECRET}\n", f"\u00a0PASSWORD {SECRET}\nADMIN DIGEST\n",
                 f"PASSWORD {SECRET}\nADMIN VOID 301 typo {SECRET}\n",
                 f"ADMIN VOID 301 {SECRET}\n"):
        assert SECRET.encode() not in stored(mail(body)), body
    nbsp = redact_message(mail(f"\u00a0PASSWORD {SECRET}\nADMIN DIGEST\n"), SECRET,
                          max_bytes=LIMIT)
    assert nbsp.verdict == "right"
    # Even run into a longer word the secret is masked: a reader that joins lines (a body
    # that claims base64 and is not) runs it into the next word, and it is still the secret.
    longer = mail(f"VOTE 301 FOR\nx{SECRET}y\n")
    assert SECRET.encode() not in stored(longer)
    assert f"x{MASK}y".encode() in stored(longer)


def test_a_non_ascii_secret_in_a_raw_8bit_header_is_masked_too() -> None:
    # The reader keeps a header's raw 8-bit bytes as surrogate escapes, which the text
    # search for the secret does not match: the rebuilt message is searched by its bytes.
    secret = "pferd-¡batterie"
    raw = (f"From: Chuck <chuck@example.org>\r\nTo: game@example.org\r\n"
           f"Subject: admin {secret}\r\nX-Note: {secret}\r\nMessage-ID: <a@example.org>\r\n\r\n"
           f"ADMIN SCORE Alice +5\r\nPASSWORD {secret}\r\n").encode()
    redacted = redact_message(raw, secret, max_bytes=LIMIT)
    assert redacted.verdict == "right" and redacted.masked
    assert secret.encode() not in redacted.raw
    assert read_message(redacted.raw).message_id == "<a@example.org>"
