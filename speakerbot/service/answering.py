"""Answers with limits (a daily cap; one short reply to a stranger), and notices to the host."""


from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from speakerbot.adapters.store import (
    InboundRow,
)
from speakerbot.engine import GameState
from speakerbot.engine.codec import event_from_json
from speakerbot.mail.inbound.reading import (
    InboundMail,
    can_acknowledge,
    kilobytes,
)
from speakerbot.mail.outbound.compose import (
    Outgoing,
    compose,
)
from speakerbot.service.base import ServiceBase
from speakerbot.service.policy import (
    REPLY_KINDS,
    STRANGER_KINDS,
    _Batch,
    _day_start,
    _quoted,
)


class AnsweringMixin(ServiceBase):
    """Replies that keep to the limits: no more to a stranger than they sent, a daily cap."""

    def _answer_stranger(self, batch: _Batch, row: InboundRow, mail: InboundMail) -> None:
        """At most one short reply a day to an address that is no player, quoting nothing."""
        sender = mail.sender or ""
        if self._stranger_answered(batch.session, sender):
            return
        body = self.replies.renderer.render("stranger.txt", identity=self.identity,
                                            open_registration=batch.state.open_registration)
        reply = Outgoing("stranger", (sender,), "Not a player", body,
                         f"stranger:{row.message_id}:{row.id}")
        if self._fits(reply, row):
            batch.outgoing.append(reply)

    def _stranger_answered(self, session: Any, sender: str) -> bool:
        """Whether an address that is no player has had its one mail from us today."""
        return bool(self._replies_since(session, sender, _day_start(self.clock()),
                                         STRANGER_KINDS))

    def _fits(self, message: Outgoing, row: InboundRow) -> bool:
        """Whether a message costs no more bytes than the mail that caused it."""
        _, raw = compose(self.identity, message, self.clock())
        return len(raw) <= max(row.size or len(row.raw), row.oversized or 0)

    def _refuse_oversized(self, batch: _Batch, row: InboundRow, mail: InboundMail) -> None:
        """Tell a player, briefly, that their message was too large to read."""
        batch.note = f"too large: {row.oversized} bytes"
        if not self._is_known(batch.state, mail.sender or "") or not can_acknowledge(mail):
            return
        body = self.replies.renderer.render(
            "too_large.txt", subject=_quoted(mail.subject), size=kilobytes(row.oversized or 0),
            limit=kilobytes(self.settings.limits.max_message_size))
        batch.outgoing += self._limited_reply(batch.session, mail, body, row)

    def _limited_reply(self, session: Any, mail: InboundMail, body: str,
                       row: InboundRow) -> list[Outgoing]:
        """Reply, unless the sender has had their replies for today (then one notice)."""
        sender = mail.sender or ""
        day = _day_start(self.clock())
        sent_today = self._replies_since(session, sender, day, REPLY_KINDS)
        limit = self.settings.limits.replies_per_day
        subject = mail.subject.strip() or "your message"
        if not subject.lower().startswith("re:"):
            subject = f"Re: {subject}"
        subject = subject if len(subject) <= 200 else subject[:197] + "..."
        if sent_today < limit:
            return [Outgoing("reply", (sender,), subject, body, f"reply:{row.message_id}:{row.id}",
                             in_reply_to=mail.message_id, references=mail.references)]
        if sent_today == limit:
            notice = self.replies.renderer.render("limit_notice.txt", limit=limit,
                                                  identity=self.identity)
            return [Outgoing("limit", (sender,), "No more replies today", notice,
                             f"limit:{row.message_id}:{row.id}", in_reply_to=mail.message_id)]
        return []

    def _queue_digest(self, session: Any, state: GameState, key: str) -> None:
        """Queue a digest of everything since the last one, and move the mark."""
        since = int(self.store.get_meta("digest_seq", session) or 0)
        rows = self.store.load_events(session)
        recent = [event_from_json(row.data) for row in rows if row.seq > since]
        last = rows[-1].seq if rows else 0
        self._commit(session, [], state, [self.announcer.digest(state, recent, f"{key}:{last}")])
        self.store.set_meta(session, "digest_seq", last)

    def _tell_host_set_aside(self) -> None:
        """Tell the host about set-aside mail: at most one notice an hour, listing them."""
        # Looked at first without a write transaction: every tick comes here.
        last = self.store.get_meta("aside_notice_at")
        if last and datetime.fromisoformat(last) > self.clock() - timedelta(hours=1):
            return
        if not self.store.set_aside_since(int(self.store.get_meta("aside_notified_id") or 0)):
            return
        with self.lock, self._transaction() as session:
            now = self.clock()
            last = self.store.get_meta("aside_notice_at", session)
            if last and datetime.fromisoformat(last) > now - timedelta(hours=1):
                return
            rows = self.store.set_aside_since(int(self.store.get_meta("aside_notified_id",
                                                                      session) or 0))
            if not rows:
                return
            state = self.state(session)
            body = self.replies.renderer.render("set_aside.txt", rows=rows)
            self._commit(session, [], state, [Outgoing(
                "notice", (self.settings.game.speaker,),
                "Mail set aside" if len(rows) > 1 else "A message was set aside", body,
                f"aside:{rows[-1].id}")])
            self.store.set_meta(session, "aside_notice_at", now.isoformat())
            self.store.set_meta(session, "aside_notified_id", rows[-1].id)
