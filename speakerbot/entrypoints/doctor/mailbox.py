r"""The IMAP edge of ``speakerbot doctor``: log in, look at the folders, read without touching.

Connect as the daemon does (TLS from the start, or STARTTLS, the certificate verified), log
in, and open the watched folder and the processed folder with EXAMINE (read-only), so that
nothing in them can change: no flag is set (headers are fetched with ``BODY.PEEK``, which
never sets ``\Seen``), nothing is moved, no folder is made. The newest messages of the two
folders, by arrival, are handed back with their headers. Whatever fails is reported in an
``ImapReport``, never raised.
"""

from __future__ import annotations

import contextlib
import imaplib
import ssl
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from imapclient import IMAPClient  # type: ignore[import-untyped,unused-ignore]

from speakerbot.adapters.imap.records import ImapSettings
from speakerbot.adapters.imap.responses import hierarchy_delimiter
from speakerbot.adapters.transport import is_loopback
from speakerbot.entrypoints.doctor.messages import Mailbag, Received
from speakerbot.entrypoints.doctor.servers import ImapReport

__all__ = ["TIMEOUT", "probe_mailbox"]

TIMEOUT = 10.0
"""How long each network operation may take, in seconds."""

_HEADER = b"BODY[HEADER]"


def probe_mailbox(settings: ImapSettings, newest: int,
                  timeout: float = TIMEOUT) -> tuple[ImapReport, Mailbag]:
    """Log in and read the ``newest`` messages, changing nothing; say how far it went."""
    report = ImapReport(settings.where, settings.security, is_loopback(settings.host),
                        settings.folder, idle=settings.idle)
    folders = list(dict.fromkeys((settings.folder, settings.processed_folder)))
    bag = Mailbag(f"the IMAP folders {' and '.join(repr(f) for f in folders)}", ())
    client: Any = None
    step = "connect"
    try:
        client = IMAPClient(settings.host, settings.port, ssl=settings.security == "ssl",
                            timeout=timeout)
        if settings.security == "starttls":
            step = "starttls"
            client.starttls()
        step = "login"
        client.login(settings.username, settings.password)
        # Timezone-aware INTERNALDATEs, as the daemon reads them.
        client.normalise_times = False
        offered = tuple(str(name, "ascii", "replace") for name in client.capabilities())
        step = "folder"
        delimiter = hierarchy_delimiter(client.list_folders("", ""))
        selected = client.select_folder(settings.folder.replace("/", delimiter), readonly=True)
        step = "fetch"
        found = _newest(client, folders, delimiter, newest)
        report = replace(report, tls=_tls(client), capabilities=offered,
                         messages=int(selected.get(b"EXISTS", 0)))
        return report, replace(bag, messages=found)
    except (OSError, imaplib.IMAP4.error) as error:
        # OSError covers refused connections, timeouts and TLS failures; imapclient's own
        # errors (a refused login, no STARTTLS) are imaplib's.
        detail = str(error) or type(error).__name__
        if settings.password:
            detail = detail.replace(settings.password, "***")
        return replace(report, failed_at=step, error=detail), bag
    finally:
        if client is not None:
            _leave(client)


def _newest(client: Any, folders: list[str], delimiter: str, newest: int,
            ) -> tuple[Received, ...]:
    """Return the ``newest`` messages of ``folders`` (those that exist), newest first."""
    found: list[Received] = []
    for folder in folders:
        name = folder.replace("/", delimiter)
        if not client.folder_exists(name):
            continue  # the processed folder, before the daemon first made it
        client.select_folder(name, readonly=True)
        uids = sorted(client.search("ALL"))[-newest:]
        fetched = client.fetch(uids, ["BODY.PEEK[HEADER]", "INTERNALDATE"]) if uids else {}
        for uid in uids:
            data = fetched.get(uid, {})
            if _HEADER in data:
                found.append(Received(f"{folder} UID {uid}", _aware(data.get(b"INTERNALDATE")),
                                      bytes(data[_HEADER])))
    found.sort(key=lambda message: message.arrived, reverse=True)
    return tuple(found[:newest])


def _aware(moment: object) -> datetime:
    """Return the server's INTERNALDATE in UTC (now, when it gave none)."""
    if not isinstance(moment, datetime):
        return datetime.now(UTC)
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _tls(client: Any) -> str | None:
    """Return the TLS version the session speaks, or None in clear."""
    sock = client.socket()
    return sock.version() if isinstance(sock, ssl.SSLSocket) else None


def _leave(client: Any) -> None:
    """Log out (closing the read-only folder changes nothing); never raises."""
    try:
        client.logout()
    except Exception:  # a session that already broke: drop the socket
        with contextlib.suppress(Exception):
            client.shutdown()
