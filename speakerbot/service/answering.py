"""Answers with limits (a daily cap; one short reply to a stranger), and notices to the host."""


from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from speakerbot.adapters.store import ASIDE_NOTICE_AT, ASIDE_NOTIFIED_ID, InboundRow
from speakerbot.engine import GameState, chain
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.reading import InboundMail, can_acknowledge, kilobytes
from speakerbot.mail.inbound.translate import Query
from speakerbot.mail.outbound import lookups
from speakerbot.mail.outbound.compose import Outgoing, compose, wrap
from speakerbot.mail.outbound.subjects import reply_subject
from speakerbot.service.deps import Deps
from speakerbot.service.policy import (
    LOOKUPS_PER_MESSAGE,
    REPLY_KINDS,
    STRANGER_KINDS,
    day_start,
    quoted,
)
from speakerbot.service.reading import is_known
from speakerbot.service.unit_of_work import Batch, UnitOfWork, open_unit, public_record


def answer_stranger(deps: Deps, batch: Batch, row: InboundRow, mail: InboundMail) -> None:
    """At most one short reply a day to an address that is no player, quoting nothing."""
    sender = mail.sender or ""
    if stranger_answered(batch.uow, sender):
        return
    body = deps.replies.renderer.render("stranger.txt", identity=deps.identity,
                                        open_registration=batch.state.open_registration)
    send_stranger(deps, batch, row, Outgoing("stranger", (sender,), "Not a player", body,
                                             f"stranger:{row.message_id}:{row.id}"))


def send_stranger(deps: Deps, batch: Batch, row: InboundRow, reply: Outgoing) -> None:
    """Queue an address that is no player its one mail of the day, if no larger than ``row``."""
    if not stranger_answered(batch.uow, reply.recipients[0]) and fits(deps, reply, row):
        batch.outgoing.append(reply)


def stranger_answered(uow: UnitOfWork, sender: str) -> bool:
    """Whether an address that is no player has had its one mail from us today."""
    return bool(uow.replies_since(sender, day_start(uow.deps.clock()), STRANGER_KINDS))


def fits(deps: Deps, message: Outgoing, row: InboundRow) -> bool:
    """Whether a message costs no more bytes than the mail that caused it."""
    _, raw = compose(deps.identity, message, deps.clock())
    return len(raw) <= max(row.size or len(row.raw), row.oversized or 0)


def refuse_oversized(deps: Deps, batch: Batch, row: InboundRow, mail: InboundMail) -> None:
    """Tell a player, briefly, that their message was too large to read."""
    batch.note, batch.reason = f"too large: {row.oversized} bytes", "too-large"
    if not is_known(deps.settings, batch.state, mail.sender or "") or not can_acknowledge(mail):
        return
    body = deps.replies.renderer.render(
        "too_large.txt", subject=quoted(mail.subject), size=kilobytes(row.oversized or 0),
        limit=kilobytes(deps.settings.limits.max_message_size))
    batch.outgoing += limited_reply(deps, batch.uow, mail, body, row)


def limited_reply(deps: Deps, uow: UnitOfWork, mail: InboundMail, body: str,
                  row: InboundRow) -> list[Outgoing]:
    """Reply, unless the sender has had their replies for today (then one notice)."""
    sender = mail.sender or ""
    sent_today = uow.replies_since(sender, day_start(deps.clock()), REPLY_KINDS)
    limit = deps.settings.limits.replies_per_day
    # One "Re:" and no tag of the game's: the Subject header puts the tag in front once.
    subject = reply_subject(deps.identity.tag, mail.subject)
    subject = subject if len(subject) <= 200 else subject[:197] + "..."
    if sent_today < limit:
        return [Outgoing("reply", (sender,), subject, body, f"reply:{row.message_id}:{row.id}",
                         in_reply_to=mail.message_id, references=mail.references)]
    if sent_today == limit:
        notice = deps.replies.renderer.render("limit_notice.txt", limit=limit,
                                              identity=deps.identity)
        return [Outgoing("limit", (sender,), "No more replies today", notice,
                         f"limit:{row.message_id}:{row.id}", in_reply_to=mail.message_id)]
    return []


