"""[metrics]: the collector's counts of a game, the health rule, the listener and the config.

The counts are read from a real SQLite store fed real mail (``MailGame``); the health rule
is given its clocks, so that a stale loop and a stuck outbox need no waiting.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from speakerbot.adapters.metrics import MetricsServer
from speakerbot.adapters.store import Gauges
from speakerbot.config import ConfigError, MetricsSettings, parse_settings
from speakerbot.entrypoints.daemon import Daemon
from speakerbot.entrypoints.metrics import STUCK_AFTER, GamesCollector, faults, game_faults
from tests.support.mailgame import ALICE, BOB, FAR_FUTURE, GAME, SPEAKER, T0, MailGame

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    played = MailGame(tmp_path, "nomicam", (ALICE, BOB))
    yield played
    played.close()


def scrape(registry: CollectorRegistry) -> Samples:
    """Every sample of a scrape, by name and labels (the game's label left out)."""
    text = generate_latest(registry).decode()
    return {(sample.name, tuple(sorted((k, v) for k, v in sample.labels.items()
                                       if k != "game"))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def test_a_scrape_counts_what_the_game_received_held_and_queued(game: MailGame) -> None:
    game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    game.send(BOB, "my vote", "VOTE 301 FOR\n")
    game.send(BOB, "changed my mind", "VOTE 301 AGAINST\n", authenticated=False)
    daemon = Daemon(game.settings, game.service)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(GamesCollector([daemon]))

    seen = scrape(registry)
    assert seen[("speakerbot_messages_received", ())] == 3
    assert seen[("speakerbot_messages", (("status", "processed"),))] == 2
    assert seen[("speakerbot_messages", (("status", "held"),))] == 1
    assert seen[("speakerbot_messages_held", (("reason", "not-authenticated"),))] == 1
    queued = len(game.outbox())
    assert queued and seen[("speakerbot_outbox_pending", ())] == queued
    assert seen[("speakerbot_outbox_oldest_age_seconds", ())] > 0
    assert seen[("speakerbot_outbox_failing", ())] == 0
    assert seen[("speakerbot_bounces", ())] == 0
    # Not running: no loop to time, no lease held, no relay error yet.
    assert seen[("speakerbot_lease_held", ())] == 0
    assert not any(name in ("speakerbot_seconds_since_tick", "speakerbot_last_smtp_error")
                   for name, _ in seen)

    first = game.store.due_outbox(FAR_FUTURE, limit=1)[0]
    game.store.mark_retry(first.id, "451 try later", T0 + timedelta(hours=1))
    daemon.serving, daemon.last_beat = True, time.monotonic() - 5
    seen = scrape(registry)
    assert seen[("speakerbot_outbox_failing", ())] == 1
    assert seen[("speakerbot_last_smtp_error", (("error", "451 try later"),))] == 1
    assert seen[("speakerbot_lease_held", ())] == 1
    assert 5 <= seen[("speakerbot_seconds_since_tick", ())] < 60


def test_health_fails_a_loop_three_intervals_late_and_a_stuck_outbox() -> None:
    well = Gauges()
    assert game_faults("g", well, beat=100.0, interval=1.0, monotonic=102.9, now=T0) == []
    [late] = game_faults("g", well, beat=100.0, interval=1.0, monotonic=103.5, now=T0)
    assert "the game g" in late and "loop" in late
    assert game_faults("g", well, beat=None, interval=1.0, monotonic=1e9, now=T0) == []

    old = T0 - STUCK_AFTER - timedelta(seconds=1)
    waiting = Gauges(outbox_pending=1, oldest_pending=old)
    assert game_faults("g", waiting, beat=None, interval=1.0, monotonic=0, now=T0) == []
    failing = Gauges(outbox_pending=1, oldest_pending=old, outbox_failing=True,
                     last_smtp_error="421 busy")
    [stuck] = game_faults("g", failing, beat=None, interval=1.0, monotonic=0, now=T0)
    assert "outbox is stuck" in stuck and "421 busy" in stuck
    recent = Gauges(outbox_pending=1, oldest_pending=T0 - timedelta(minutes=1),
                    outbox_failing=True)
    assert game_faults("g", recent, beat=None, interval=1.0, monotonic=0, now=T0) == []


def test_health_looks_only_at_the_loops_that_run_here(game: MailGame) -> None:
    daemon = Daemon(game.settings, game.service)
    daemon.last_beat = time.monotonic() - 60
    assert faults([daemon]) == []  # another worker's game, or not started
    daemon.serving = True
    [late] = faults([daemon])
    assert "has not gone round" in late


def test_the_listener_answers_metrics_healthz_and_nothing_else() -> None:
    registry = CollectorRegistry()
    wrong: list[str] = []
    server = MetricsServer("127.0.0.1", 0, registry, lambda: list(wrong))
    server.start()
    try:
        base = f"http://127.0.0.1:{server.port}"

        def get(path: str) -> tuple[int, str]:
            try:
                with urllib.request.urlopen(base + path, timeout=10) as answer:
                    return answer.status, answer.read().decode()
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode()

        assert get("/healthz") == (200, "ok\n")
        wrong.append("the game g: its loop has not gone round")
        assert get("/healthz") == (503, "the game g: its loop has not gone round\n")
        assert get("/metrics")[0] == 200
        assert get("/elsewhere")[0] == 404
    finally:
        server.stop()


def settings_with(tmp_path: Path, metrics: dict[str, str] | None) -> MetricsSettings:
    data: dict[str, object] = {
        "game": {"name": "N", "ruleset": "nomicam", "address": GAME, "speaker": SPEAKER,
                 "speaker_name": "Chuck", "admin_password": "a-password-42"},
    }
    if metrics is not None:
        data["metrics"] = metrics
    return parse_settings(json.loads(json.dumps(data)), path=tmp_path / "s.toml",
                          environ={}).metrics


def test_metrics_are_off_unless_listen_is_given(tmp_path: Path) -> None:
    assert settings_with(tmp_path, None) == MetricsSettings()
    assert settings_with(tmp_path, {"listen": ""}).host is None
    assert settings_with(tmp_path, {"listen": "127.0.0.1:9464"}) == \
        MetricsSettings("127.0.0.1", 9464)
    assert settings_with(tmp_path, {"listen": "[::1]:9000"}) == MetricsSettings("::1", 9000)
    for wrong in ("9464", "localhost", "host:port", "a b:1", "h:70000"):
        with pytest.raises(ConfigError, match=r"\[metrics\] listen"):
            settings_with(tmp_path, {"listen": wrong})
