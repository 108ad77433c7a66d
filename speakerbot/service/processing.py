"""Processing one message: whose it is, whether it is trusted, and what is answered."""


from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime

from speakerbot.adapters.store import InboundRow, connection_lost
from speakerbot.engine import due_by, tick
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.intake import Reading
from speakerbot.mail.inbound.reading import NEVER_ANSWER, InboundMail
from speakerbot.service.answering import (
    answer_stranger,
    limited_reply,
    queue_digest,
    refuse_oversized,
    tell_host_set_aside,
)
from speakerbot.service.applying import apply_trusted
from speakerbot.service.bounces import bounce_in, count_bounce, heard_from
from speakerbot.service.confirmations import confirmations, hold, release_held
from speakerbot.service.deps import Deps
from speakerbot.service.observer_mail import take_digest_choice, take_request
from speakerbot.service.policy import (
    DEFERRED,
    NEEDS_NO_TRUST,
    REPLY_KINDS,
    TICK_BUDGET,
    UNFINISHED_STARTS,
    Processed,
    day_start,
    describe,
    log,
    quoted,
)
from speakerbot.service.reading import is_known, reading_in
from speakerbot.service.unit_of_work import Batch, UnitOfWork, open_unit

# What a message skipped unread is, in a sentence (its reason code is the key).
SKIPPED = {
    "loop": "speakerbot's own mail (X-Loop): never answered",
    "bounce": "a bounce or delivery report: never answered",
    "auto-reply": "an auto-reply: never answered",
    "list": "list mail (List-Id or Precedence): never answered",
    "no-sender": "no usable From address",
}


BATCH = 50
"""The most messages processed in one transaction: a burst's replies are not kept back
behind a whole backlog's, nor is the game's lock held for it."""


def process_pending(deps: Deps, known: Mapping[int, Reading] | None = None,
                    ) -> list[Processed]:
    """Process every stored message that is due, in the order received.

    The messages due are processed together, up to ``BATCH`` in one transaction (mail that
    arrives together is made durable together: LMTP's bursts, an IMAP batch). Should
    a batch fail, or should a message due have been begun before and never finished (the
    last process died in it), each is processed in a transaction of its own, so that one
    bad message costs only itself and the one that kills is found and set aside alone.
    ``known``: what intake read in messages just stored, by their id, so as not to read
    them again.
    """
    done: list[Processed] = []
    with deps.states.lock:
        while deps.store.start_due(deps.clock(), limit=BATCH):
            batch = _together(deps, known or {})
            if batch is None:
                break
            done += batch
            if len(batch) < BATCH or any(item.status == DEFERRED for item in batch):
                return done
        return done + _one_by_one(deps)


def _together(deps: Deps, known: Mapping[int, Reading]) -> list[Processed] | None:
    """Process up to ``BATCH`` due messages in one transaction; None if it failed."""
    try:
        with open_unit(deps) as uow:
            uow.known = dict(known)
            return process_due(uow, deps, limit=BATCH)
    except Exception:
        log.exception("processing a batch of messages failed; each is processed alone")
        return None


def _one_by_one(deps: Deps) -> list[Processed]:
    """Process every due message in a transaction of its own (``process``).

    An authenticated message waiting to be retried holds back the later mail of its
    sender only, so that one sender's messages still apply in the order they were sent;
    an unauthenticated one (perhaps a forger's) holds back no one.
    """
    done = []
    now = deps.clock()
    waiting = {sender for _, sender, at in deps.store.retry_waiting()
               if at is None or at > now}
    for row in deps.store.pending_inbound(now):
        if row.sender in waiting:
            continue
        if deps.store.start_one(row.id) > UNFINISHED_STARTS:
            done.append(set_aside_unfinished(deps, row))
            continue
        done.append(process(deps, row))
        if done[-1].status == DEFERRED:
            break  # the mail after it waits too, in the order received
        if done[-1].status == "retry" and row.authenticated:
            waiting.add(row.sender)  # a forger's failing mail holds back no one
    return done


def process(deps: Deps, row: InboundRow) -> Processed:
    """Process one message in one transaction; on failure, retry later or set it aside."""
    with deps.states.lock:
        try:
            with open_unit(deps) as uow:
                return handle_message(uow, deps, row)
        except Exception as error:
            if connection_lost(error):
                # The database's fault, not the message's: it is not counted against the
                # message; the loop's next pass takes it again on a fresh connection.
                raise
            log.exception("processing inbound message %s failed", row.id)
            failed = deps.store.record_inbound_failure(
                row.id, describe(error), now=deps.clock(), delays=deps.retry_delays)
            if failed.status == "set_aside":
                tell_host_set_aside(deps)
            return Processed(row.id, failed.status, False)


