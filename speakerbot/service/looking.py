"""What the daemon's loop reads between passes: when to wake next, and what to watch.

After every pass the loop asks for the next wake-ups (the game's next deadline, the outbox's
next due time, a retry, a confirmation request, a gathering, a digest, the host's additions
waiting to be announced, the host's notice of mail set aside) and for the change mark it
compares while it sleeps, to hear of another process's writes. Both come from one statement
(``Store.wake_marks``): a busy host makes these reads once a pass for every game.

A write that lands during a pass is in the mark that pass reads, and never seen as a change:
whatever such a write leaves for a whole cycle to do (the additions from the desk, mail set
aside by another worker's listener) is a wake-up, so that a pass for mail alone, which does
not tick, is followed by the cycle that does.
"""

from __future__ import annotations

from datetime import datetime

from speakerbot.adapters.store import WakeMarks
from speakerbot.engine import next_deadline
from speakerbot.service.answering import aside_notice_due
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
                          # Due now, once a pass has taken the write into the mark.
                          "host-additions": deps.clock() if marks.additions_waiting else None,
                          "set-aside-notice": aside_notice_due(
                              marks.last_set_aside, marks.aside_notified,
                              marks.aside_notice_at, deps.clock()),
                          "daily-digests": next_due(deps, marks.oldest_digest_copy)}
