"""Intake: each message read once, its password's verdict and authentication kept, stored first."""


from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from datetime import datetime

from speakerbot.adapters.store import InboundItem, Intake, StoredInbound
from speakerbot.mail.inbound.redaction import literal_mask, redact_message
from speakerbot.rfc5322 import message_id_of
from speakerbot.service.deps import Deps
from speakerbot.service.policy import Received, describe, log, printable
from speakerbot.service.processing import process_due, process_pending
from speakerbot.service.reading import Known, authenticate
from speakerbot.service.unit_of_work import open_unit


def receive(deps: Deps, raw: bytes, received_at: datetime, *, source: str,
            uidvalidity: int | None = None, uid: int | None = None,
            oversized: int | None = None) -> StoredInbound:
    """Store a message's raw bytes, first of all (a duplicate is stored once).

    The Speaker's password never reaches the database: it is checked here, its verdict
    kept in a column of its own, and the secret masked in the stored bytes. Whatever
    goes wrong while reading the message, its bytes are stored set aside with the error,
    so that no message can stop the mail behind it. ``oversized``: the message's size,
    when only its headers were fetched because it is over the size limit.
    """
    [stored] = receive_many(deps, [Received(raw, received_at, source, uidvalidity, uid,
                                            oversized)])
    return stored


def receive_many(deps: Deps, messages: Sequence[Received]) -> list[StoredInbound]:
    """Store several messages as ``receive`` does, in one transaction (an IMAP batch).

    Should the batch fail to store, each message is stored on its own, so that one
    bad message costs only itself.
    """
    return store_items(deps, [read_at_intake(deps, message)[0] for message in messages])


def take_in(deps: Deps, messages: Sequence[Received]) -> list[str]:
    """Store a batch of messages (an IMAP fetch), then process them in one transaction.

    Return each message's status once committed: what is done may leave the mailbox.
    Two commits for the batch instead of two or three for each message. A message that
    fails to process fails the batch's processing, whose messages are then processed
    as ``process_pending`` does, each in its own transaction.
    """
    taken = [read_at_intake(deps, message) for message in messages]
    with deps.states.intake_lock():
        stored = store_items(deps, [item for item, _ in taken])
        deps.crashpoints.reach("after-fetch")
        if not deps.store.start_due(deps.clock()):
            # The last process died in the middle of some of this mail: take it one
            # message at a time, so that what killed it is found and set aside alone.
            process_pending(deps)
        else:
            process_batch(deps, stored, taken)
        statuses = deps.store.inbound_statuses([place.id for place in stored])
    return [statuses.get(place.id, "") for place in stored]


def process_batch(deps: Deps, stored: Sequence[StoredInbound],
                  taken: Sequence[tuple[InboundItem, Known | None]]) -> None:
    """Process the due mail in one transaction; on a failure, each message alone."""
    try:
        with open_unit(deps) as uow:
            uow.known = {place.id: known for place, (_, known)
                         in zip(stored, taken, strict=True)
                         if known is not None and not place.duplicate}
            process_due(uow, deps)
    except Exception:
        log.exception("processing a batch of %d message(s) failed; each is processed "
                      "alone", len(taken))
        process_pending(deps)


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


def read_at_intake(deps: Deps, message: Received) -> tuple[InboundItem, Known | None]:
    """Read a message once at intake: its password's verdict, sender and authentication.

    Return what to store, and what was read, for answering it without reading it again
    (None when the stored bytes differ from those read, or nothing could be read).
    """
    raw = message.raw
    received_sha256 = hashlib.sha256(raw).hexdigest()
    known = None
    try:
        redacted = redact_message(raw, deps.settings.game.admin_password or "",
                                  max_bytes=deps.settings.limits.max_message_size,
                                  max_command_lines=deps.settings.limits.max_command_lines,
                                  loop_token=deps.identity.loop_token)
        verdict = authenticate(deps, redacted.mail, message.received_at)
        if not redacted.masked:
            known = Known(redacted.mail, redacted.parsed, verdict)
        # The Message-ID as the reader read it, unless masking changed the bytes.
        message_id = (message_id_of(redacted.raw) if redacted.masked
                      else redacted.mail.record_id)
        intake = Intake(printable(redacted.sender), redacted.body_sha256, redacted.verdict,
                        message.oversized, received_sha256, len(raw),
                        verdict.authenticated, message_id)
        stored, error = redacted.raw, None
    except Exception as failure:
        log.exception("reading a message at intake failed; it is stored set aside")
        intake = Intake(oversized=message.oversized, received_sha256=received_sha256,
                        size=len(raw))
        stored = literal_mask(raw, deps.settings.game.admin_password or "")
        error = f"intake: {describe(failure)}"
    return InboundItem(stored, message.received_at, message.source, message.uidvalidity,
                       message.uid, intake, error), known


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
