"""The SMTP edge of ``speakerbot doctor``: talk to the relay as the outbox would, send nothing.

Connect (TLS from the start with ``security = "ssl"``), read the greeting, EHLO, STARTTLS
and EHLO again with ``security = "starttls"``, log in when a username is configured, then
QUIT. Certificates are verified against the system's CAs, as the outbox verifies them.
Whatever fails is reported in an ``SmtpReport``, never raised.
"""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import replace

from speakerbot.adapters.smtp import SmtpSettings
from speakerbot.adapters.transport import is_loopback
from speakerbot.entrypoints.doctor.servers import SmtpReport

__all__ = ["TIMEOUT", "probe_relay"]

TIMEOUT = 10.0
"""How long each step may take, in seconds."""


class _Refused(Exception):
    """The relay answered a step with something other than success."""


def probe_relay(settings: SmtpSettings, timeout: float = TIMEOUT) -> SmtpReport:
    """Go through connect, EHLO, TLS and login with the relay; say how far it went."""
    said = SmtpReport(f"{settings.host}:{settings.port}", settings.security,
                      is_loopback(settings.host), settings.username)
    context = ssl.create_default_context()
    client = (smtplib.SMTP_SSL(timeout=timeout, context=context)
              if settings.security == "ssl" else smtplib.SMTP(timeout=timeout))
    step = "connect"
    try:
        code, text = client.connect(settings.host, settings.port)
        greeting = _answer(code, text)
        step = "greeting"
        if code != 220:
            raise _Refused(greeting)
        step = "ehlo"
        _expect(client.ehlo())
        if settings.security == "starttls":
            step = "starttls"
            client.starttls(context=context)
            _expect(client.ehlo())
        if settings.username:
            step = "login"
            client.login(settings.username, settings.password or "")
        tls = client.sock.version() if isinstance(client.sock, ssl.SSLSocket) else None
        return replace(said, greeting=greeting, tls=tls)
    except (OSError, smtplib.SMTPException, _Refused) as error:
        return replace(said, failed_at=step, error=_describe(error))
    finally:
        _close(client)


def _expect(reply: tuple[int, bytes]) -> None:
    """Raise _Refused unless the relay's reply is a success."""
    if not 200 <= reply[0] < 300:
        raise _Refused(_answer(*reply))


def _answer(code: int, text: bytes | str) -> str:
    """Write a reply as the relay gave it: its code, then its text on one line."""
    words = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return f"{code} {' '.join(words.split())}".strip()


def _describe(error: BaseException) -> str:
    """Say what went wrong: the relay's reply, or the error."""
    if isinstance(error, smtplib.SMTPResponseException):
        return _answer(error.smtp_code, error.smtp_error)
    if isinstance(error, smtplib.SMTPNotSupportedError):
        return "the relay offers no login (AUTH) here"
    return str(error) or type(error).__name__


def _close(client: smtplib.SMTP) -> None:
    """Say goodbye if the relay is still there; trouble here changes nothing found."""
    try:
        if client.sock is not None:
            client.quit()
    except (OSError, smtplib.SMTPException):
        client.close()
