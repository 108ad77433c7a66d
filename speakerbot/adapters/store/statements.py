"""The statements of the mail path, built once and run with parameters.

Building a SQLAlchemy statement and working out its cache key costs more than running it
on SQLite; the few statements every message runs are therefore built once per process
(on first use, not at import) against the tables, and executed with bound parameters.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Table, bindparam, exists, func, literal, or_, select, union_all, update
from sqlalchemy.sql import CompoundSelect, Select, Update
from sqlalchemy.sql.dml import Insert

from speakerbot.adapters.store.schema import (
    GATHERED,
    PENDING_INBOUND,
    Confirmation,
    DigestCopy,
    Event,
    Inbound,
    Meta,
    Outbox,
    Unreachable,
)


def table(model: Any) -> Table:
    """Return the table of a mapped class, typed as one."""
    found = model.__table__
    assert isinstance(found, Table)
    return found


@cache
def insert_ignoring_conflicts(dialect: str, model: Any, *conflict_on: str) -> Insert:
    """INSERT ... ON CONFLICT DO NOTHING (on ``conflict_on``'s columns, or on any key)."""
    into = table(model)
    elements = [into.c[name] for name in conflict_on] or None
    # Each dialect imported when first used: a command on SQLite does not load PostgreSQL's.
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(into).on_conflict_do_nothing(index_elements=elements)
    from sqlalchemy.dialects.postgresql import insert as pg_insert

    return pg_insert(into).on_conflict_do_nothing(index_elements=elements)


@cache
def insert_inbound(dialect: str) -> Insert:
    """Store a received message (unless a unique key is taken), returning its id."""
    return insert_ignoring_conflicts(dialect, Inbound).returning(table(Inbound).c.id)


@cache
def find_inbound(by_uid: bool, by_copy: bool) -> Select[Any]:
    """Find the first stored message with this digest, IMAP UID, or sender, body and id."""
    c = table(Inbound).c
    keys = [c.sha256 == bindparam("sha256")]
    if by_uid:
        keys.append((c.uidvalidity == bindparam("uidvalidity")) & (c.uid == bindparam("uid")))
    if by_copy:
        keys.append((c.message_id == bindparam("message_id")) & (c.sender == bindparam("sender"))
                    & (c.body_sha256 == bindparam("body_sha256"))
                    & c.authenticated.is_not_distinct_from(bindparam("authenticated")))
    return select(c.id, c.status).where(or_(*keys)).order_by(c.id).limit(1)


@cache
def mark_inbound() -> Update:
    """Mark a message that is still pending (or held) done."""
    c = table(Inbound).c
    return (update(table(Inbound))
            .where(c.id == bindparam("b_id"), c.status.in_((*PENDING_INBOUND, "held")))
            .values(status=bindparam("b_status"), note=bindparam("b_note"),
                    processed_at=bindparam("b_at"), started=0, reason=bindparam("b_reason")))


@cache
def earliest_pending() -> Select[Any]:
    """When the oldest message still to handle was received (a retry only if authenticated)."""
    c = table(Inbound).c
    return select(func.min(c.received_at)).where(or_(
        c.status == "new", (c.status == "retry") & c.authenticated.is_(True)))


@cache
def replies_since(kinds: tuple[str, ...]) -> Select[Any]:
    """How many messages of ``kinds`` went to one address alone since a moment.

    One statement for each set of kinds (there are two), so that its SQL is fixed.
    """
    c = table(Outbox).c
    return select(func.count()).select_from(table(Outbox)).where(
        c.addressee == bindparam("addressee"), c.kind.in_(kinds),
        c.created_at >= bindparam("since"))


@cache
def replies_since_each(kinds: tuple[str, ...]) -> Select[Any]:
    """How many messages of ``kinds`` went to each of several addresses alone since a moment.

    The addresses are one expanding parameter (``addressees``), so that the statement is
    built once for each set of kinds, whatever the batch's senders.
    """
    c = table(Outbox).c
    return (select(c.addressee, func.count())
            .where(c.addressee.in_(bindparam("addressees", expanding=True)), c.kind.in_(kinds),
                   c.created_at >= bindparam("since"))
            .group_by(c.addressee))


@cache
def unreachable() -> Select[Any]:
    """Read every player marked unreachable, and since when (a STATUS answer lists them)."""
    marked = table(Unreachable)
    return select(marked.c.address, marked.c.since).order_by(marked.c.since)


@cache
def meta_value() -> Select[Any]:
    """Read the JSON value kept under one key of the metadata (a batch reads its seed so)."""
    return select(table(Meta).c.value).where(table(Meta).c.key == bindparam("key"))


@cache
def last_event_seq() -> Select[Any]:
    """Read the number of the record's last event (0 when it is empty)."""
    return select(func.coalesce(func.max(table(Event).c.seq), 0))


@cache
def append_linked_events() -> Insert:
    """Append events with their numbers and links given (executed with many rows)."""
    return table(Event).insert()


@cache
def append_event() -> Insert:
    """Append one event to the record, returning its number."""
    events = table(Event)
    return events.insert().returning(events.c.seq)


HOST_ADDITIONS = "host-additions"
"""The meta key of the host's additions not announced yet (``service/additions.py``): a list
of [first, last] record numbers, empty once announced."""
ASIDE_NOTICE_AT = "aside_notice_at"
"""The meta key of when the host was last told of mail set aside (an ISO 8601 time)."""
ASIDE_NOTIFIED_ID = "aside_notified_id"
"""The meta key of the last message set aside that the host was told of (its inbound id)."""
HANDWORK_REMINDED = "handwork_reminded_at"
"""The meta key of when the host was last reminded of the open hand work (ISO 8601)."""


@cache
def wake_marks() -> Select[Any]:
    """Read what the daemon's loop looks at after each pass, in one statement (one round trip).

    In order: the record's last number, the outbox's next due time, the oldest mail still
    to handle (as ``earliest_pending``), the next retry of a message, whether a message is
    held with no confirmation asked yet, the next gathering due, the oldest copy kept
    for a digest, whether the host's additions wait to be announced, and, for the host's
    notice of mail set aside, the last message set aside, the last one told of and when the
    host was last told; when the next open request for confirmation expires; and when the
    host was last reminded of the open hand work. Each is a subquery of its own, as the
    store's separate reads are.
    """
    inbound, outbox, copies = table(Inbound).c, table(Outbox).c, table(DigestCopy).c
    meta, requests = table(Meta).c, table(Confirmation).c
    return select(
        last_event_seq().scalar_subquery(),
        select(func.min(outbox.next_attempt_at)).where(outbox.status == "pending")
        .scalar_subquery(),
        earliest_pending().scalar_subquery(),
        select(func.min(inbound.retry_at)).where(inbound.status == "retry").scalar_subquery(),
        exists().where(inbound.status == "held", inbound.confirmation_id.is_(None)),
        select(func.min(outbox.next_attempt_at)).where(outbox.status == GATHERED)
        .scalar_subquery(),
        select(func.min(copies.queued_at))
        .join_from(table(DigestCopy), table(Outbox), outbox.message_id == copies.message_id)
        .where(outbox.status != GATHERED).scalar_subquery(),
        # The host's additions waiting ([] once announced): a write of the command line that
        # only the next tick makes known.
        exists().where(meta.key == HOST_ADDITIONS,
                       meta.value[("value", 0)].as_string().is_not(None)),
        # Mail set aside since the host's last notice (by another worker's listener, say),
        # which the tick tells at most hourly.
        select(func.max(inbound.id)).where(inbound.status == "set_aside").scalar_subquery(),
        select(meta.value["value"].as_integer()).where(meta.key == ASIDE_NOTIFIED_ID)
        .scalar_subquery(),
        select(meta.value["value"].as_string()).where(meta.key == ASIDE_NOTICE_AT)
        .scalar_subquery(),
        select(func.min(requests.expires_at)).where(requests.status == "open")
        .scalar_subquery(),
        select(meta.value["value"].as_string()).where(meta.key == HANDWORK_REMINDED)
        .scalar_subquery(),
    )


@cache
def chain_ends() -> CompoundSelect[Any]:
    """Read the links of the record's last event (tagged 0) and its last public event (1).

    One statement for both ends, each the first row of its own ordered subquery.
    """
    events = table(Event)
    columns = (events.c.seq, events.c.hash, events.c.public_seq, events.c.public_hash)
    last = select(literal(0).label("which"), *columns).order_by(events.c.seq.desc()).limit(1)
    public = (select(literal(1).label("which"), *columns)
              .where(events.c.public_seq.is_not(None))
              .order_by(events.c.public_seq.desc()).limit(1))
    return union_all(select(last.subquery()), select(public.subquery()))


def _due() -> Any:
    """Select the messages due to be handled by ``:now``: new, or their retry due by then."""
    c = table(Inbound).c
    return or_(c.status == "new", (c.status == "retry") & (c.retry_at <= bindparam("now")))


@cache
def any_due() -> Select[Any]:
    """One message due by ``:now``, if any."""
    return select(table(Inbound).c.id).where(_due()).limit(1)


@cache
def due_to_start() -> Select[Any]:
    """Choose the ``:limit`` oldest messages due by ``:now``, each saying if any due was begun.

    A message begun before and never finished (its process died in it) is among the due.
    """
    c = table(Inbound).c
    begun = select(c.id).where(_due(), c.started > 0).exists()
    return (select(c.id, begun).where(_due()).order_by(c.received_at, c.id)
            .limit(bindparam("limit")))


@cache
def count_starts() -> Update:
    """Count a start for each message of ``:ids``."""
    c = table(Inbound).c
    return (update(table(Inbound)).where(c.id.in_(bindparam("ids", expanding=True)))
            .values(started=c.started + 1))


@cache
def due_inbound() -> Select[Any]:
    """Every column of the ``:limit`` oldest messages due by ``:now``, oldest first."""
    c = table(Inbound).c
    return (select(*table(Inbound).c).where(_due()).order_by(c.received_at, c.id)
            .limit(bindparam("limit")))


@cache
def retry_waiting() -> Select[Any]:
    """(id, sender, retry_at) of every authenticated message waiting for a retry."""
    c = table(Inbound).c
    return (select(c.id, c.sender, c.retry_at)
            .where(c.status == "retry", c.authenticated.is_(True)).order_by(c.id))


@cache
def due_outbox() -> Select[Any]:
    """Every column of the ``:limit`` first pending messages due by ``:now``."""
    c = table(Outbox).c
    return (select(*table(Outbox).c)
            .where(c.status == "pending", c.next_attempt_at <= bindparam("now"))
            .order_by(c.priority, c.id).limit(bindparam("limit")))


@cache
def mark_sent() -> Update:
    """Record the pending messages of ``:ids`` as sent at ``:now``."""
    c = table(Outbox).c
    return (update(table(Outbox))
            .where(c.id.in_(bindparam("ids", expanding=True)), c.status == "pending")
            .values(status="sent", sent_at=bindparam("now")))
