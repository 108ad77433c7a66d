"""Public mail beyond ``[limits] public_per_hour``: gathered into one message an hour.

The daily reply cap stops replies, not announcements: a flood of commands that each make an
announcement (or a backlog of results) once sent a mail to every player for each. So the
public mail queued to go by itself in the last hour is counted (``policy.PublicGate``);
once it reaches the limit, each further public message is composed as usual but kept in
the outbox (status ``gathered``, in the same transaction as the events that made it, so
nothing is lost in a crash) until the end of its clock hour. The next tick after that
queues one message that holds every kept announcement in order, and marks them ``merged``
in the same transaction: they are gathered, and sent, once.

While any message is kept, the next ones are kept too (even when the hour's count has fallen
below the limit), so that nothing overtakes an announcement that happened before it. The
gathering counts as public mail of its hour: in any hour at most the limit go one by one,
plus a gathering or two. Replies, confirmations and reminders are not public mail.
"""

from __future__ import annotations

from speakerbot.adapters.store import OutboxRow
from speakerbot.mail.outbound.compose import message_id_for
from speakerbot.mail.outbound.gathering import gathering, read_part
from speakerbot.service.deps import Deps
from speakerbot.service.unit_of_work import open_unit


def send_gathered(deps: Deps) -> int:
    """Queue the gathering of the public mail kept until now; return how many it holds.

    The tick calls it when its marks, read without a write transaction, say a gathering is
    due; what is due is read again here, under the lock.
    """
    with deps.states.lock, open_unit(deps) as uow:
        rows = deps.store.gathered_due(deps.clock(), uow.session)
        if rows:
            state = uow.state()
            identity = deps.identity
            outgoing = gathering(
                deps.replies.renderer, identity,
                [read_part(identity, row.raw, row.created_at) for row in rows],
                _everyone(rows), f"gathered:{rows[0].id}",
                limit=deps.settings.limits.public_per_hour)
            # The digest readers kept copies of the parts: the gathering is not theirs too.
            covered = deps.store.digest_copies_of(uow.session, [row.message_id for row in rows])
            uow.record([], state, [outgoing], gather=False, covered=covered)
            into = message_id_for(identity, f"{state.game_id}|{outgoing.key}")
            deps.store.mark_merged(uow.session, [row.id for row in rows], into)
    return len(rows)


def _everyone(rows: list[OutboxRow]) -> tuple[str, ...]:
    """Return every recipient of the kept messages, once each, in the order first met.

    Observers are left out: the gathering is queued as public mail, which goes to the
    observers of the moment it is queued.
    """
    return tuple(dict.fromkeys(address for row in rows for address in row.recipients
                               if address not in row.observers))
