"""The host's additions of players from the desk, announced together at the next tick.

``speakerbot player add`` adds one player a run, each run a process and a transaction of
its own, and a big game is set up with sixty of them. Announced one by one, that was sixty
public messages to every player (3,660 copies for sixty players), and they filled the
hour's ``[limits] public_per_hour``, so that the first proposals were kept back until the
end of the clock hour. So an addition from the desk is recorded at once but announced
later: its record numbers are kept in the store's meta, in the transaction that records
it, and the next tick announces every addition kept so far in one message (the announcer
folds additions that follow one another into one), kept under the meta key
``HOST_ADDITIONS``. Additions waiting are one of the daemon's wake-ups (``Store.wake_marks``),
due at once: the running daemon ticks for them after whatever pass it makes next, however it
heard of the write (its look at the store, a notice, or mail that woke it first), and a game
set up before the daemon starts hears of all its players in the first cycle. Nothing is lost
in a crash: the numbers are cleared in the transaction that queues the announcement.
"""

from __future__ import annotations

from collections.abc import Sequence

from speakerbot.adapters.store import HOST_ADDITIONS
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json
from speakerbot.mail.outbound.announcements import added_player
from speakerbot.service.deps import Deps
from speakerbot.service.unit_of_work import UnitOfWork, open_unit


def are_additions(events: Sequence[e.Event]) -> bool:
    """Whether ``events`` are one command's adding a player by the host (and its effects)."""
    return any(added_player(event) for event in events)


def keep_for_announcing(uow: UnitOfWork, deps: Deps, count: int) -> None:
    """Keep the last ``count`` events ``uow`` recorded, an addition, to be announced later."""
    last = uow.seq()
    kept = deps.store.get_meta(HOST_ADDITIONS, uow.session) or []
    deps.store.set_meta(uow.session, HOST_ADDITIONS, [*kept, [last - count + 1, last]],
                        now=deps.clock())


def announce_additions(deps: Deps) -> int:
    """Announce the host's additions kept so far, together; return how many events they are.

    The tick calls it when its marks, read without a write transaction, say additions wait;
    they are read again here, under the lock.
    """
    with deps.states.lock, open_unit(deps) as uow:
        kept: list[list[int]] = deps.store.get_meta(HOST_ADDITIONS, uow.session) or []
        if not kept:
            return 0
        wanted = {seq for first, last in kept for seq in range(first, last + 1)}
        rows = deps.store.load_events(uow.session, after=min(wanted) - 1)
        events = [event_from_json(row.data) for row in rows if row.seq in wanted]
        state = uow.state()
        # Keyed by the first addition's number: the same additions, the same Message-ID.
        outgoing = deps.announcer.messages(events, state, f"added{kept[0][0]}", state)
        uow.record([], state, outgoing)
        deps.store.set_meta(uow.session, HOST_ADDITIONS, [], now=deps.clock())
    return len(events)