def set_aside_unfinished(deps: Deps, row: InboundRow) -> Processed:
    """Set aside a message whose processing began too often and never finished."""
    reason = (f"processing began {UNFINISHED_STARTS} times and never finished: the "
              "process died in it each time (killed, out of memory, or a crash)")
    log.error("inbound message %s is set aside: %s", row.id, reason)
    deps.store.set_aside_unfinished(row.id, reason)
    tell_host_set_aside(deps)
    return Processed(row.id, "set_aside", False)


def process_due(uow: UnitOfWork, deps: Deps, limit: int) -> list[Processed]:
    """Process the ``limit`` oldest messages that are due, in the order received.

    As ``_one_by_one`` does, but all in the transaction in hand: a failure fails
    them all (the caller then processes each in a transaction of its own).
    """
    now = deps.clock()
    waiting = {sender for _, sender, at in deps.store.retry_waiting(uow.session)
               if at is None or at > now}
    # The mail still waiting when a message's turn comes is known here without asking
    # the store each time: what was passed over (its sender's retry is not due), and
    # what comes later (received later). A retry not due is asked about every time.
    passed_over: list[datetime] = []
    done: list[Processed] = []
    rows = deps.store.pending_inbound(now, uow.session, limit=limit)
    uow.count_replies_of([row.sender for row in rows if row.sender], day_start(now),
                         REPLY_KINDS)
    for row in rows:
        if row.sender in waiting:
            passed_over.append(row.received_at)
            continue
        earliest = None if waiting else (min(passed_over, default=None),)
        done.append(handle_message(uow, deps, row, earliest))
        if done[-1].status == DEFERRED:
            break  # the mail after it waits too, in the order received
    return done


def handle_message(uow: UnitOfWork, deps: Deps, row: InboundRow,
                   earlier: tuple[datetime | None] | None = None) -> Processed:
    """Process one message in the transaction in hand; log who sent what, and its outcome.

    ``earlier``: when the oldest other message still waiting was received, if the
    caller knows (in a 1-tuple; None: ask the store).
    """
    started = time.monotonic()
    reading = reading_in(uow, deps, row)
    processed = _handle(uow, deps, row, reading, earlier)
    if processed.status != DEFERRED:  # a deferred message is read again, and logged then
        verbs = [command.verb for command in reading.commands.commands]
        log.info("inbound message %s from <%s>: %s; %s in %d ms", row.id,
                 reading.mail.sender or "", ", ".join(dict.fromkeys(verbs)) or "no command",
                 processed.status, (time.monotonic() - started) * 1000)
    return processed


def _handle(uow: UnitOfWork, deps: Deps, row: InboundRow, reading: Reading,
            earlier: tuple[datetime | None] | None) -> Processed:
    mail = reading.mail
    deps.crashpoints.reach("processing", mail.subject)
    received = row.received_at
    start = uow.state()
    # First let time pass up to the moment the message was received: deadlines
    # that fell before it are settled before it is read. Not past mail received
    # earlier and still waiting (a retry): its ballots must count.
    waiting = deps.store.earliest_pending(uow.session) if earlier is None else earlier[0]
    until = received if waiting is None else min(received, waiting)
    state, tick_events = tick(start, until, uow.luck(), budget=TICK_BUDGET,
                              max_rule_bytes=deps.settings.limits.max_rule_bytes)
    batch = Batch(uow, state, list(tick_events), uow.announce(tick_events, state, start))
    if due_by(state, until):
        # A backlog of deadlines before it: this transaction settles a bounded piece,
        # and the message is read once the rest is settled (it stays stored, in order).
        finish(deps, batch, row, DEFERRED)
        return Processed(row.id, DEFERRED, False)
    bounce = bounce_in(deps, batch, row, mail)
    if bounce is not None:
        # Automatic mail to a genuine return path: counted, never answered.
        batch.reason = "bounce"
        finish(deps, batch, row, "skipped", count_bounce(deps, batch, row, bounce))
        return Processed(row.id, "skipped", False)
    if mail.skipped in NEVER_ANSWER or not mail.sender:
        batch.reason = mail.skipped or "no-sender"
        finish(deps, batch, row, "skipped", SKIPPED.get(batch.reason, batch.reason))
        return Processed(row.id, "skipped", False)
    if mail.sender in (deps.settings.game.address, deps.settings.game.list):
        # The game's own address, or its list: never a player, never answered. (A +tag of
        # either is answered as any stranger, and refused as a player or an observer.)
        batch.reason = "game-address"
        finish(deps, batch, row, "skipped", "from the game's own address or list")
        return Processed(row.id, "skipped", False)
    before = len(batch.events)
    if row.oversized is not None:
        refuse_oversized(deps, batch, row, mail)
    else:
        take(deps, batch, row, reading)
    status = batch.status or "processed"
    finish(deps, batch, row, status, batch.note)
    return Processed(row.id, status, len(batch.events) > before)


