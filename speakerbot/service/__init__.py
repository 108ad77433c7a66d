"""The service layer: one unit of work per message, batch or tick, and the outbox's policy.

The daemon and the command line reach the game's storage only through :class:`GameService`,
a thin front that opens a unit of work (``unit_of_work``) and calls the handler of each
stage (``intake``, ``processing``, ``confirmations``, ``applying``, ``answering``, ``ticks``,
``desk``, ``speaker``) with it and the game's dependencies (``deps``).
"""

from speakerbot.adapters.store import AlreadyRunning, NotPending
from speakerbot.service.desk import DeskOutcome, Unreadable
from speakerbot.service.game import GameService
from speakerbot.service.policy import Processed, Received, ServiceError

__all__ = ["AlreadyRunning", "DeskOutcome", "GameService", "NotPending", "Processed",
           "Received", "ServiceError", "Unreadable"]