def answers(deps: Deps, queries: Sequence[Query], state: GameState, sender: str,
            batch: Batch | None, pending: Sequence[e.Event] = ()) -> list[str]:
    """Answer a message's questions in order, the same question once.

    Lookups (SHOW, HISTORY) are answered for players, the host and the Speaker alone,
    the first :data:`LOOKUPS_PER_MESSAGE` of them; they read the public record of
    ``batch``'s transaction, with the events not yet appended (``batch``'s and
    ``pending``, the message's own) as they will stand in it.
    """
    said: list[str] = []
    asked: set[tuple[str, int | None, str]] = set()
    lookup = Lookups(deps, state, batch, pending)
    for query in queries:
        if (query.verb, query.number, query.topic) in asked:
            continue
        asked.add((query.verb, query.number, query.topic))
        if not is_known(deps.settings, state, sender):
            # A stranger whose JOIN was refused is still a stranger: answering RULES
            # would send far more than they sent.
            lookup.refuse(said, "Questions (RULES, STATUS, SCORES, SHOW, HISTORY) "
                          "are answered for players, the host and the Speaker only.")
        elif query.verb not in LOOKUP_VERBS:
            said.append(deps.replies.answer(query.verb, state, sender, query.topic))
            if query.verb == "STATUS":
                said += unreachable_players(deps, state, batch)
        elif lookup.count >= LOOKUPS_PER_MESSAGE:
            lookup.refuse(said, f"Only the first {LOOKUPS_PER_MESSAGE} lookups of a "
                          "message are answered; send the others in another message.")
        else:
            said.append(lookup.answer(query))
    return said


def unreachable_players(deps: Deps, state: GameState, batch: Batch | None) -> list[str]:
    """Say which players' mail bounces (``[limits] bounce_score``), for STATUS."""
    marked = deps.store.unreachable(batch.uow.session if batch is not None else None)
    names = [state.name_of(address) for address in marked if address in state.players]
    if not names:
        return []
    return [wrap(f"The Speaker's mail to {', '.join(names)} bounces: "
                 "they may not be getting the game's mail "
                 "(the host has been told).") + "\n"]


def record_with(deps: Deps, batch: Batch | None,
                pending: Sequence[e.Event]) -> list[dict[str, Any]]:
    """Return the public record as it will stand once ``batch`` and ``pending`` are in."""
    uow = batch.uow if batch is not None else None
    lines = public_record(deps, uow)
    waiting = [*(batch.events if batch is not None else ()), *pending]
    head = chain.Head(lines[-1]["seq"], lines[-1]["hash"]) if lines else chain.Head()
    # As the record stands, before what is waiting.
    state = uow.state() if uow is not None else deps.states.state()
    links = chain.Links(public=head, ids=state.public_ids, version=state.record_version)
    lines += chain.public_lines_after(links, [event_to_json(ev) for ev in waiting])
    return lines


def queue_digest(uow: UnitOfWork, deps: Deps, state: GameState, key: str) -> None:
    """Queue a digest of everything since the last one, and move the mark."""
    since = int(deps.store.get_meta("digest_seq", uow.session) or 0)
    rows = deps.store.load_events(uow.session)
    recent = [event_from_json(row.data) for row in rows if row.seq > since]
    last = rows[-1].seq if rows else 0
    uow.record([], state, [deps.announcer.digest(state, recent, f"{key}:{last}",
                                                 record=uow.record_head())])
    deps.store.set_meta(uow.session, "digest_seq", last)


ASIDE_NOTICE_EVERY = timedelta(hours=1)
"""The host hears of mail set aside at most once in this time, each notice listing them all."""


