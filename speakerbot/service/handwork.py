"""Reminding the host of open hand work: at most one notice per ``[game] handwork_reminder``.

While an adopted proposal's part is left to the Speaker's hand (engine/handwork.py), the
host is reminded, the first time one period after the oldest open item was opened (the
close's own notice told them then), and again each period after the last reminder. The
daemon's loop ticks at least every few minutes, so the reminder goes out within them.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from speakerbot.adapters.store import HANDWORK_REMINDED
from speakerbot.engine import GameState
from speakerbot.mail.outbound.compose import Outgoing
from speakerbot.mail.outbound.handwork import finishing_line, open_items
from speakerbot.mail.outbound.notice import AT_THE_DESK, BY_MAIL, channel_words
from speakerbot.service.deps import Deps
from speakerbot.service.unit_of_work import open_unit


def reminder_due(deps: Deps, state: GameState, last: str | None) -> bool:
    """Whether the host's reminder of the open hand work is due now.

    ``last``: when the host was last reminded, as stored (``HANDWORK_REMINDED``).
    """
    every = deps.settings.game.handwork_reminder
    return every is not None and _due(state, last, timedelta(seconds=every), deps.clock())


def remind_host_of_handwork(deps: Deps) -> None:
    """Queue the host's reminder of the open hand work, if one is due now.

    The tick calls it when its marks, read without a write transaction, say the reminder is
    due (``reminder_due``); that is looked at again here, under the lock.
    """
    with deps.states.lock, open_unit(deps) as uow:
        now, state = deps.clock(), uow.state()
        if not reminder_due(deps, state, deps.store.get_meta(HANDWORK_REMINDED, uow.session)):
            return
        items = open_items(state)
        # The commands the host has: ADMIN by mail only where an admin password is set.
        via = BY_MAIL if deps.announcer.admin_by_mail else AT_THE_DESK
        lines = [finishing_line(item.item, item.proposal, item.words, item.rules, via=via)
                 for item in items]
        body = deps.replies.renderer.render("speaker_notice.txt", game=state,
                                            identity=deps.identity, lines=lines,
                                            channel=channel_words(via))
        subject = (f"Still left to the Speaker: {len(items)} item"
                   + ("s" if len(items) > 1 else ""))
        uow.record([], state, [Outgoing("notice", (deps.settings.game.speaker,), subject,
                                        body, f"handwork:{now:%Y%m%d%H%M}")])
        deps.store.set_meta(uow.session, HANDWORK_REMINDED, now.isoformat())


def _due(state: GameState, last: str | None, period: timedelta, now: datetime) -> bool:
    """Say whether a reminder is due: something open, a period after the last word of it.

    The last word: the later of the oldest open item's opening and the last reminder.
    """
    if not state.handwork:
        return False
    since = min(item.since for item in state.handwork.values())
    if last:
        since = max(since, datetime.fromisoformat(last))
    return now >= since + period
