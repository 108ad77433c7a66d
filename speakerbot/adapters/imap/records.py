"""The IMAP adapter's records: its settings, a fetched message, its errors and limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from speakerbot.adapters.transport import SECURITY_MODES, Security

__all__ = [
    "FETCH_BATCH",
    "IDLE_RENEW_LIMIT",
    "MOVE_BATCH",
    "FetchedMessage",
    "ImapConnectionLost",
    "ImapError",
    "ImapLoginFailed",
    "ImapSettings",
]

# Messages fetched per FETCH command: bounds the size of one response.
FETCH_BATCH = 25
# UIDs per MOVE/COPY command: bounds the length of one command line.
MOVE_BATCH = 500
# RFC 2177: clients should re-issue IDLE at least every 29 minutes; many servers
# and NAT boxes drop silent connections much sooner, hence the 5-minute bound.
IDLE_RENEW_LIMIT = 300.0


class ImapError(Exception):
    """An IMAP operation failed (base class of this module's errors)."""


class ImapConnectionLost(ImapError):
    """The connection failed or was dropped (BYE, socket error, timeout); reconnecting may help."""


class ImapLoginFailed(ImapError):
    """The server refused the username or password."""


@dataclass(frozen=True)
class ImapSettings:
    """Where the mailbox is and how to talk to it: the [imap] section, checked. Times in seconds.

    The configuration fills the fields the file has keys for; ``max_size`` comes from
    [limits] and is set by the daemon; ``timeout``, ``idle_renew`` and
    ``rejected_folder`` keep their defaults outside tests.
    """

    host: str
    port: int
    security: Security
    username: str
    password: str = field(repr=False)
    folder: str = "INBOX"
    processed_folder: str = "speakerbot/processed"
    idle: bool = True
    poll_interval: float = 60.0
    timeout: float = 30.0
    idle_renew: float = 290.0
    # Larger messages (RFC822.SIZE, bytes) are fetched headers only; None: no limit.
    max_size: int | None = None
    rejected_folder: str = "speakerbot/rejected"
    # Allow security = "none" to a host that is not loopback.
    allow_plaintext: bool = False

    def __post_init__(self) -> None:
        if self.security not in SECURITY_MODES:
            raise ValueError(
                f"IMAP security must be one of {', '.join(SECURITY_MODES)}, not {self.security!r}"
            )
        if not 0 < self.port < 65536:
            raise ValueError(f"IMAP port {self.port} is out of range")
        for name in ("poll_interval", "timeout", "idle_renew"):
            if not getattr(self, name) > 0:
                raise ValueError(f"IMAP {name} must be positive")
        if self.idle_renew >= IDLE_RENEW_LIMIT:
            raise ValueError(f"IMAP idle_renew must be under {IDLE_RENEW_LIMIT:g} seconds")
        if self.max_size is not None and not self.max_size > 0:
            raise ValueError("IMAP max_size must be positive (or None for no limit)")
        if self.folder == self.processed_folder:
            raise ValueError("the IMAP folder and processed_folder must differ")
        if self.folder == self.rejected_folder:
            raise ValueError("the IMAP folder and rejected_folder must differ")

    @property
    def where(self) -> str:
        """``user@host:port``, for messages and logs (never the password)."""
        return f"{self.username}@{self.host}:{self.port}"


@dataclass(frozen=True)
class FetchedMessage:
    """One message as it is in the folder: its UID, the server's INTERNALDATE (UTC) and bytes.

    ``oversized`` is None for a message fetched whole. For a message larger than
    the settings' ``max_size`` it is the message's size (RFC822.SIZE), and
    ``raw`` holds only its header block (at most ``max_size`` bytes of it).
    """

    uidvalidity: int
    uid: int
    internaldate: datetime
    raw: bytes = field(repr=False)
    oversized: int | None = None

    @property
    def size(self) -> int:
        """The size of the whole message in bytes (of ``raw`` unless it is oversized)."""
        return len(self.raw) if self.oversized is None else self.oversized

