"""What the SMTP relay and the IMAP mailbox answered, judged.

Pure: ``relay`` and ``mailbox`` talk to the servers and fill in a ``SmtpReport`` or an
``ImapReport``: how far the conversation went, what the server said, whether it was
encrypted. Here a report becomes findings, each naming the server and what to change.
"""

from __future__ import annotations

from dataclasses import dataclass

from speakerbot.entrypoints.doctor.findings import Finding, fault, ok, warning

__all__ = ["ImapReport", "SmtpReport", "imap_findings", "smtp_findings"]


@dataclass(frozen=True)
class SmtpReport:
    """How far a conversation with the relay went: connect, EHLO, TLS, login; never MAIL.

    ``failed_at`` is the step that failed (``"connect"``, ``"greeting"``, ``"ehlo"``,
    ``"starttls"``, ``"login"``), with the relay's answer or the error in ``error``; None
    when every step went through. ``tls`` is the TLS version spoken (None: in clear).
    """

    where: str
    security: str
    loopback: bool
    username: str = ""
    failed_at: str | None = None
    error: str = ""
    greeting: str = ""
    tls: str | None = None


_SMTP_FIXES = {
    "connect": "check [smtp] host and port (the port follows security: 465 for ssl, 587 "
               "for starttls, 25 for none), that the relay runs, and that it lets this "
               "machine connect",
    "greeting": "check [smtp] port and security: this port may speak another protocol, or "
                "TLS from the start (security = \"ssl\")",
    "ehlo": "check that [smtp] host and port name an SMTP relay",
    "starttls": "use the relay's STARTTLS port (587), or security = \"ssl\" on its TLS port "
                "(465); a certificate that cannot be verified must be replaced on the relay",
    "login": "check [smtp] username and the password (password, password_file or "
             "SPEAKERBOT_SMTP_PASSWORD); leave both out for a relay that takes mail "
             "without a login",
}


def smtp_findings(report: SmtpReport) -> list[Finding]:
    """Judge the conversation with the relay: one finding, and a warning for mail in clear."""
    check = "smtp"
    if report.failed_at is not None:
        step = {"connect": "cannot be reached", "greeting": "did not greet as SMTP",
                "ehlo": "refused EHLO", "starttls": "could not be secured with STARTTLS",
                "login": f"refused the login as {report.username}"}.get(
                    report.failed_at, f"failed at {report.failed_at}")
        return [fault(check, f"the SMTP relay {report.where} {step}: {report.error}",
                      _SMTP_FIXES.get(report.failed_at, _SMTP_FIXES["connect"]))]
    login = f"logged in as {report.username}" if report.username else "no login configured"
    said = (f"the SMTP relay {report.where} answered \"{report.greeting}\" and EHLO; "
            f"{_protection(report.tls, report.security, report.loopback)}; {login}; nothing "
            "was sent")
    found = [ok(check, said)]
    if report.tls is None and not report.loopback:
        found.append(warning(check, f"mail to the relay {report.where} crosses the network "
                             "in clear", "use security = \"starttls\" or \"ssl\" in [smtp]"))
    return found


def _protection(tls: str | None, security: str, loopback: bool) -> str:
    """Say how the connection was protected."""
    if tls is not None:
        how = "from the start" if security == "ssl" else "after STARTTLS"
        return f"encrypted ({tls}, {how}), the certificate verified"
    where = "on this machine" if loopback else "to another machine"
    return f"not encrypted (security = \"none\", {where})"


@dataclass(frozen=True)
class ImapReport:
    """How far a session with the mailbox went: connect, TLS, login, the folder (read-only).

    ``failed_at`` is the step that failed (``"connect"``, ``"starttls"``, ``"login"``,
    ``"folder"``, ``"fetch"``), with the error; None when each went through. ``messages``
    is how many the watched folder holds; ``capabilities`` what the server offers after
    login.
    """

    where: str
    security: str
    loopback: bool
    folder: str
    idle: bool = True
    failed_at: str | None = None
    error: str = ""
    tls: str | None = None
    capabilities: tuple[str, ...] = ()
    messages: int = 0


_IMAP_FIXES = {
    "connect": "check [imap] host and port (993 for ssl, 143 for starttls or none), and "
               "security: a server that speaks TLS from the start needs security = \"ssl\"",
    "starttls": "use security = \"ssl\" on the server's TLS port (993); a certificate "
                "that cannot be verified must be replaced on the server",
    "login": "check [imap] username (it defaults to [game] address) and the password "
             "(password, password_file or SPEAKERBOT_IMAP_PASSWORD)",
    "folder": "check [imap] folder: it must name a folder of this mailbox",
    "fetch": "check that the server is well and the account may read the folder",
}


def imap_findings(report: ImapReport) -> list[Finding]:
    """Judge the session with the mailbox: one finding, and a warning when IDLE is missing."""
    check = "imap"
    if report.failed_at is not None:
        step = {"connect": "cannot be reached", "starttls": "could not be secured with "
                "STARTTLS", "login": "refused the login", "folder": f"has no folder "
                f"{report.folder!r} to read", "fetch": "would not give its newest mail"}.get(
                    report.failed_at, f"failed at {report.failed_at}")
        return [fault(check, f"the IMAP mailbox {report.where} {step}: {report.error}",
                      _IMAP_FIXES.get(report.failed_at, _IMAP_FIXES["connect"]))]
    offered = [name for name in ("IDLE", "MOVE", "UIDPLUS") if name in report.capabilities]
    said = (f"the IMAP mailbox {report.where}: logged in, "
            f"{_protection(report.tls, report.security, report.loopback)}; the folder "
            f"{report.folder!r} holds {report.messages} message"
            f"{'' if report.messages == 1 else 's'}, read without changing it; the server "
            f"offers {', '.join(offered) or 'none of IDLE, MOVE, UIDPLUS'}")
    found = [ok(check, said)]
    if report.idle and "IDLE" not in report.capabilities:
        found.append(warning(check, f"the IMAP server {report.where} does not offer IDLE: "
                             "new mail is seen only every [imap] poll_interval",
                             "set idle = false in [imap] to say so, and a short "
                             "poll_interval, such as \"30s\""))
    if report.tls is None and not report.loopback:
        found.append(warning(check, f"the password for {report.where} crosses the network "
                             "in clear", "use security = \"ssl\" or \"starttls\" in [imap]"))
    return found
