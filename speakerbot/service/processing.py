"""Processing one message: whose it is, whether it is trusted, and what is answered."""


from __future__ import annotations

from datetime import datetime
from typing import Any

from speakerbot.adapters.store import (
    InboundRow,
)
from speakerbot.engine import due_by, tick
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.reading import (
    NEVER_ANSWER,
    InboundMail,
)
from speakerbot.service.confirmations import ConfirmationsMixin
from speakerbot.service.crashpoints import crashpoint
from speakerbot.service.policy import (
    _NEEDS_NO_TRUST,
    DEFERRED,
    REPLY_KINDS,
    TICK_BUDGET,
    UNFINISHED_STARTS,
    Known,
    Processed,
    _Batch,
    _day_start,
    _describe,
    _quoted,
    log,
)

# What a message skipped unread is, in a sentence (its reason code is the key).
_SKIPPED = {
    "loop": "speakerbot's own mail (X-Loop): never answered",
    "bounce": "a bounce or delivery report: never answered",
    "auto-reply": "an auto-reply: never answered",
    "list": "list mail (List-Id or Precedence): never answered",
    "no-sender": "no usable From address",
}


class ProcessingMixin(ConfirmationsMixin):
    """Processing one message: whose it is, whether it is trusted, and what is answered."""

    def process_pending(self) -> list[Processed]:
        """Process every stored message that is due, in the order received.

        An authenticated message waiting to be retried holds back the later mail of its
        sender only, so that one sender's messages still apply in the order they were sent;
        an unauthenticated one (perhaps a forger's) holds back no one.
        """
        done = []
        with self.lock:
            now = self.clock()
            waiting = {sender for _, sender, at in self.store.retry_waiting()
                       if at is None or at > now}
            for row in self.store.pending_inbound(now):
                if row.sender in waiting:
                    continue
                if self.store.start_one(row.id) > UNFINISHED_STARTS:
                    done.append(self._set_aside_unfinished(row))
                    continue
                done.append(self.process(row))
                if done[-1].status == DEFERRED:
                    break  # the mail after it waits too, in the order received
                if done[-1].status == "retry" and row.authenticated:
                    waiting.add(row.sender)  # a forger's failing mail holds back no one
        return done

    def process(self, row: InboundRow) -> Processed:
        """Process one message in one transaction; on failure, retry later or set it aside."""
        with self.lock:
            try:
                return self._process(row)
            except Exception as error:
                log.exception("processing inbound message %s failed", row.id)
                failed = self.store.record_inbound_failure(
                    row.id, _describe(error), now=self.clock(), delays=self.retry_delays)
                if failed.status == "set_aside":
                    self._tell_host_set_aside()
                return Processed(row.id, failed.status, False)

    def _set_aside_unfinished(self, row: InboundRow) -> Processed:
        """Set aside a message whose processing began too often and never finished."""
        reason = (f"processing began {UNFINISHED_STARTS} times and never finished: the "
                  "process died in it each time (killed, out of memory, or a crash)")
        log.error("inbound message %s is set aside: %s", row.id, reason)
        self.store.set_aside_unfinished(row.id, reason)
        self._tell_host_set_aside()
        return Processed(row.id, "set_aside", False)

    def _process_due(self, session: Any) -> None:
        """Process every message that is due, in the order received, in ``session``.

        As ``process_pending`` does, but all in the transaction in hand: a failure fails
        them all (the caller then processes each in a transaction of its own).
        """
        now = self.clock()
        waiting = {sender for _, sender, at in self.store.retry_waiting(session)
                   if at is None or at > now}
        # The mail still waiting when a message's turn comes is known here without asking
        # the store each time: what was passed over (its sender's retry is not due), and
        # what comes later (received later). A retry not due is asked about every time.
        passed_over: list[datetime] = []
        rows = self.store.pending_inbound(now, session)
        self._count_replies_of(session, [row.sender for row in rows if row.sender],
                               _day_start(now), REPLY_KINDS)
        for row in rows:
            if row.sender in waiting:
                passed_over.append(row.received_at)
                continue
            earliest = None if waiting else (min(passed_over, default=None),)
            if self._process_in(session, row, earliest).status == DEFERRED:
                break  # the mail after it waits too, in the order received

    def _process(self, row: InboundRow) -> Processed:
        with self._transaction() as session:
            return self._process_in(session, row)

    def _process_in(self, session: Any, row: InboundRow,
                    earlier: tuple[datetime | None] | None = None) -> Processed:
        """Process one message in the transaction in hand.

        ``earlier``: when the oldest other message still waiting was received, if the
        caller knows (in a 1-tuple; None: ask the store).
        """
        known = self._known.pop(row.id, None)
        mail = known.mail if known is not None else self._read(row)
        crashpoint("processing", mail.subject)
        received = row.received_at
        start = self.state(session)
        # First let time pass up to the moment the message was received: deadlines
        # that fell before it are settled before it is read. Not past mail received
        # earlier and still waiting (a retry): its ballots must count.
        waiting = self.store.earliest_pending(session) if earlier is None else earlier[0]
        until = received if waiting is None else min(received, waiting)
        state, tick_events = tick(start, until, self.rng, budget=TICK_BUDGET,
                                   max_rule_bytes=self.settings.limits.max_rule_bytes)
        batch = _Batch(session, state, list(tick_events),
                       self._announce(tick_events, state, start, session))
        if due_by(state, until):
            # A backlog of deadlines before it: this transaction settles a bounded piece,
            # and the message is read once the rest is settled (it stays stored, in order).
            self._finish(batch, row, DEFERRED)
            return Processed(row.id, DEFERRED, False)
        if mail.skipped in NEVER_ANSWER or not mail.sender:
            batch.reason = mail.skipped or "no-sender"
            self._finish(batch, row, "skipped", _SKIPPED.get(batch.reason, batch.reason))
            return Processed(row.id, "skipped", False)
        if mail.sender in (self.settings.game.address, self.settings.game.list):
            # The game's own address, or its list: never a player, never answered.
            batch.reason = "game-address"
            self._finish(batch, row, "skipped", "from the game's own address or list")
            return Processed(row.id, "skipped", False)
        before = len(batch.events)
        if row.oversized is not None:
            self._refuse_oversized(batch, row, mail)
        else:
            self._take(batch, row, mail, known)
        status = batch.status or "processed"
        self._finish(batch, row, status, batch.note)
        return Processed(row.id, status, len(batch.events) > before)

    def _finish(self, batch: _Batch, row: InboundRow, status: str, note: str = "") -> None:
        """Commit the batch's events and mail, and mark the message done (unless held)."""
        self._commit(batch.session, batch.events, batch.state, batch.outgoing,
                     inbound_id=row.id)
        for key in batch.digests:
            self._queue_digest(batch.session, batch.state, key)
        if status not in ("held", DEFERRED):
            self.store.mark_inbound(batch.session, row.id, status, note, reason=batch.reason)
        elif status == DEFERRED:
            self.store.end_start(batch.session, row.id)  # it ended; it is read again later
        elif batch.reason:
            self.store.explain_held(batch.session, row.id, batch.reason, note)
        if batch.reason:
            # Said once, when it is decided: "held for no reason anyone can see" no more.
            log.info("inbound message %s %s (%s): %s", row.id, status, batch.reason, note)

    def _take(self, batch: _Batch, row: InboundRow, mail: InboundMail,
              read: Known | None = None) -> None:
        """Decide whose message this is and what may be done with it.

        ``read``: what intake read of it in this transaction, so it is not read twice.
        """
        sender = mail.sender or ""
        parsed = read.parsed if read and read.parsed is not None else self._parse(mail)
        verdict = read.verdict if read is not None else self._authenticate(
            mail, row.received_at)
        confirmed = self._confirmations(batch, row, mail, parsed)
        if confirmed:
            self._release_held(batch, confirmed, row.received_at)
        trusted = verdict.authenticated or bool(confirmed)
        wanting = [cmd for cmd in parsed.commands if not isinstance(cmd, _NEEDS_NO_TRUST)]
        joining = any(isinstance(cmd, lang.Join) for cmd in parsed.commands)
        if confirmed and self._needs_no_reply(batch, parsed):
            batch.note = "a confirmation"
            return  # each message it released has had its own reply
        known = self._is_known(batch.state, sender)
        if not known and not joining and not (confirmed and not wanting):
            self._answer_stranger(batch, row, mail)
            batch.note, batch.reason = "not a player", "not-a-player"
            return
        if trusted or not wanting:
            self._apply_trusted(batch, row, mail, parsed, row.received_at, trusted=trusted)
            return
        batch.note, batch.reason = f"not authenticated: {verdict.why}", "not-authenticated"
        self._take_unauthenticated(batch, row, mail, parsed, known=known, joining=joining)

    @staticmethod
    def _needs_no_reply(batch: _Batch, parsed: lang.ParseResult) -> bool:
        """Whether a confirming message is CONFIRM lines alone, with nothing to say of them."""
        return not parsed.errors and not batch.notes and all(
            isinstance(cmd, lang.Confirm) for cmd in parsed.commands)

    def _take_unauthenticated(self, batch: _Batch, row: InboundRow, mail: InboundMail,
                              parsed: lang.ParseResult, *, known: bool,
                              joining: bool) -> None:
        """Answer, refuse or hold mail that wants something and is not authenticated."""
        if not known and (parsed.errors or mail.problem):
            # A JOIN with mistakes from an unverified address: no more than a stranger gets.
            self._answer_stranger(batch, row, mail)
        elif parsed.errors or mail.problem:
            # Nothing could be applied anyway: say what is wrong (to the From address only).
            self._apply_trusted(batch, row, mail, parsed, row.received_at, trusted=False)
        elif self.settings.auth.unauthenticated == "refuse" and not joining:
            body = self.replies.renderer.render("not_authenticated.txt",
                                                subject=_quoted(mail.subject))
            batch.outgoing += self._limited_reply(batch.session, mail, body, row)
        else:
            self._hold(batch, row, mail)
