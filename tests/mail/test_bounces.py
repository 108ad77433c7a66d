"""Reading bounces: real formats (RFC 3464 reports, Exim, qmail, Exchange), and hostile bytes."""

from __future__ import annotations

import itertools
import os
import re
from email import message_from_bytes, policy
from email.message import Message
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speakerbot.mail.inbound.bounces import (
    ADDRESS_HEADERS,
    DETAIL_LENGTH,
    MAX_BOUNCE_BYTES,
    Bounce,
    read_bounce,
    return_path_tokens,
)
from speakerbot.mail.verp import bounce_address, message_ref, recipient_of
from tests.mail.conftest import LIMIT_SECONDS, cpu_seconds
from tests.support.dsn import make_dsn

GAME = "nomic@example.org"
SECRET = "test-secret"
SAMPLES = Path(__file__).resolve().parents[1] / "data" / "bounces"
PLAYERS = [
    "kate@example.net", "bob@mail.example.com", "carol@example.net", "dave@example.com",
    "erin@exim.example", "frank@qmail.example", "grace@corp.example", "heidi@gmail.example",
    "ivan@example.net", "judy@other.example",
]
"""The recipients of the samples, among whom a sample's token must name the right one."""
ORIGINAL = (
    b"From: Speaker <nomic@example.org>\r\nTo: kate@example.net\r\n"
    b"Subject: Proposal 312 is open for voting\r\nMessage-ID: <announce-312.kate@example.org>\r\n"
    b"\r\nProposal 312 is open for voting.\r\n"
)
REF = message_ref("<announce-312.kate@example.org>")
"""The reference of ORIGINAL, the message of VERP."""
VERP = bounce_address(GAME, SECRET, REF, "kate@example.net")
SETTINGS = settings(
    max_examples=int(os.environ.get("SPEAKERBOT_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not os.environ.get("SPEAKERBOT_FUZZ_RANDOM"),
)


@pytest.mark.parametrize(
    ("sample", "kind", "detail", "recipient", "message_id"),
    [
        ("postfix-hard-511.eml", "hard", "failed 5.1.1: smtp; 550 5.1.1 <kate@example.net>: "
         "Recipient address rejected: User unknown in virtual mailbox table",
         "kate@example.net", "<announce-312.kate@example.org>"),
        ("postfix-soft-422.eml", "soft", "failed 4.2.2: smtp; 452 4.2.2",
         "bob@mail.example.com", "<ballot-78.bob@example.org>"),
        ("postfix-delayed.eml", "none", "delayed 4.4.1: X-Postfix; connect to",
         "carol@example.net", "<announce-312.carol@example.org>"),
        ("postfix-success.eml", "delivered", "relayed 2.0.0: smtp; 250 2.0.0 Ok",
         "dave@example.com", "<announce-312.dave@example.org>"),
        ("exim-non-dsn.eml", "hard", "failed: erin@exim.example (Mail delivery failed",
         "erin@exim.example", "<announce-312.erin@example.org>"),
        ("qmail.eml", "hard", "failed: frank@qmail.example (failure notice)",
         "frank@qmail.example", "<announce-312.frank@example.org>"),
        ("exchange-ndr.eml", "hard", "failed: grace@corp.example (Undeliverable: Proposal",
         "grace@corp.example", "<announce-312.grace@example.org>"),
        ("gmail-dsn.eml", "hard", "failed 5.1.1: smtp; 550-5.1.1 The email account that",
         "heidi@gmail.example", "<announce-312.heidi@example.org>"),
        ("exchange-online-ndr.eml", "hard",
         "failed 5.1.10: smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient",
         "ivan@example.net", "<announce-312.ivan@example.org>"),
        ("vacation-autoreply.eml", "none", "an auto-reply: Out of office: Proposal 312",
         "judy@other.example", "<announce-312.judy@example.org>"),
    ],
)
def test_a_sample_bounce_is_read(
    sample: str, kind: str, detail: str, recipient: str, message_id: str
) -> None:
    raw = (SAMPLES / sample).read_bytes()
    # The token names the message the sample returns (or, for the auto-reply, answers).
    assert message_id.encode() in raw
    bounce = read_bounce(raw, GAME)
    assert bounce is not None
    assert (bounce.kind, bounce.detail[: len(detail)]) == (kind, detail)
    ref = message_ref(message_id)
    assert recipient_of(SECRET, bounce.token, PLAYERS) == (ref, recipient)
    assert bounce.token == bounce_address(GAME, SECRET, ref, recipient).split("-", 1)[1][:-12]


def test_every_sample_is_in_the_table() -> None:
    assert len(list(SAMPLES.glob("*.eml"))) == 11


def test_mail_to_no_verp_address_of_this_game_is_no_bounce() -> None:
    # Delivered to the game's own address; To: another base, Cc: another domain, a bad token.
    raw = (SAMPLES / "other-address.eml").read_bytes()
    assert read_bounce(raw, GAME) is None
    # Not even for the game the Cc names: To and Cc are the sender's words, not where the
    # message was delivered.
    assert read_bounce(raw, "nomic@elsewhere.example") is None
    envelope = (b"Delivered-To: nomic+bounce-ab5ccf17a5a10083-a5ece3c16ec3c68249f3"
                b"@elsewhere.example\n")
    assert read_bounce(envelope + raw, "nomic@elsewhere.example") is not None


@pytest.mark.parametrize("header", ["To", "Cc", "Bcc", "Reply-To", "Resent-To", "From"])
def test_a_return_path_written_by_the_sender_makes_no_bounce(header: str) -> None:
    # A player answering with reply-all copies whatever the first writer put in Cc.
    raw = message_with({"Return-Path": "<>", "Delivered-To": GAME, header: VERP,
                        "From" if header != "From" else "Sender": "MAILER-DAEMON@mx.test"},
                       b"VOTE 301 AGAINST\n")
    assert read_bounce(raw, GAME) is None
    assert return_path_tokens(raw, GAME) == []


def test_a_return_path_in_the_row_id_form_is_no_bounce() -> None:
    # Return paths once named an outbox row; a bounce of mail sent then names nobody now.
    raw = (SAMPLES / "postfix-hard-511.eml").read_bytes()
    verp = bounce_address(GAME, SECRET, REF, "kate@example.net").encode()
    assert raw.count(verp) == 5
    assert read_bounce(raw.replace(verp, b"nomic+bounce-41-1d42d5cf76fea1cdb4e1@example.org"),
                       GAME) is None


def test_every_sample_is_another_games_mail() -> None:
    for sample in SAMPLES.glob("*.eml"):
        assert read_bounce(sample.read_bytes(), "speaker@example.org") is None, sample.name


def message_with(headers: dict[str, str], body: bytes = b"Hello.\n") -> bytes:
    return b"".join(f"{k}: {v}\n".encode() for k, v in headers.items()) + b"\n" + body


def test_the_first_verp_address_found_wins_in_the_order_of_the_headers() -> None:
    refs = [message_ref(f"<announce-{n}.kate@example.org>") for n in range(6)]
    addresses = [bounce_address(GAME, SECRET, ref, "kate@example.net") for ref in refs]
    names = list(ADDRESS_HEADERS)
    for first in range(len(names)):
        headers = {name: addresses[i] for i, name in enumerate(names) if i >= first}
        raw = message_with(dict(reversed(headers.items())))  # header order in the mail is moot
        bounce = read_bounce(raw, GAME)
        assert bounce is not None
        assert bounce.token.split("-")[0] == refs[first]


@pytest.mark.parametrize(
    "value",
    [
        f"Speaker <{VERP}>",
        f"someone@example.net, \"Speaker, bounces\" <{VERP}>",
        f"undisclosed-recipients:;, {VERP.upper()}",
        f"=?utf-8?q?caf=C3=A9?= <{VERP}>",
        f"\xe9t\xe9 <{VERP}>",
    ],
)
def test_the_address_is_found_among_others(value: str) -> None:
    raw = f"Delivered-To: {value}\n\nHello.\n".encode("latin-1")
    bounce = read_bounce(raw, GAME)
    assert bounce is not None
    assert recipient_of(SECRET, bounce.token, ["kate@example.net"]) == (REF, "kate@example.net")


def test_only_the_first_values_of_a_header_are_looked_at() -> None:
    other = b"Delivered-To: someone@example.net\n"
    verp = f"Delivered-To: {VERP}\n".encode()
    assert read_bounce(other * 20 + verp + b"\nbody\n", GAME) is None
    assert read_bounce(other * 19 + verp + b"\nbody\n", GAME) is not None


@pytest.mark.parametrize(
    ("action", "status", "kind"),
    [
        ("failed", "5.1.1", "hard"),
        ("failed", "5.7.1", "hard"),
        ("failed", "4.2.2", "soft"),
        ("failed", "4.4.7", "soft"),
        ("failed", "", "hard"),
        ("failed", "unknown", "hard"),
        ("Failed (permanent)", "5.0.0", "hard"),
        ("error", "5.1.1", "hard"),
        ("delayed", "4.4.1", "none"),
        ("delivered", "2.0.0", "delivered"),
        ("relayed", "2.0.0", "delivered"),
        ("expanded", "2.0.0", "delivered"),
        ("bounced", "5.1.1", "none"),
    ],
)
def test_a_postfix_report_is_read_by_its_action_and_status(
    action: str, status: str, kind: str
) -> None:
    bounce = read_bounce(make_dsn(ORIGINAL, VERP, "kate@example.net", status=status,
                                  action=action), GAME)
    assert bounce is not None
    assert (bounce.token, bounce.kind) == (VERP[13:-12], kind)
    assert bounce.detail.startswith(f"{action.lower()} {status}".strip())


def report(*blocks: tuple[str, str]) -> bytes:
    """A minimal RFC 3464 report to VERP with one recipient block per (action, status)."""
    fields = "".join(
        f"Final-Recipient: rfc822; r{n}@example.net\nAction: {action}\nStatus: {status}\n\n"
        for n, (action, status) in enumerate(blocks)
    )
    return (
        f"Delivered-To: {VERP}\nFrom: MAILER-DAEMON@mx.test\nTo: {VERP}\nMIME-Version: 1.0\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\n\n'
        "--b\nContent-Type: text/plain\n\nSome did not arrive.\n\n"
        "--b\nContent-Type: message/delivery-status\n\n"
        f"Reporting-MTA: dns; mx.test\n\n{fields}--b--\n"
    ).encode()


OUTCOMES = [("failed", "5.1.1", "hard"), ("failed", "4.2.2", "soft"),
            ("delivered", "2.0.0", "delivered"), ("delayed", "4.4.1", "none")]


@pytest.mark.parametrize("blocks", [c for n in (1, 2, 3, 4) for c in
                                    itertools.permutations(OUTCOMES, n)])
def test_the_worst_recipient_block_wins(blocks: tuple[tuple[str, str, str], ...]) -> None:
    worst = min(blocks, key=lambda block: OUTCOMES.index(block))
    bounce = read_bounce(report(*[(action, status) for action, status, _ in blocks]), GAME)
    assert bounce is not None
    assert (bounce.kind, bounce.detail) == (worst[2], f"{worst[0]} {worst[1]}")


def test_a_report_without_a_recipients_action_reports_nothing() -> None:
    bounce = read_bounce(report(), GAME)
    assert bounce is not None
    assert (bounce.kind, bounce.detail) == ("none", "a delivery report that names no "
                                                    "recipient's action")


def test_a_delay_warning_in_another_format_is_no_failure() -> None:
    body = (b"Delivery to the following recipient has been delayed:\n\n"
            b"     kate@example.net\n\nMessage will be retried for 2 more day(s)\n")
    bounce = read_bounce(message_with({"From": "Mail Delivery Subsystem <mailer-daemon@"
                                                "googlemail.com>", "To": VERP,
                                       "Delivered-To": VERP,
                                       "Subject": "Delivery Status Notification (Delay)"},
                                      body), GAME)
    assert bounce is not None
    assert (bounce.kind, bounce.detail) == (
        "none", "delayed: kate@example.net (Delivery Status Notification (Delay))")


def test_a_plain_reply_to_the_verp_address_is_no_failure() -> None:
    bounce = read_bounce(message_with({"From": "kate@example.net", "To": VERP,
                                       "Delivered-To": VERP, "Subject": "Re: Proposal 312"},
                                      b"I vote FOR.\n"), GAME)
    assert bounce == Bounce(VERP[13:-12], "none", "not a delivery report: Re: Proposal 312")


def test_a_bounce_without_a_from_header_is_still_read() -> None:
    raw = (SAMPLES / "qmail.eml").read_bytes().replace(b"From: MAILER-DAEMON@qmail.example\n",
                                                       b"")
    assert b"From: MAILER" not in raw
    bounce = read_bounce(raw, GAME)
    assert bounce is not None
    assert bounce.kind == "hard"


def test_8bit_headers_do_not_stop_the_detectors() -> None:
    raw = (SAMPLES / "exchange-ndr.eml").read_bytes().replace(
        b"Subject: Undeliverable: Proposal", b"Subject: Unzustellbar \xfc: Proposal")
    bounce = read_bounce(raw, GAME)
    assert bounce is not None
    assert (bounce.kind, bounce.detail) == (
        "hard", "failed: grace@corp.example (Unzustellbar \xfc: Proposal 312 is open for voting)")


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ("".join(f'Content-Type: multipart/mixed; boundary="b{n}"\n\n--b{n}\n'
                 for n in range(40)), "not read: MIME structure refused (too-deep)"),
        ('Content-Type: multipart/mixed; boundary="b"\n\n'
         + "--b\nContent-Type: text/plain\n\nx\n" * 300, "not read: MIME structure refused "
                                                         "(too-many-parts)"),
        ("Content-Type: multipart/report; boundary=" + "x" * 5000 + "\n\n",
         "not read: MIME structure refused (unreadable)"),
    ],
)
def test_hostile_structure_is_refused_before_parsing(body: str, detail: str) -> None:
    bounce = read_bounce(f"Delivered-To: {VERP}\n".encode() + body.encode(), GAME)
    assert bounce is not None
    assert (bounce.kind, bounce.detail) == ("none", detail)