def finish(deps: Deps, batch: Batch, row: InboundRow, status: str, note: str = "") -> None:
    """Commit the batch's events and mail, and mark the message done (unless held)."""
    batch.uow.record(batch.events, batch.state, batch.outgoing, inbound_id=row.id)
    for key in batch.digests:
        queue_digest(batch.uow, deps, batch.state, key)
    if status not in ("held", DEFERRED):
        deps.store.mark_inbound(batch.uow.session, row.id, status, note, reason=batch.reason)
    elif status == DEFERRED:
        deps.store.end_start(batch.uow.session, row.id)  # it ended; it is read again later
    elif batch.reason:
        deps.store.explain_held(batch.uow.session, row.id, batch.reason, note)
    if batch.reason:
        # Said once, when it is decided: "held for no reason anyone can see" no more.
        log.info("inbound message %s %s (%s): %s", row.id, status, batch.reason, note)


def take(deps: Deps, batch: Batch, row: InboundRow, reading: Reading) -> None:
    """Decide whose message this is and what may be done with it, from what was read."""
    mail, parsed, verdict = reading.mail, reading.commands, reading.authentication
    sender = mail.sender or ""
    heard_from(deps, batch, sender, verdict.authenticated)
    confirmed = confirmations(deps, batch, row, mail, parsed)
    if confirmed:
        release_held(deps, batch, confirmed, row.received_at)
    trusted = verdict.authenticated or bool(confirmed)
    wanting = [cmd for cmd in parsed.commands if not isinstance(cmd, NEEDS_NO_TRUST)]
    joining = any(isinstance(cmd, lang.Join) for cmd in parsed.commands)
    if confirmed and needs_no_reply(batch, parsed):
        batch.note = "a confirmation"
        return  # each message it released has had its own reply
    if take_request(deps, batch, row, reading, trusted=trusted) or \
            take_digest_choice(deps, batch, row, reading, trusted=trusted):
        return  # an address that is no player asks to observe, or to stop, or for digests
    known = is_known(deps.settings, batch.state, sender)
    if not known and not joining and not (confirmed and not wanting):
        answer_stranger(deps, batch, row, mail)
        batch.note, batch.reason = "not a player", "not-a-player"
        return
    if trusted or not wanting:
        apply_trusted(deps, batch, row, mail, parsed, row.received_at, trusted=trusted)
        return
    batch.note, batch.reason = f"not authenticated: {verdict.why}", "not-authenticated"
    take_unauthenticated(deps, batch, row, mail, parsed, known=known, joining=joining)


def needs_no_reply(batch: Batch, parsed: lang.ParseResult) -> bool:
    """Whether a confirming message is CONFIRM lines alone, with nothing to say of them."""
    return not parsed.errors and not batch.notes and all(
        isinstance(cmd, lang.Confirm) for cmd in parsed.commands)


def take_unauthenticated(deps: Deps, batch: Batch, row: InboundRow, mail: InboundMail,
                         parsed: lang.ParseResult, *, known: bool,
                         joining: bool) -> None:
    """Answer, refuse or hold mail that wants something and is not authenticated."""
    if not known and (parsed.errors or mail.problem):
        # A JOIN with mistakes from an unverified address: no more than a stranger gets.
        answer_stranger(deps, batch, row, mail)
    elif parsed.errors or mail.problem:
        # Nothing could be applied anyway: say what is wrong (to the From address only).
        apply_trusted(deps, batch, row, mail, parsed, row.received_at, trusted=False)
    elif deps.settings.auth.unauthenticated == "refuse" and not joining:
        body = deps.replies.renderer.render("not_authenticated.txt",
                                            subject=quoted(mail.subject))
        batch.outgoing += limited_reply(deps, batch.uow, mail, body, row)
    else:
        hold(deps, batch, row, mail)
