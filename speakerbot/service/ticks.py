"""The passing of time: deadlines, digests, and notices to the host."""


from __future__ import annotations

from datetime import datetime

from speakerbot.engine import GameState, due_by, next_deadline
from speakerbot.engine import events as e
from speakerbot.engine import tick as engine_tick
from speakerbot.service.additions import announce_additions
from speakerbot.service.answering import queue_digest, tell_host_set_aside
from speakerbot.service.confirmations import ask_waiting
from speakerbot.service.deps import Deps
from speakerbot.service.digests import send_digests
from speakerbot.service.gathering import send_gathered
from speakerbot.service.handwork import remind_host_of_handwork
from speakerbot.service.policy import TICK_BUDGET
from speakerbot.service.unit_of_work import UnitOfWork, open_unit


def tick(deps: Deps, now: datetime | None = None, *, additions: bool = True) -> list[e.Event]:
    """Settle everything due by ``now``: reminders, closes, judge deadlines. Idempotent.

    Never past a message received but not yet processed: a ballot that arrived before
    a deadline must be read before the vote closes. ``additions``: announce the players the
    host added (False: the desk is adding one more, announced with them).
    """
    events: list[e.Event] = []
    if additions:
        # The host's additions came before anything due now: their one announcement first.
        announce_additions(deps)
    # Looked at first without the lock or a write transaction: the daemon ticks after
    # every batch of mail, and most ticks find nothing due even at ``now``.
    if is_due_by(deps, now or deps.clock()):
        more = True
        while more:  # in bounded transactions; mail waiting for the lock goes between
            with deps.states.lock:
                done, more = tick_once(deps, now)
            events += done
            if more:
                deps.states.give_way()
    # A notice held back by the hourly limit goes out once the hour has passed; so does
    # the public mail kept beyond [limits] public_per_hour, gathered into one.
    tell_host_set_aside(deps)
    remind_host_of_handwork(deps)
    send_gathered(deps)
    # After the gathering: it leaves out the readers who hold copies of its parts.
    send_digests(deps)
    ask_waiting(deps)
    return events


def tick_once(deps: Deps, now: datetime | None) -> tuple[list[e.Event], bool]:
    """Settle up to TICK_BUDGET things due in one transaction; and whether more are due."""
    # Under the lock: no message is stored and waiting to be processed but those the
    # store knows of (being retried, or come by LMTP), and time stops at the first.
    until = now or deps.clock()
    waiting = deps.store.earliest_pending()
    if waiting is not None:
        until = min(until, waiting)
    if not is_due_by(deps, until):
        return [], False
    with open_unit(deps) as uow:
        new, events = settle(uow, deps, until)
    return events, bool(events) and due_by(new, until)


def settle(uow: UnitOfWork, deps: Deps, until: datetime) -> tuple[GameState, list[e.Event]]:
    """Settle up to TICK_BUDGET things due by ``until`` in ``uow``, and expire requests."""
    state = uow.state()
    new, events = engine_tick(state, until, uow.luck(), budget=TICK_BUDGET,
                              max_rule_bytes=deps.settings.limits.max_rule_bytes)
    if events:
        uow.record(events, new, uow.announce(events, new, state))
    # A confirmation received in time but not yet read must still find its request.
    deps.store.expire_confirmations(uow.session, until)
    return new, events


def is_due_by(deps: Deps, until: datetime) -> bool:
    """Whether a deadline of the game, or a request's expiry, falls by ``until``."""
    due = [when for when in (next_deadline(deps.states.state()),
                             deps.store.next_confirmation_expiry()) if when is not None]
    return any(when <= until for when in due)


def send_digest(deps: Deps, now: datetime | None = None) -> None:
    """Queue the digest: open business and what was decided since the last digest."""
    with deps.states.lock, open_unit(deps) as uow:
        state = uow.state()
        if state.started:
            stamp = (now or deps.clock()).strftime("%Y%m%d%H%M")
            queue_digest(uow, deps, state, f"digest:{stamp}")
