"""``[metrics] listen``: what ``speakerbot run`` tells Prometheus and a health check.

At each scrape of /metrics the collector reads, for every game of this process, the store's
counts (``Store.gauges``: a few grouped reads) and the loop's own state: messages received,
by status, held by reason and set aside; the outbox's depth and the age of its oldest
message; seconds since the loop last went round; whether this worker holds the game (its
lease, or its daemon lock); the bounces on record; the relay's last error.

/healthz answers 503, naming the game and the fault, when a game's loop runs here but has
not gone round within three of its intervals (``Daemon.watch_every``: it looks at the store
that often while it is well), or when its outbox is stuck: the oldest message waiting is
older than ``STUCK_AFTER`` and the relay has refused or failed a message still waiting.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from speakerbot.adapters.metrics import MetricsServer
from speakerbot.adapters.store import Gauges
from speakerbot.config import Settings
from speakerbot.entrypoints.cli import CliError

if TYPE_CHECKING:
    from speakerbot.entrypoints.daemon import Daemon

log = logging.getLogger("speakerbot.entrypoints.metrics")

STUCK_AFTER = timedelta(minutes=10)
"""How old the oldest message waiting may grow, while the relay fails, before /healthz fails."""

MISSED_BEATS = 3
"""How many of its intervals a loop may go without a beat before /healthz fails."""


def game_faults(game: str, gauges: Gauges, *, beat: float | None, interval: float,
                monotonic: float, now: datetime) -> list[str]:
    """Return what is wrong with one game served here, at ``monotonic`` and ``now``.

    ``beat``: when (monotonic) its loop last went round, None before it first did.
    """
    faults = []
    if beat is not None and monotonic - beat > MISSED_BEATS * interval:
        faults.append(f"the game {game}: its loop has not gone round for "
                      f"{monotonic - beat:.0f} s (more than {MISSED_BEATS} x {interval:g} s)")
    oldest = gauges.oldest_pending
    if gauges.outbox_failing and oldest is not None and now - oldest > STUCK_AFTER:
        faults.append(f"the game {game}: its outbox is stuck: the oldest message has waited "
                      f"{(now - oldest).total_seconds():.0f} s and the relay keeps failing "
                      f"({gauges.last_smtp_error})")
    return faults


def faults(daemons: Iterable[Daemon]) -> list[str]:
    """Return what is wrong with the games whose loops run in this process (none: healthy).

    A game another worker holds is that worker's to report.
    """
    found: list[str] = []
    for daemon in daemons:
        if daemon.serving:
            found += game_faults(daemon.settings.game_id, daemon.service.store.gauges(),
                                 beat=daemon.last_beat, interval=daemon.watch_every,
                                 monotonic=time.monotonic(), now=datetime.now(UTC))
    return found


class GamesCollector(Collector):
    """Collects, at each scrape, the metrics of every game of this process."""

    def __init__(self, daemons: Sequence[Daemon]) -> None:
        self.daemons = daemons

    def collect(self) -> Iterator[Metric]:
        """Read every game's store and loop; yield one family per metric, a sample a game."""
        def gauge(name: str, text: str, *labels: str) -> GaugeMetricFamily:
            return GaugeMetricFamily(f"speakerbot_{name}", text, labels=["game", *labels])

        received = gauge("messages_received", "Messages stored, whatever became of them")
        status = gauge("messages", "Messages stored, by status", "status")
        held = gauge("messages_held", "Messages held (awaiting a confirmation), by reason",
                     "reason")
        aside = gauge("messages_set_aside", "Messages set aside for the host, by reason",
                      "reason")
        pending = gauge("outbox_pending", "Messages waiting in the outbox")
        age = gauge("outbox_oldest_age_seconds", "Age of the oldest message waiting")
        failing = gauge("outbox_failing", "1 when the relay failed a message still waiting")
        since = gauge("seconds_since_tick", "Seconds since the game's loop last went round")
        lease = gauge("lease_held", "1 when this process runs the game (its lease or lock)")
        bounces = gauge("bounces", "Bounces on record")
        error = gauge("last_smtp_error", "The relay's last error, in the label", "error")
        monotonic, now = time.monotonic(), datetime.now(UTC)
        for daemon in self.daemons:
            game = daemon.settings.game_id
            gauges = daemon.service.store.gauges()
            received.add_metric([game], sum(gauges.inbound.values()))
            by_status: dict[str, int] = {}
            for (state, reason), count in sorted(gauges.inbound.items()):
                by_status[state] = by_status.get(state, 0) + count
                if state == "held":
                    held.add_metric([game, reason], count)
                elif state == "set_aside":
                    aside.add_metric([game, reason], count)
            for state, count in by_status.items():
                status.add_metric([game, state], count)
            pending.add_metric([game], gauges.outbox_pending)
            oldest = gauges.oldest_pending
            age.add_metric([game], 0 if oldest is None else (now - oldest).total_seconds())
            failing.add_metric([game], int(gauges.outbox_failing))
            if daemon.serving and daemon.last_beat is not None:
                # The loop may beat between the clock's reading and this one: never negative.
                since.add_metric([game], max(0.0, monotonic - daemon.last_beat))
            lease.add_metric([game], int(daemon.serving and daemon.holds()))
            bounces.add_metric([game], gauges.bounces)
            if gauges.last_smtp_error is not None:
                error.add_metric([game, gauges.last_smtp_error[:200]], 1)
        yield from (received, status, held, aside, pending, age, failing, since, lease,
                    bounces, error)


@contextmanager
def serving_metrics(settings: Settings, daemons: Sequence[Daemon]) -> Iterator[None]:
    """Serve /metrics and /healthz for ``daemons`` while inside, if [metrics] listen is set."""
    host = settings.metrics.host
    if host is None:
        yield
        return
    registry = CollectorRegistry(auto_describe=False)
    registry.register(GamesCollector(daemons))
    server = MetricsServer(host, settings.metrics.port, registry, lambda: faults(daemons))
    try:
        server.start()
    except OSError as error:
        raise CliError(f"[metrics] listen: cannot listen on {host}:{settings.metrics.port}: "
                       f"{error}") from error
    log.info("metrics listening on %s:%s (/metrics, /healthz)", host, server.port)
    try:
        yield
    finally:
        server.stop()