def aside_notice_due(last_set_aside: int | None, notified: int | None,
                     notice_at: str | None, now: datetime) -> datetime | None:
    """Return when the host's next notice of mail set aside is due (None: nothing to tell).

    ``last_set_aside``: the last message set aside; ``notified``: the last one told of;
    ``notice_at``: when the last notice went (as stored). A daemon's wake-up (``look``).
    """
    if last_set_aside is None or last_set_aside <= (notified or 0):
        return None
    return max(now, hour_over(notice_at) or now)


def hour_over(notice_at: str | None) -> datetime | None:
    """Return when the hour since the host's last notice of mail set aside ends (None: never told).

    ``notice_at``: when that notice went, as stored (ISO 8601).
    """
    return None if not notice_at else datetime.fromisoformat(notice_at) + ASIDE_NOTICE_EVERY


def tell_host_set_aside(deps: Deps) -> None:
    """Tell the host about set-aside mail: at most one notice an hour, listing them."""
    store = deps.store
    # Looked at first without a write transaction: processing comes here for each message
    # it sets aside (the tick only when its marks say a notice is due).
    over = hour_over(store.get_meta(ASIDE_NOTICE_AT))
    if over is not None and over > deps.clock():
        return
    if not store.set_aside_since(int(store.get_meta(ASIDE_NOTIFIED_ID) or 0)):
        return
    with deps.states.lock, open_unit(deps) as uow:
        now = deps.clock()
        over = hour_over(store.get_meta(ASIDE_NOTICE_AT, uow.session))
        if over is not None and over > now:
            return
        rows = store.set_aside_since(int(store.get_meta(ASIDE_NOTIFIED_ID, uow.session) or 0))
        if not rows:
            return
        body = deps.replies.renderer.render("set_aside.txt", rows=rows)
        uow.record([], uow.state(), [Outgoing(
            "notice", (deps.settings.game.speaker,),
            "Mail set aside" if len(rows) > 1 else "A message was set aside", body,
            f"aside:{rows[-1].id}")])
        store.set_meta(uow.session, ASIDE_NOTICE_AT, now.isoformat())
        store.set_meta(uow.session, ASIDE_NOTIFIED_ID, rows[-1].id)


LOOKUP_VERBS = ("SHOW PROPOSAL", "SHOW RULE", "SHOW CFJ", "SHOW MECHANICS", "HISTORY")
"""The lookups (answered from the public record, and counted), named as the mail commands are."""


class Lookups:
    """The lookups of one message: the record read once, how many answered, one refusal."""

    def __init__(self, deps: Deps, state: GameState, batch: Batch | None,
                 pending: Sequence[e.Event]) -> None:
        self.deps, self.state, self.batch, self.pending = deps, state, batch, pending
        self.count = 0
        self.refused = False
        self._record: list[dict[str, Any]] | None = None

    @property
    def record(self) -> list[dict[str, Any]]:
        """The public record's lines, read at the first lookup that needs them."""
        if self._record is None:
            self._record = record_with(self.deps, self.batch, self.pending)
        return self._record

    def refuse(self, said: list[str], why: str) -> None:
        """Say once why lookups were not answered."""
        if not self.refused:
            said.append(why + "\n")
            self.refused = True

    def answer(self, query: Query) -> str:
        """Answer one lookup."""
        self.count += 1
        renderer, state, number = self.deps.replies.renderer, self.state, query.number or 0
        if query.verb == "SHOW RULE":
            return lookups.show_rule(renderer, state, number)
        if query.verb == "SHOW MECHANICS":
            return lookups.show_mechanics(renderer, state, self.deps.identity.name)
        if query.verb == "SHOW PROPOSAL":
            return lookups.show_proposal(renderer, state, number, self.record)
        if query.verb == "SHOW CFJ":
            return lookups.show_cfj(renderer, state, number, self.record)
        return lookups.history(renderer, self.record, number or lang.HISTORY_DEFAULT,
                               lookups.names_in(state), limit=lang.HISTORY_MAX)
