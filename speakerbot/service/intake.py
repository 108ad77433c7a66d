"""Intake: each message read once, its password's verdict and authentication kept, stored first."""


from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from datetime import datetime

from speakerbot.adapters.store import InboundItem, Intake, StoredInbound
from speakerbot.mail.inbound.intake import Reading
from speakerbot.mail.inbound.redaction import literal_mask
from speakerbot.service.deps import Deps
from speakerbot.service.policy import Received, describe, log, printable
from speakerbot.service.processing import process_pending
from speakerbot.service.reading import read_received


def receive(deps: Deps, raw: bytes, received_at: datetime, *, source: str,
            uidvalidity: int | None = None, uid: int | None = None,
            oversized: int | None = None, shares: int = 1) -> StoredInbound:
    """Store a message's raw bytes, first of all (a duplicate is stored once).

    The Speaker's password never reaches the database: it is checked here, its verdict
    kept in a column of its own, and the secret masked in the stored bytes. Whatever
    goes wrong while reading the message, its bytes are stored set aside with the error,
    so that no message can stop the mail behind it. ``oversized``: the message's size,
    when only its headers were fetched because it is over the size limit. Messages
    received at once from several threads are stored in one transaction
    (``grouping.GroupCommit``).
    """
    item, _ = read_at_intake(deps, Received(raw, received_at, source, uidvalidity, uid,
                                            oversized, shares))
    # Group commit: messages that arrive together (LMTP's parallel deliveries) share a
    # transaction; each caller returns once the one holding its message is committed.
    stored = deps.intake_commits.submit(item, lambda items: store_items(deps, items))
    # Between the commit and the caller's acknowledgement (LMTP's 250): a crash here
    # must leave the message to be delivered again, and stored once.
    deps.crashpoints.reach("after-store")
    return stored


def take_in(deps: Deps, messages: Sequence[Received]) -> list[str]:
    """Store a batch of messages (an IMAP fetch), then process them in one transaction.

    Return each message's status once committed: what is done may leave the mailbox.
    Three commits for the batch (store, count the starts, process) instead of three or
    four for each message. What was read at intake is handed on, not read again; a
    failure, or a message the last process died in, is taken as ``process_pending``
    takes it: each message in its own transaction.
    """
    taken = [read_at_intake(deps, message) for message in messages]
    with deps.states.intake_lock():
        stored = store_items(deps, [item for item, _ in taken])
        deps.crashpoints.reach("after-fetch")
        process_pending(deps, known={place.id: reading for place, (_, reading)
                                     in zip(stored, taken, strict=True)
                                     if reading is not None and not place.duplicate})
        statuses = deps.store.inbound_statuses([place.id for place in stored])
    return [statuses.get(place.id, "") for place in stored]


def store_items(deps: Deps, items: Sequence[InboundItem]) -> list[StoredInbound]:
    """Store read messages in one transaction, or each on its own if that fails."""
    try:
        return deps.store.store_inbound_many(items)
    except Exception:
        if len(items) == 1 and items[0].set_aside is not None:
            raise  # already the plainest form: the database itself is failing
        log.exception("storing %d message(s) failed; each is stored on its own",
                      len(items))
    return [store_alone(deps, item) for item in items]


def read_at_intake(deps: Deps, message: Received) -> tuple[InboundItem, Reading | None]:
    """Read a message once at intake: what to store, and what was read (kept with it).

    Whatever goes wrong while reading it, its bytes are stored set aside with the error
    (the password masked as plain text), and nothing read is returned.
    """
    try:
        reading, kept = read_received(deps, message)
    except Exception as failure:
        log.exception("reading a message at intake failed; it is stored set aside")
        raw = message.raw
        intake = Intake(oversized=message.oversized,
                        received_sha256=hashlib.sha256(raw).hexdigest(),
                        size=len(raw) // message.shares)
        return InboundItem(literal_mask(raw, deps.settings.game.admin_password or ""),
                           message.received_at, message.source, message.uidvalidity,
                           message.uid, intake, f"intake: {describe(failure)}"), None
    intake = Intake(printable(reading.sender), reading.body_sha256, reading.password,
                    message.oversized, reading.received_sha256,
                    reading.size // message.shares,
                    reading.authenticated, reading.message_id)
    return InboundItem(reading.stored, message.received_at, message.source,
                       message.uidvalidity, message.uid, intake, reading=kept), reading


def store_alone(deps: Deps, item: InboundItem) -> StoredInbound:
    """Store one message; if even that fails, store it set aside in its plainest form."""
    try:
        return deps.store.store_inbound_many([item])[0]
    except Exception as failure:
        if item.set_aside is not None:
            raise  # already the plainest form: the database itself is failing
        log.exception("storing a message failed; it is stored set aside")
        intake = item.intake or Intake()
        plain = Intake(oversized=intake.oversized, received_sha256=intake.received_sha256,
                       size=intake.size)
        return deps.store.store_inbound_many([dataclasses.replace(
            item, intake=plain, set_aside=f"store: {describe(failure)}")])[0]
