"""The unit of work: one transaction per message, batch or tick, and the outbox's policy.

The daemon and the command line reach the game's storage only through :class:`GameService`.
"""

from speakerbot.adapters.store import AlreadyRunning, NotPending
from speakerbot.service.desk import DeskOutcome, Unreadable
from speakerbot.service.game import GameService
from speakerbot.service.policy import Processed, Received, ServiceError

__all__ = ["AlreadyRunning", "DeskOutcome", "GameService", "NotPending", "Processed",
           "Received", "ServiceError", "Unreadable"]
