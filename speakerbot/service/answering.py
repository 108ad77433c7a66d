"""Answers with limits (a daily cap; one short reply to a stranger), and notices to the host."""


from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from speakerbot.adapters.store import (
    InboundRow,
)
from speakerbot.engine import GameState, chain
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.reading import (
    InboundMail,
    can_acknowledge,
    kilobytes,
)
from speakerbot.mail.inbound.translate import Query
from speakerbot.mail.outbound import lookups
from speakerbot.mail.outbound.compose import (
    Outgoing,
    compose,
)
from speakerbot.service.base import ServiceBase
from speakerbot.service.policy import (
    LOOKUPS_PER_MESSAGE,
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
        batch.note, batch.reason = f"too large: {row.oversized} bytes", "too-large"
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

    def _answers(self, queries: Sequence[Query], state: GameState, sender: str,
                 batch: _Batch | None, pending: Sequence[e.Event] = ()) -> list[str]:
        """Answer a message's questions in order, the same question once.

        Lookups (SHOW, HISTORY) are answered for players, the host and the Speaker alone,
        the first :data:`LOOKUPS_PER_MESSAGE` of them; they read the public record of
        ``batch``'s transaction, with the events not yet appended (``batch``'s and
        ``pending``, the message's own) as they will stand in it.
        """
        answers: list[str] = []
        asked: set[tuple[str, int | None]] = set()
        lookup = _Lookups(self, state, batch, pending)
        for query in queries:
            if (query.verb, query.number) in asked:
                continue
            asked.add((query.verb, query.number))
            if not self._is_known(state, sender):
                # A stranger whose JOIN was refused is still a stranger: answering RULES
                # would send far more than they sent.
                lookup.refuse(answers, "Questions (RULES, STATUS, SCORES, SHOW, HISTORY) "
                              "are answered for players, the host and the Speaker only.")
            elif query.verb not in _LOOKUP_VERBS:
                answers.append(self.replies.answer(query.verb, state, sender))
            elif lookup.count >= LOOKUPS_PER_MESSAGE:
                lookup.refuse(answers, f"Only the first {LOOKUPS_PER_MESSAGE} lookups of a "
                              "message are answered; send the others in another message.")
            else:
                answers.append(lookup.answer(query))
        return answers

    def _record_with(self, batch: _Batch | None,
                     pending: Sequence[e.Event]) -> list[dict[str, Any]]:
        """Return the public record as it will stand once ``batch`` and ``pending`` are in."""
        session = batch.session if batch is not None else None
        lines = self.public_record(session)
        waiting = [*(batch.events if batch is not None else ()), *pending]
        head = chain.Head(lines[-1]["seq"], lines[-1]["hash"]) if lines else chain.Head()
        state = self.state(session)  # as the record stands, before what is waiting
        links = chain.Links(public=head, ids=state.public_ids, version=state.record_version)
        lines += chain.public_lines_after(links, [event_to_json(ev) for ev in waiting])
        return lines

    def _queue_digest(self, session: Any, state: GameState, key: str) -> None:
        """Queue a digest of everything since the last one, and move the mark."""
        since = int(self.store.get_meta("digest_seq", session) or 0)
        rows = self.store.load_events(session)
        recent = [event_from_json(row.data) for row in rows if row.seq > since]
        last = rows[-1].seq if rows else 0
        self._commit(session, [], state, [self.announcer.digest(
            state, recent, f"{key}:{last}", record=self._record_head(session))])
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


_LOOKUP_VERBS = frozenset({"SHOW PROPOSAL", "SHOW RULE", "SHOW CFJ", "HISTORY"})


class _Lookups:
    """The lookups of one message: the record read once, how many answered, one refusal."""

    def __init__(self, service: AnsweringMixin, state: GameState, batch: _Batch | None,
                 pending: Sequence[e.Event]) -> None:
        self.service, self.state, self.batch, self.pending = service, state, batch, pending
        self.count = 0
        self.refused = False
        self._record: list[dict[str, Any]] | None = None

    @property
    def record(self) -> list[dict[str, Any]]:
        """The public record's lines, read at the first lookup that needs them."""
        if self._record is None:
            self._record = self.service._record_with(self.batch, self.pending)
        return self._record

    def refuse(self, answers: list[str], why: str) -> None:
        """Say once why lookups were not answered."""
        if not self.refused:
            answers.append(why + "\n")
            self.refused = True

    def answer(self, query: Query) -> str:
        """Answer one lookup."""
        self.count += 1
        renderer, state, number = self.service.replies.renderer, self.state, query.number or 0
        if query.verb == "SHOW RULE":
            return lookups.show_rule(renderer, state, number)
        if query.verb == "SHOW PROPOSAL":
            return lookups.show_proposal(renderer, state, number, self.record)
        if query.verb == "SHOW CFJ":
            return lookups.show_cfj(renderer, state, number, self.record)
        return lookups.history(renderer, self.record, number or lang.HISTORY_DEFAULT,
                               lookups.names_in(state), limit=lang.HISTORY_MAX)
