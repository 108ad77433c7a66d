r"""IMAP inbound: fetch raw messages from a mailbox and move them away once they are taken in.

This adapter knows nothing of Nomic. :class:`ImapMailbox` (``mailbox``) is one
connection: it fetches the messages still in the watched folder in batches of at
most ``FETCH_BATCH`` (``BODY.PEEK[]``, so ``\Seen`` is never set and never relied
on) and moves the ones it is told to into a "processed" or a "rejected" folder.
A message larger than ``max_size`` is never fetched whole: only its header block
is, and it is marked ``oversized``. :class:`ImapWatcher` (``watcher``) runs the
inbound loop on its own thread: for each batch, hand it to a ``deliver`` callback;
move what ``deliver`` says is safely committed, a round's batches together; then
wait for new mail (IDLE, or polling when IDLE is disabled or unsupported), and
start again; after any failure it reconnects with exponential backoff and
searches the whole folder again. ``records`` holds the settings, the message and
the errors; ``responses`` the pure helpers that read the server's answers.

A message stays in the folder until ``deliver`` has returned its UID, so a crash
at any point loses nothing: the message is offered again after the restart, and
``deliver`` is expected to recognise a duplicate.

Plain-text IMAP (``security = "none"``) is refused to any host but loopback
unless ``allow_plaintext`` is set: the password would cross the network in clear.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from speakerbot.adapters.imap.records import (
    FETCH_BATCH,
    FetchedMessage,
    ImapConnectionLost,
    ImapError,
    ImapLoginFailed,
    ImapSettings,
)

if TYPE_CHECKING:
    from speakerbot.adapters.imap.mailbox import ImapMailbox
    from speakerbot.adapters.imap.watcher import ImapWatcher

# The settings are read by every command that loads the config; the connection's classes
# (imapclient, imaplib, ssl: a tenth of the command line's start) only by the daemon.
_LAZY = {"ImapMailbox": "speakerbot.adapters.imap.mailbox",
         "ImapWatcher": "speakerbot.adapters.imap.watcher"}


def __getattr__(name: str) -> object:
    """Import the mailbox and the watcher when first asked for (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "FETCH_BATCH",
    "FetchedMessage",
    "ImapConnectionLost",
    "ImapError",
    "ImapLoginFailed",
    "ImapMailbox",
    "ImapSettings",
    "ImapWatcher",
]
