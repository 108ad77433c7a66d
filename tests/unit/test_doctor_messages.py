"""``speakerbot doctor``'s verdicts on the newest mail: whose header it carries, and what counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from speakerbot.entrypoints.doctor.findings import Finding
from speakerbot.entrypoints.doctor.messages import Mailbag, Received, mail_findings
from speakerbot.mail.inbound.authentication import AuthPolicy

GAME = "game@nomic.test"
SERVER = "mx.nomic.test"
ARRIVED = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
TRUSTING = AuthPolicy("dmarc", (SERVER,))
PASS = f"{SERVER}; dkim=pass header.d=players.test; dmarc=pass header.from=players.test"


def raw(*results: str, to: str = GAME, sent: datetime = ARRIVED,
        sender: str = "alice@players.test") -> bytes:
    lines = [f"Authentication-Results: {value}" for value in results]
    lines += [f"From: {sender}", f"To: {to}", "Subject: VOTE",
              f"Date: {format_datetime(sent)}", "Message-ID: <m1@players.test>"]
    return ("\r\n".join(lines) + "\r\n\r\nVOTE 301 FOR\r\n").encode()


def judged(*raws: bytes, policy: AuthPolicy = TRUSTING) -> dict[str, list[Finding]]:
    bag = Mailbag("the test's folder",
                  tuple(Received(f"INBOX UID {n}", ARRIVED, data) for n, data in
                        enumerate(raws, 1)))
    found: dict[str, list[Finding]] = {}
    for finding in mail_findings(bag, policy, [GAME]):
        found.setdefault(finding.check, []).append(finding)
    return found


def only(found: dict[str, list[Finding]], check: str) -> Finding:
    [finding] = found[check]
    return finding


@pytest.mark.parametrize(("results", "level", "said"), [
    ((PASS,), "ok", "says dkim=pass, dmarc=pass; authenticated by dmarc (dmarc=pass for "
                    "players.test)"),
    ((f"{SERVER}; dkim=pass header.d=players.test; dmarc=none header.from=players.test",),
     "ok", "authenticated by dkim"),
    ((f"{SERVER}; dkim=fail header.d=players.test; dmarc=fail header.from=players.test",),
     "ok", "not authenticated: no dmarc=pass or aligned dkim=pass for players.test "
           "(dkim=fail, dmarc=fail)"),
    ((f"{SERVER}; dkim=temperror header.d=players.test",), "warning",
     "could not check it (dkim=temperror)"),
    ((f"{SERVER.upper()} (a comment) 1; dmarc=pass header.from=players.test",), "ok",
     "authenticated by dmarc"),
    # Below another server's header, the trusted one is still found and read.
    (("other.test; dmarc=fail header.from=players.test", PASS), "ok",
     "authenticated by dmarc"),
    # Only the topmost trusted header is read, never the one below.
    ((f"{SERVER}; dkim=none", PASS), "ok", "not authenticated"),
    ((f"{SERVER}.; dmarc=pass header.from=players.test",), "warning",
     f"no Authentication-Results header by {SERVER} (it carries some by {SERVER}.)"),
    (("mx.elsewhere.test; dmarc=pass header.from=players.test", "mx.elsewhere.test; none"),
     "warning", "(it carries some by mx.elsewhere.test); not authenticated"),
    ((), "warning", "(it carries none)"),
])
def test_each_message_says_whose_header_it_carries_and_what_counts(
        results: tuple[str, ...], level: str, said: str) -> None:
    message = only(judged(raw(*results)), "message")
    assert message.level == level
    assert said in message.message
    assert "INBOX UID 1 (<m1@players.test>), from alice@players.test, arrived 2026-05-04 " \
           "12:00 UTC" in message.message


@pytest.mark.parametrize(("data", "said"), [
    (raw(PASS, to="someone@else.test"), "not addressed to the game"),
    (raw(PASS, sent=ARRIVED - timedelta(days=3)), "not dated within a day"),
])
def test_a_vouched_message_the_game_would_not_believe_is_a_warning(data: bytes,
                                                                  said: str) -> None:
    message = only(judged(data), "message")
    assert message.level == "warning"
    assert "says dkim=pass, dmarc=pass, yet it is not believed" in message.message
    assert said in message.message


def test_mail_carrying_the_configured_servers_header_is_ok() -> None:
    found = judged(raw(PASS), raw(PASS))
    assert only(found, "authserv").level == "ok"
    assert only(found, "authserv").message == (
        f"the newest 2 messages: each carries an Authentication-Results header by {SERVER}, "
        "the [auth] authserv_id")
    assert only(found, "messages").message == "the newest 2 messages in the test's folder: " \
                                              "2 authenticated"
    assert [finding.check for finding in mail_findings(
        Mailbag("x", (Received("a", ARRIVED, raw(PASS)),)), TRUSTING, [GAME])] == [
        "messages", "authserv", "message"]


def test_a_wrong_authserv_id_is_a_fault_naming_the_id_on_the_mail() -> None:
    wrong = AuthPolicy("dmarc", ("mx.wrong.test",))
    found = judged(raw(PASS), raw("relay.test; none", PASS), policy=wrong)
    authserv = only(found, "authserv")
    assert authserv.level == "fault"
    assert authserv.message == (
        "the newest 2 messages carry no Authentication-Results header by mx.wrong.test (the "
        f"[auth] authserv_id); their topmost headers are by {SERVER}, relay.test, so no one "
        "is authenticated")
    assert authserv.fix is not None and f'set [auth] authserv_id = ["{SERVER}"]' in authserv.fix
    assert only(found, "messages").level == "warning"
    assert only(found, "messages").message.endswith(": none authenticated")


def test_mail_without_any_header_is_a_fault() -> None:
    authserv = only(judged(raw()), "authserv")
    assert authserv.level == "fault"
    assert "the newest message carries no Authentication-Results header at all" \
        in authserv.message


def test_mail_that_went_round_the_server_is_a_warning() -> None:
    authserv = only(judged(raw(PASS), raw("elsewhere.test; none")), "authserv")
    assert authserv.level == "warning"
    assert authserv.message.startswith("1 of the newest 2 messages carry no "
                                       f"Authentication-Results header by {SERVER}: INBOX UID 2")


def test_no_authserv_id_names_the_one_on_the_mail() -> None:
    authserv = only(judged(raw(PASS), policy=AuthPolicy("dmarc", ())), "authserv")
    assert authserv.level == "warning"
    assert f"the messages carry headers by {SERVER}" in authserv.message
    assert authserv.fix is not None and f'authserv_id = ["{SERVER}"]' in authserv.fix


def test_require_none_believes_the_from_header_and_reads_no_header() -> None:
    found = judged(raw(), policy=AuthPolicy("none", ()))
    assert "authserv" not in found
    assert only(found, "message").level == "ok"
    assert "believed on its From header" in only(found, "message").message
    assert only(found, "messages").level == "ok"


def test_no_mail_yet_is_a_warning_saying_what_to_send() -> None:
    found = mail_findings(Mailbag("the game's database", ()), TRUSTING, [GAME])
    assert [(f.check, f.level) for f in found] == [("messages", "warning")]
    assert found[0].fix is not None and "send the game a message" in found[0].fix


def test_a_message_with_no_single_sender_is_judged_too() -> None:
    message = only(judged(raw(PASS, sender="a@players.test, b@players.test")), "message")
    assert "from no single From address" in message.message
    assert "not authenticated" in message.message
