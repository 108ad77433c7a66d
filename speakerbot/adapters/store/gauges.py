"""Counts for the daemon's metrics: a few grouped, indexed reads, cheap enough per scrape."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select

from speakerbot.adapters.store.database import StoreBase
from speakerbot.adapters.store.schema import BounceMark, Inbound, Outbox


@dataclass(frozen=True)
class Gauges:
    """The store's side of the metrics, read at one moment.

    ``inbound``: messages stored, by (status, reason); reason "" when none was given.
    ``outbox_failing``: whether a message still pending has failed an attempt (the relay
    refused or could not be reached). ``last_smtp_error``: the latest such error, or None.
    """

    inbound: dict[tuple[str, str], int] = field(default_factory=dict)
    outbox_pending: int = 0
    oldest_pending: datetime | None = None
    outbox_failing: bool = False
    last_smtp_error: str | None = None
    bounces: int = 0


class GaugeStore(StoreBase):
    """The store's counts for /metrics and /healthz."""

    def gauges(self) -> Gauges:
        """Read the counts of inbound mail, the outbox's backlog and the bounces."""
        with self._reading() as session:
            inbound = {(status, reason or ""): count for status, reason, count in session.execute(
                select(Inbound.status, Inbound.reason, func.count())
                .group_by(Inbound.status, Inbound.reason))}
            pending, oldest = session.execute(
                select(func.count(), func.min(Outbox.created_at))
                .where(Outbox.status == "pending")).one()
            # The newest error of a message not yet sent or given up: the relay's latest word.
            error = session.scalar(
                select(Outbox.last_error)
                .where(Outbox.status.in_(("pending", "failed")), Outbox.last_error.is_not(None))
                .order_by(Outbox.id.desc()).limit(1))
            failing = session.scalar(
                select(func.count()).select_from(Outbox)
                .where(Outbox.status == "pending", Outbox.last_error.is_not(None))) or 0
            bounces = session.scalar(select(func.count()).select_from(BounceMark)) or 0
        return Gauges(inbound=inbound, outbox_pending=pending or 0, oldest_pending=oldest,
                      outbox_failing=failing > 0, last_smtp_error=error, bounces=bounces)
