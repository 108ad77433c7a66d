"""Mail into the chain, as players, forgers and a mailing list send it.

A player's mail goes through the sending Postfix, which signs it (``X-Chain-Signer`` picks
the key); a forger's goes straight to the receiving server, as a forger's own server
would. A mailing list is played by the test: the sending Postfix delivers mail for
``list.test`` to the SMTP sink, where the test takes it, alters it as a list does, and
sends it on.
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, make_msgid

from tests.chain.game import GAME, ChainGame
from tests.chain.parts import SIGNER_HEADER, Chain
from tests.support.patience import patience
from tests.support.ports import LOOPBACK
from tests.support.smtp_sink import CapturedMessage, SmtpSink

LIST = "players@list.test"


def compose(sender: str, body: str, *, subject: str = "chain",
            headers: Iterable[tuple[str, str]] = ()) -> EmailMessage:
    """A plain message from ``sender`` to the game, dated now; ``headers`` go on top."""
    message = EmailMessage()
    for name, value in headers:
        message[name] = value
    message["From"] = sender
    message["To"] = GAME
    message["Subject"] = subject
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2])
    message.set_content(body)
    return message


def authentication_results(raw: bytes) -> list[str]:
    """The Authentication-Results headers of a delivered message, topmost first, unfolded."""
    parsed = BytesParser(policy=policy.compat32).parsebytes(raw, headersonly=True)
    return [" ".join(str(value).split()) for value in parsed.get_all("Authentication-Results")
            or []]


@dataclass
class MailChain:
    """The running chain, the game behind it, and the sink its replies go to."""

    chain: Chain
    game: ChainGame
    sink: SmtpSink
    proposal: int = 0

    def send_signed(self, message: EmailMessage | bytes, signer: str,
                    recipient: str = GAME, sender: str | None = None) -> str:
        """Send through the players' provider, signed with ``signer``'s key.

        ``signer`` names a key of ``tests.chain.zones`` (a domain, or ``WRONG_KEY``).
        Returns the Message-ID.
        """
        raw = message.as_bytes(policy=policy.SMTP) if isinstance(message, EmailMessage) \
            else message
        # Bytes, not a parsed message: what is not ours to change stays byte for byte.
        raw = re.sub(rb"(?im)^" + SIGNER_HEADER.encode() + rb":.*\r?\n", b"", raw)
        raw = f"{SIGNER_HEADER}: key@{signer}\r\n".encode() + raw
        self._send(self.chain.sending.port, raw, recipient, sender)
        return str(_parse(raw)["Message-ID"])

    def send_direct(self, message: EmailMessage | bytes, sender: str) -> str:
        """Send straight to the game's receiving server, as a forger's own server does."""
        self._send(self.chain.receiving.port, message, GAME, sender)
        parsed = message if isinstance(message, EmailMessage) else _parse(message)
        return str(parsed["Message-ID"])

    def through_list(self, message: EmailMessage, signer: str) -> bytes:
        """Send a signed message to the list; return it as the list received it."""
        message_id = self.send_signed(message, signer, recipient=LIST)
        captured = self.sink.wait_for(lambda m: _message_id(m) == message_id, patience(20))
        return captured.data

    def _send(self, port: int, message: EmailMessage | bytes, recipient: str,
              sender: str | None = None) -> None:
        raw = message.as_bytes(policy=policy.SMTP) if isinstance(message, EmailMessage) \
            else message
        envelope = sender or str(_parse(raw)["From"])
        with smtplib.SMTP(LOOPBACK, port, timeout=patience(20)) as client:
            refused = client.sendmail(envelope, [recipient], raw)
        assert not refused, refused

    def failure(self, message_id: str) -> str:
        """What to read when a test fails: the delivered headers, the logs."""
        row = self.game.inbound(message_id)
        headers = "" if row is None else row.raw.split(b"\r\n\r\n")[0].decode(errors="replace")
        return (f"--- {message_id} as delivered ---\n{headers}\n--- daemon ---\n"
                f"{self.game.log_text()[-2000:]}\n{self.chain.logs()}")


def _parse(raw: bytes) -> EmailMessage:
    parsed = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _message_id(captured: CapturedMessage) -> str:
    return str(_parse(captured.data)["Message-ID"])