def test_only_the_start_of_a_huge_bounce_is_read() -> None:
    dsn = make_dsn(ORIGINAL + b"x" * (2 * MAX_BOUNCE_BYTES), VERP, "kate@example.net")
    start = cpu_seconds()
    bounce = read_bounce(dsn + b"y" * (4 * MAX_BOUNCE_BYTES), GAME)
    assert cpu_seconds() - start < LIMIT_SECONDS
    assert bounce is not None
    assert bounce.kind == "hard"


def test_the_detail_is_one_short_printable_line() -> None:
    long = "smtp; 550 5.1.1 " + "\x07\ttoo\x1b[31m long " * 100
    dsn = make_dsn(ORIGINAL, VERP, "kate@example.net").replace(
        b"Diagnostic-Code: smtp; 550", f"Diagnostic-Code: {long}\n 550".encode())
    bounce = read_bounce(dsn, GAME)
    assert bounce is not None
    assert len(bounce.detail) == DETAIL_LENGTH
    assert bounce.detail.isprintable()
    assert bounce.detail.startswith("failed 5.1.1: smtp; 550 5.1.1 too [31m long too")


def parts_of(raw: bytes) -> list[Message]:
    return list(message_from_bytes(raw, policy=policy.compat32).walk())


@pytest.mark.parametrize("action", ["failed", "delayed", "delivered", "relayed"])
def test_make_dsn_writes_a_report_as_postfix_does(action: str) -> None:
    raw = make_dsn(ORIGINAL, VERP, "kate@example.net", action=action,
                   status="5.1.1" if action == "failed" else "4.4.1" if action == "delayed"
                   else "2.0.0", reporting_mta="mail.example.org")
    assert re.fullmatch(rb"(?:[^\r\n]*\r\n)*", raw), "CRLF line endings only"
    top, *parts = parts_of(raw)
    assert top["From"] == "MAILER-DAEMON@mail.example.org (Mail Delivery System)"
    assert (top["To"], top["Auto-Submitted"]) == (VERP, "auto-replied")
    assert (top.get_content_type(), top.get_param("report-type")) == (
        "multipart/report", "delivery-status")
    assert [p.get_content_type() for p in parts] == [
        "text/plain", "message/delivery-status", "text/plain", "text/plain",
        "text/rfc822-headers"]
    blocks = parts[1].get_payload()
    assert isinstance(blocks, list)
    per_message, per_recipient = [block for block in blocks if isinstance(block, Message)]
    assert per_message["Reporting-MTA"] == "dns; mail.example.org"
    assert per_message["X-Postfix-Sender"] == f"rfc822; {VERP}"
    assert per_recipient["Final-Recipient"] == "rfc822; kate@example.net"
    assert per_recipient["Action"] == action
    returned = parts[4].get_payload()
    assert isinstance(returned, str)
    assert "Subject: Proposal 312 is open for voting" in returned
    assert "Proposal 312 is open for voting." not in returned  # headers only


