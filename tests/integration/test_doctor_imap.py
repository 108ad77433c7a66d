"""``speakerbot doctor`` against a real Dovecot: it logs in, reads the newest mail, changes nothing.

The game's mail is in its IMAP mailbox; doctor must read the newest few with EXAMINE and
``BODY.PEEK``, so that every message is still there, still unseen, and no folder is made.
DNS is a stub on loopback that knows no name: the tests here look at the mailbox.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

import pytest

from tests.support.commands import speakerbot
from tests.support.dns_stub import NoSuchDomain
from tests.support.dovecot import DovecotServer
from tests.support.ports import LOOPBACK
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

GAME = "game@doctor.example"
AUTHSERV = "mx.doctor.example"
PASSWORD = "doctor-Pa55"


@pytest.fixture
def nameserver() -> Iterator[str]:
    with NoSuchDomain() as server:
        yield server.address


def _message(number: int, sent: datetime) -> bytes:
    message = EmailMessage()
    message["Authentication-Results"] = (f"{AUTHSERV}; dkim=pass header.d=players.example; "
                                         "dmarc=pass header.from=players.example")
    message["From"] = "alice@players.example"
    message["To"] = GAME
    message["Subject"] = f"Message {number}"
    message["Date"] = format_datetime(sent)
    message["Message-ID"] = f"<doctor-{number}@players.example>"
    message.set_content(f"VOTE 30{number} FOR\n")
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))


def _config(folder: Path, dovecot: DovecotServer, user: str, sink: SmtpSink,
            password: str = PASSWORD) -> Path:
    config = folder / "speakerbot.toml"
    config.write_text(f"""
[game]
name = "Doctor Nomic"
ruleset = "nomicam"
address = "{GAME}"
speaker = "host@doctor.example"
speaker_name = "Hostess"

[auth]
authserv_id = ["{AUTHSERV}"]

[database]
url = "sqlite:///{folder / 'game.db'}"

[imap]
host = "{dovecot.host}"
port = {dovecot.port}
security = "none"
username = "{user}"
password = "{password}"

[smtp]
host = "{LOOPBACK}"
port = {sink.port}
security = "none"
""")
    return config


def _state(dovecot: DovecotServer, user: str) -> tuple[list[str], dict[int, tuple[bytes, ...]]]:
    """The user's folders, and each INBOX message's flags by UID."""
    with dovecot.connect(user) as client:
        folders = sorted(str(name) for _, _, name in client.list_folders())
        client.select_folder("INBOX", readonly=True)
        flags = client.get_flags(client.search("ALL"))
    return folders, {int(uid): tuple(sorted(found)) for uid, found in flags.items()}


def _doctor(config: Path, nameserver: str) -> tuple[int, list[dict[str, object]]]:
    done = speakerbot(["doctor", "--json", "-c", str(config), "--nameserver", nameserver],
                      env={"PATH": "/usr/bin:/bin"}, cwd=config.parent)
    assert done.stderr == "", done.stderr
    return done.returncode, json.loads(done.stdout)


def test_doctor_reads_the_newest_mail_and_leaves_it_as_it_was(
        dovecot: DovecotServer, smtp_sink: SmtpSink, nameserver: str, tmp_path: Path) -> None:
    user = f"doctor-{uuid.uuid4().hex[:10]}"
    dovecot.add_user(user, PASSWORD)
    start = datetime.now(UTC) - timedelta(minutes=10)
    for number in range(7):
        sent = start + timedelta(minutes=number)
        dovecot.append(user, "INBOX", _message(number, sent), internaldate=sent)
    before = _state(dovecot, user)
    config = _config(tmp_path, dovecot, user, smtp_sink)

    status, found = _doctor(config, nameserver)

    [imap] = [finding for finding in found if finding["check"] == "imap"]
    assert imap["level"] == "ok", imap
    assert "logged in" in str(imap["message"]) and "holds 7 messages" in str(imap["message"])
    messages = [str(finding["message"]) for finding in found if finding["check"] == "message"]
    # The five newest, newest first, each believed on the configured server's word.
    assert [m.split("(<doctor-")[1][0] for m in messages] == ["6", "5", "4", "3", "2"]
    assert all("INBOX UID" in m and "authenticated by dmarc" in m for m in messages), messages
    assert [f["level"] for f in found if f["check"] in ("authserv", "messages")] == ["ok", "ok"]
    # The stub knows no name: the game's domain does not exist, which is a fault.
    [mx] = [finding for finding in found if finding["check"] == "dns.mx"]
    assert mx["level"] == "fault" and "doctor.example does not exist" in str(mx["message"])
    assert status == 2
    # Nothing moved, nothing flagged \Seen, no folder made, no database made.
    assert _state(dovecot, user) == before
    assert len(before[1]) == 7
    assert not [uid for uid, flags in before[1].items() if b"\\Seen" in flags]
    assert not (tmp_path / "game.db").exists()


def test_a_refused_imap_login_is_a_fault(dovecot: DovecotServer, smtp_sink: SmtpSink,
                                          nameserver: str, tmp_path: Path) -> None:
    user = f"doctor-{uuid.uuid4().hex[:10]}"
    dovecot.add_user(user, PASSWORD)
    config = _config(tmp_path, dovecot, user, smtp_sink, password="not-the-password")

    status, found = _doctor(config, nameserver)

    [imap] = [finding for finding in found if finding["check"] == "imap"]
    assert imap["level"] == "fault"
    assert f"the IMAP mailbox {user}@{dovecot.host}:{dovecot.port} refused the login" in str(
        imap["message"])
    assert "not-the-password" not in json.dumps(found)
    assert "[imap] username" in str(imap["fix"])
    assert not [finding for finding in found if finding["check"] == "message"]
    assert status == 2
