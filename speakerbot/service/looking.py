"""What the daemon's loop reads between passes: when to wake next, and what to watch.

After every pass the loop asks for the next wake-ups (the game's next deadline, the outbox's
next due time, a retry, a confirmation request, a gathering, a digest, the host's additions
waiting to be announced) and for the change mark it compares while it sleeps, to hear of
another process's writes. Both come from one
statement (``Store.wake_marks``): a busy host makes these reads once a pass for every game.
"""

from __future__ import annotations

from datetime import datetime

from speakerbot.adapters.store import WakeMarks
from speakerbot.engine import next_deadline
from speakerbot.service.confirmations import next_request_due
from speakerbot.service.deps import Deps
from speakerbot.service.digests import next_due

ChangeMark = tuple[int, datetime | None, datetime | None]
"""The record's last number, the outbox's next due time, the oldest mail still to handle."""


def change_mark(deps: Deps) -> ChangeMark:
    """Return what another process's write changes: the daemon compares it while it sleeps."""
    return deps.store.wake_marks().change


def look(deps: Deps) -> tuple[ChangeMark, dict[str, datetime | None]]:
    """Return the change mark and the next wake-ups, by name.

    The state is the one at the record's number read with the rest: the game's state as
    known already, when nothing was appended since (no read of its own), else caught up.
    """
    store = deps.store
    with store.reading() as session:
        marks: WakeMarks = store.wake_marks(session)
        waiting = store.waiting_senders(session) if marks.held_unasked else {}
    deadline = next_deadline(deps.states.state(seq=marks.last_event_seq))
    return marks.change, {"deadline": deadline, "outbox": marks.next_outbox,
                          "inbound-retry": marks.next_retry,
                          "confirm-request": next_request_due(deps, waiting),
                          "gathering": marks.next_gathering,
                          "host-additions": marks.additions_kept,
                          "daily-digests": next_due(deps, marks.oldest_digest_copy)}