def test_make_dsn_is_deterministic_and_names_its_inputs() -> None:
    first = make_dsn(ORIGINAL, VERP, "kate@example.net")
    assert first == make_dsn(ORIGINAL, VERP, "kate@example.net")
    assert first != make_dsn(ORIGINAL, VERP, "bob@example.net")
    assert b"Subject: Undelivered Mail Returned to Sender\r\n" in first


@st.composite
def mutated_samples(draw: st.DrawFn) -> bytes:
    """A sample with bytes flipped, inserted, dropped, or MIME punctuation thrown in."""
    raw = bytearray(draw(st.sampled_from(sorted(SAMPLES.glob("*.eml")))).read_bytes())
    for _ in range(draw(st.integers(1, 8))):
        where = draw(st.integers(0, len(raw)))
        match draw(st.integers(0, 3)):
            case 0:
                raw[min(where, len(raw) - 1)] = draw(st.integers(0, 255))
            case 1:
                raw[where:where] = draw(st.binary(max_size=40))
            case 2:
                del raw[where : where + draw(st.integers(0, 200))]
            case _:
                raw[where:where] = draw(st.sampled_from(
                    [b"\n", b"\n\n", b"--", b";", b":", b"\xff", b"=?utf-8?b?", b"From:\n",
                     b"Content-Type: multipart/mixed\n", b"Content-Type: message/rfc822\n"]))
    return bytes(raw)


