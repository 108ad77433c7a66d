"""The passing of time: deadlines, digests, and notices to the host."""


from __future__ import annotations

from datetime import datetime

from speakerbot.adapters.store import WakeMarks
from speakerbot.engine import GameState, due_by, next_deadline
from speakerbot.engine import events as e
from speakerbot.engine import tick as engine_tick
from speakerbot.service.additions import announce_additions
from speakerbot.service.answering import aside_notice_due, queue_digest, tell_host_set_aside
from speakerbot.service.confirmations import ask_waiting
from speakerbot.service.deps import Deps
from speakerbot.service.digests import next_due, send_digests
from speakerbot.service.gathering import send_gathered
from speakerbot.service.handwork import remind_host_of_handwork, reminder_due
from speakerbot.service.policy import TICK_BUDGET
from speakerbot.service.unit_of_work import UnitOfWork, open_unit


def tick(deps: Deps, now: datetime | None = None, *, additions: bool = True) -> list[e.Event]:
    """Settle everything due by ``now``: reminders, closes, judge deadlines. Idempotent.

    Never past a message received but not yet processed: a ballot that arrived before
    a deadline must be read before the vote closes. ``additions``: announce the players the
    host added (False: the desk is adding one more, announced with them).
    """
    events: list[e.Event] = []
    # What there is to do, read in one statement without the lock or a write transaction:
    # the daemon ticks at every deadline and wake-up of every game it holds, and each step
    # below looking for its own work in reads of its own made some ten reads a tick.
    marks = deps.store.wake_marks()
    if additions and marks.additions_waiting and announce_additions(deps):
        # The host's additions came before anything due now: their one announcement first.
        marks = deps.store.wake_marks()
    if is_due_by(deps, now or deps.clock(), marks):
        more = True
        while more:  # in bounded transactions; mail waiting for the lock goes between
            with deps.states.lock:
                done, more = tick_once(deps, now)
            events += done
            if more:
                deps.states.give_way()
        marks = deps.store.wake_marks()
    look_after(deps, marks)
    return events


def look_after(deps: Deps, marks: WakeMarks) -> None:
    """Queue what the host and the readers are owed now, as far as ``marks`` tell.

    Each step looks again under the lock before it writes: the marks only spare the reads
    of the steps with nothing to do.
    """
    now = deps.clock()
    # A notice held back by the hourly limit goes out once the hour has passed; so does
    # the public mail kept beyond [limits] public_per_hour, gathered into one.
    if _by(aside_notice_due(marks.last_set_aside, marks.aside_notified,
                            marks.aside_notice_at, now), now):
        tell_host_set_aside(deps)
    if reminder_due(deps, deps.states.state(seq=marks.last_event_seq), marks.handwork_reminded):
        remind_host_of_handwork(deps)
    gathered = send_gathered(deps) if _by(marks.next_gathering, now) else 0
    # After the gathering: it leaves out the readers who hold copies of its parts.
    if gathered or _by(next_due(deps, marks.oldest_digest_copy), now):
        send_digests(deps)
    if marks.held_unasked:
        ask_waiting(deps)


def _by(when: datetime | None, now: datetime) -> bool:
    return when is not None and when <= now


def tick_once(deps: Deps, now: datetime | None) -> tuple[list[e.Event], bool]:
    """Settle up to TICK_BUDGET things due in one transaction; and whether more are due."""
    # Under the lock: no message is stored and waiting to be processed but those the
    # store knows of (being retried, or come by LMTP), and time stops at the first.
    until = now or deps.clock()
    marks = deps.store.wake_marks()
    if marks.earliest_pending is not None:
        until = min(until, marks.earliest_pending)
    if not is_due_by(deps, until, marks):
        return [], False
    with open_unit(deps) as uow:
        new, events = settle(uow, deps, until, expiring=_by(marks.next_expiry, until))
    return events, bool(events) and due_by(new, until)


def settle(uow: UnitOfWork, deps: Deps, until: datetime, *,
           expiring: bool) -> tuple[GameState, list[e.Event]]:
    """Settle up to TICK_BUDGET things due by ``until`` in ``uow``, and expire requests.

    ``expiring``: whether a request for confirmation may expire by ``until`` (False: the
    store's marks, read under the lock, say none does).
    """
    state = uow.state()
    new, events = engine_tick(state, until, uow.luck(), budget=TICK_BUDGET,
                              max_rule_bytes=deps.settings.limits.max_rule_bytes)
    if events:
        uow.record(events, new, uow.announce(events, new, state))
    if expiring:
        # A confirmation received in time but not yet read must still find its request.
        deps.store.expire_confirmations(uow.session, until)
    return new, events


def is_due_by(deps: Deps, until: datetime, marks: WakeMarks) -> bool:
    """Whether a deadline of the game, or a request's expiry, falls by ``until``.

    ``marks``: the store's, read just before (the record's end, the next expiry).
    """
    deadline = next_deadline(deps.states.state(seq=marks.last_event_seq))
    return _by(deadline, until) or _by(marks.next_expiry, until)


def send_digest(deps: Deps, now: datetime | None = None) -> None:
    """Queue the digest: open business and what was decided since the last digest."""
    with deps.states.lock, open_unit(deps) as uow:
        state = uow.state()
        if state.started:
            stamp = (now or deps.clock()).strftime("%Y%m%d%H%M")
            queue_digest(uow, deps, state, f"digest:{stamp}")
