"""``speakerbot doctor``'s verdicts on what the SMTP relay and the IMAP mailbox answered."""

from __future__ import annotations

import pytest

from speakerbot.entrypoints.doctor.servers import (
    ImapReport,
    SmtpReport,
    imap_findings,
    smtp_findings,
)

RELAY = "smtp.example.org:587"


@pytest.mark.parametrize(("failed_at", "error", "said", "fix"), [
    ("connect", "[Errno 111] Connection refused",
     f"the SMTP relay {RELAY} cannot be reached: [Errno 111] Connection refused",
     "check [smtp] host and port"),
    ("greeting", "554 go away", f"the SMTP relay {RELAY} did not greet as SMTP: 554 go away",
     "TLS from the start"),
    ("ehlo", "502 no", "refused EHLO: 502 no", "name an SMTP relay"),
    ("starttls", "STARTTLS extension not supported by server.",
     "could not be secured with STARTTLS", "security = \"ssl\""),
    ("login", "535 5.7.8 authentication failed",
     "refused the login as bot@example.org: 535 5.7.8 authentication failed",
     "check [smtp] username and the password"),
])
def test_a_relay_that_fails_a_step_is_a_fault_naming_it(failed_at: str, error: str, said: str,
                                                         fix: str) -> None:
    report = SmtpReport(RELAY, "starttls", False, "bot@example.org", failed_at, error)
    [finding] = smtp_findings(report)
    assert (finding.check, finding.level) == ("smtp", "fault")
    assert said in finding.message
    assert finding.fix is not None and fix in finding.fix


@pytest.mark.parametrize(("report", "levels", "said"), [
    (SmtpReport(RELAY, "starttls", False, "bot@example.org", greeting="220 ready",
                tls="TLSv1.3"),
     ["ok"], "answered \"220 ready\" and EHLO; encrypted (TLSv1.3, after STARTTLS), the "
             "certificate verified; logged in as bot@example.org; nothing was sent"),
    (SmtpReport(RELAY, "ssl", False, greeting="220 ready", tls="TLSv1.2"),
     ["ok"], "(TLSv1.2, from the start)"),
    (SmtpReport("127.0.0.1:25", "none", True, greeting="220 ready"),
     ["ok"], "not encrypted (security = \"none\", on this machine); no login configured"),
    (SmtpReport("relay.example.org:25", "none", False, greeting="220 ready"),
     ["ok", "warning"], "to another machine"),
])
def test_a_relay_that_answers_is_ok(report: SmtpReport, levels: list[str], said: str) -> None:
    found = smtp_findings(report)
    assert [finding.level for finding in found] == levels
    assert said in found[0].message
    if len(found) > 1:
        assert "crosses the network in clear" in found[1].message


MAILBOX = "game@imap.example.org:993"


@pytest.mark.parametrize(("failed_at", "said", "fix"), [
    ("connect", "cannot be reached", "check [imap] host and port"),
    ("starttls", "could not be secured with STARTTLS", "security = \"ssl\""),
    ("login", "refused the login", "check [imap] username"),
    ("folder", "has no folder 'Nomic' to read", "check [imap] folder"),
    ("fetch", "would not give its newest mail", "may read the folder"),
])
def test_a_mailbox_that_fails_a_step_is_a_fault_naming_it(failed_at: str, said: str,
                                                          fix: str) -> None:
    report = ImapReport(MAILBOX, "ssl", False, "Nomic", failed_at=failed_at, error="why")
    [finding] = imap_findings(report)
    assert (finding.check, finding.level) == ("imap", "fault")
    assert finding.message == f"the IMAP mailbox {MAILBOX} {said}: why"
    assert finding.fix is not None and fix in finding.fix


def test_a_mailbox_that_answers_is_ok_and_says_what_it_offers() -> None:
    report = ImapReport(MAILBOX, "ssl", False, "INBOX", tls="TLSv1.3",
                        capabilities=("IMAP4REV1", "IDLE", "MOVE"), messages=1)
    [finding] = imap_findings(report)
    assert finding.level == "ok"
    assert finding.message == (
        f"the IMAP mailbox {MAILBOX}: logged in, encrypted (TLSv1.3, from the start), the "
        "certificate verified; the folder 'INBOX' holds 1 message, read without changing it; "
        "the server offers IDLE, MOVE")


def test_a_mailbox_without_idle_warns_when_idle_is_wanted() -> None:
    report = ImapReport(MAILBOX, "ssl", False, "INBOX", tls="TLSv1.3", capabilities=("MOVE",))
    assert [f.level for f in imap_findings(report)] == ["ok", "warning"]
    assert "does not offer IDLE" in imap_findings(report)[1].message
    quiet = ImapReport(MAILBOX, "ssl", False, "INBOX", idle=False, tls="TLSv1.3")
    assert [f.level for f in imap_findings(quiet)] == ["ok"]


def test_a_mailbox_in_clear_elsewhere_warns() -> None:
    report = ImapReport("game@imap.example.org:143", "none", False, "INBOX",
                        capabilities=("IDLE",))
    found = imap_findings(report)
    assert [f.level for f in found] == ["ok", "warning"]
    assert "crosses the network in clear" in found[1].message
    here = ImapReport("game@127.0.0.1:143", "none", True, "INBOX", capabilities=("IDLE",))
    assert [f.level for f in imap_findings(here)] == ["ok"]