def check(raw: bytes) -> Bounce | None:
    start = cpu_seconds()
    bounce = read_bounce(raw, GAME)
    assert cpu_seconds() - start < LIMIT_SECONDS
    if bounce is not None:
        assert bounce.kind in {"hard", "soft", "delivered", "none"}
        assert re.fullmatch(r"[0-9a-f]{16}-[0-9a-f]{20}", bounce.token)
        assert len(bounce.detail) <= DETAIL_LENGTH
        assert bounce.detail.isprintable()
    return bounce


@SETTINGS
@given(st.binary(max_size=4000))
def test_any_bytes_are_read_without_raising(raw: bytes) -> None:
    check(raw)


HEADS = [
    f"Delivered-To: {VERP}\n\n",
    f"Delivered-To: {VERP}\n"
    "Content-Type: multipart/report; report-type=delivery-status; boundary=b\n\n",
    f"Delivered-To: {VERP}\nContent-Type: message/delivery-status\n\n",
    f"Delivered-To: {VERP}\nContent-Type: multipart/mixed; boundary=b\n\n--b\n",
]


@SETTINGS
@given(head=st.sampled_from(HEADS), body=st.binary(max_size=4000))
def test_any_body_to_a_verp_address_is_read_as_some_kind(head: str, body: bytes) -> None:
    assert check(head.encode() + body) is not None


@SETTINGS
@given(mutated_samples())
def test_mutated_samples_are_read_without_raising(raw: bytes) -> None:
    check(raw)
    assert check(f"Delivered-To: {VERP}\n".encode() + raw) is not None


@settings(SETTINGS, suppress_health_check=[*SETTINGS.suppress_health_check,
                                          HealthCheck.function_scoped_fixture])
@given(raw=mutated_samples())
def test_mutated_samples_do_not_break_the_detectors(
    raw: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.clear()
    check(f"Delivered-To: {VERP}\n".encode() + raw)
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []
