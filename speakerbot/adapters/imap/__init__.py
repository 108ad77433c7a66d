r"""IMAP inbound: fetch raw messages from a mailbox and move them away once they are taken in.

This adapter knows nothing of Nomic. :class:`ImapMailbox` (``mailbox``) is one
connection: it fetches the messages still in the watched folder in batches of at
most ``FETCH_BATCH`` (``BODY.PEEK[]``, so ``\Seen`` is never set and never relied
on) and moves the ones it is told to into a "processed" or a "rejected" folder.
A message larger than ``max_size`` is never fetched whole: only its header block
is, and it is marked ``oversized``. :class:`ImapWatcher` (``watcher``) runs the
inbound loop on its own thread: for each batch, hand it to a ``deliver`` callback
and move what ``deliver`` says is safely committed; then wait for new mail (IDLE,
or polling when IDLE is disabled or unsupported), and start again; after any
failure it reconnects with exponential backoff and searches the whole folder
again. ``records`` holds the settings, the message and the errors; ``responses``
the pure helpers that read the server's answers.

A message stays in the folder until ``deliver`` has returned its UID, so a crash
at any point loses nothing: the message is offered again after the restart, and
``deliver`` is expected to recognise a duplicate.

Plain-text IMAP (``security = "none"``) is refused to any host but loopback
unless ``allow_plaintext`` is set: the password would cross the network in clear.
"""

from speakerbot.adapters.imap.mailbox import ImapMailbox
from speakerbot.adapters.imap.records import (
    FETCH_BATCH,
    FetchedMessage,
    ImapConnectionLost,
    ImapError,
    ImapLoginFailed,
    ImapSettings,
)
from speakerbot.adapters.imap.watcher import ImapWatcher

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
