"""The store edge of ``speakerbot doctor``: the newest mail a game without a mailbox received.

Mail that comes by LMTP is in the game's database only, each message stored as received
(its password masked, its headers as the receiving server wrote them). Read, never written:
a database file that is not there is not made.
"""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from speakerbot.adapters.store import Store
from speakerbot.config import Settings
from speakerbot.entrypoints.doctor.findings import Finding, fault
from speakerbot.entrypoints.doctor.messages import Mailbag, Received

__all__ = ["stored_mail"]

SOURCE = "the game's database (its mail comes by LMTP)"


def stored_mail(settings: Settings, newest: int) -> Mailbag | Finding:
    """Return the ``newest`` stored messages, newest first; a fault when there is no game."""
    try:
        with Store(settings.database.url, game=settings.game_id) as store:
            if not store.is_initialised():
                return fault("store", f"the database holds no game {settings.game_id} yet, "
                             "so there is no mail to look at", "run speakerbot init")
            rows = store.list_inbound(limit=newest)
    except (SQLAlchemyError, OSError, ValueError) as error:
        # The error's first line only (SQLAlchemy adds a link and the statement below it),
        # and never the URL: it may hold the database's password.
        said = next(iter(str(error).splitlines()), "")
        return fault("store", f"the game's database ([database] url) cannot be read: "
                     f"{type(error).__name__}: {said}", "check [database] url, and that "
                     "this user may read the database")
    return Mailbag(SOURCE, tuple(Received(f"stored message {row.id}", row.received_at, row.raw)
                                 for row in rows))
