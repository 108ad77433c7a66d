"""Snapshots of the state: a start reads the latest and replays only the events after it.

On SQLite and PostgreSQL, through ``GameService``. The record stays the truth: a snapshot
written by other code, kept for another record (the database was reset and played again)
or that cannot be read is ignored, and the state is rebuilt from the whole record. A
service that knows the state catches up with another process's events by the tail only,
unless the record it knew is no longer the record.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from speakerbot.adapters.store import Store, StoredEvent
from speakerbot.config import Settings, parse_settings
from speakerbot.engine import GameState, replay
from speakerbot.engine import commands as c
from speakerbot.engine.codec import event_from_json
from speakerbot.engine.snapshot import decode_state, encode_state
from speakerbot.service import GameService
from speakerbot.service.snapshots import snapshot_format

SPEAKER = "chuck@example.org"
EVERY = 5


def _settings(tmp_path: Path, db_url: str, every: int = EVERY) -> Settings:
    return parse_settings({
        "game": {"name": "Snap", "ruleset": "nomicam", "address": "game@snap.test",
                 "speaker": SPEAKER, "speaker_name": "Chuck", "admin_password": "pw"},
        "database": {"url": db_url, "snapshot_every": every},
        "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
    }, path=tmp_path / "snap.toml", environ={})


class Reads:
    """Where each read of the record began: ``load_events(after=...)`` of one service."""

    def __init__(self, service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
        self.after: list[int] = []
        load = service.store.load_events

        def recorded(session: Any = None, *, after: int = 0,
                     links: bool = False) -> list[StoredEvent]:
            self.after.append(after)
            return load(session, after=after, links=links)

        monkeypatch.setattr(service.store, "load_events", recorded)


@pytest.fixture
def settings(tmp_path: Path, db_url: str) -> Iterator[Settings]:
    settings = _settings(tmp_path, db_url)
    store = Store(settings.database.url)
    store.upgrade()
    store.close()
    with GameService.open(settings, rng=random.Random(1)) as service:
        service.start_game()
        for n in range(12):  # two events each: the override and the player joining
            service.speaker_command(c.AddPlayer(SPEAKER, f"p{n}@snap.test", f"Player {n}"))
        # Events after the latest snapshot (26): a tail for a start to replay.
        service.speaker_command(c.AdjustScore(SPEAKER, "p0@snap.test", Decimal(1), "tea"))
    yield settings


def _whole(store: Store) -> GameState:
    return replay([event_from_json(row.data) for row in store.load_events()])


def _kept(store: Store) -> list[int]:
    """The events after which a snapshot is kept, latest first."""
    found, upto = [], store.last_event_seq()
    while (kept := store.latest_snapshot(snapshot_format(), upto)) is not None:
        found.append(kept.seq)
        upto = kept.seq - 1
    return found


def test_snapshots_are_kept_every_n_events_in_the_transaction_that_appends_them(
        settings: Settings) -> None:
    with Store(settings.database.url) as store:
        last = store.last_event_seq()
        events = [event_from_json(row.data) for row in store.load_events()]
        kept = _kept(store)
        # At the end of the commit that crossed each multiple of EVERY; the last two kept.
        assert len(kept) == 2 and last - EVERY < kept[0] and kept[1] // EVERY < kept[0] // EVERY
        for seq in kept:
            snapshot = store.latest_snapshot(snapshot_format(), seq)
            assert snapshot is not None
            assert decode_state(snapshot.data) == replay(events[:seq])
        assert store.latest_snapshot("another engine", last) is None


def test_a_start_reads_the_latest_snapshot_and_only_the_events_after_it(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    with GameService.open(settings, rng=random.Random(1)) as service:
        reads = Reads(service, monkeypatch)
        state = service.state()
        last = service.store.last_event_seq()
        latest = _kept(service.store)[0]
        assert reads.after == [latest] and latest < last  # a tail to replay
        assert state == _whole(service.store) and len(state.players) == 13  # and the Speaker


@pytest.mark.parametrize("spoiled", ["other code", "another record", "unreadable"])
def test_a_snapshot_not_of_this_code_or_this_record_or_unreadable_is_ignored(
        settings: Settings, monkeypatch: pytest.MonkeyPatch, spoiled: str,
        caplog: pytest.LogCaptureFixture) -> None:
    with Store(settings.database.url) as store:
        last = store.last_event_seq()
        whole = _whole(store)
        forged = encode_state(GameState())  # an empty game: trusted, it would lose everyone
        previous = _kept(store)[0]
        row = store.load_events(after=last - 1, links=True)[0]
        assert row.links is not None and row.links.hash
        format_, hash_, data = {
            "other code": ("an older engine", row.links.hash, forged),
            "another record": (snapshot_format(), "0" * 64, forged),
            "unreadable": (snapshot_format(), row.links.hash, b"\x93not a state"),
        }[spoiled]
        with store.transaction() as session:
            store.save_snapshot(session, last, format_, hash_, data)
    with GameService.open(settings, rng=random.Random(1)) as service:
        reads = Reads(service, monkeypatch)
        with caplog.at_level(logging.WARNING):
            assert service.state() == whole
        if spoiled == "unreadable":
            assert reads.after == [0] and "ignored the snapshot" in caplog.text
        else:
            # The snapshot before it is this code's and this record's: read from there.
            assert reads.after == [previous]


def test_a_running_service_catches_up_with_another_process_by_the_tail(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    with GameService.open(settings, rng=random.Random(1)) as daemon, \
            GameService.open(settings, rng=random.Random(2)) as cli:
        known = daemon.state()
        seq = daemon.store.last_event_seq()
        cli.speaker_command(c.AddPlayer(SPEAKER, "late@snap.test", "Late"))
        reads = Reads(daemon, monkeypatch)
        caught_up = daemon.state()
        assert reads.after == [seq - 1]  # the event it knew (to check its hash), then the tail
        assert "late@snap.test" in caught_up.players and "late@snap.test" not in known.players
        assert caught_up == _whole(daemon.store)


def test_a_record_reset_and_played_again_is_rebuilt_not_caught_up_with(
        tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    with GameService.open(settings, rng=random.Random(1)) as daemon:
        known_seq = daemon.store.last_event_seq()
        daemon.state()
        # Another process starts the database afresh (init --force) and plays further.
        with GameService.open(settings, rng=random.Random(2)) as cli:
            cli.store.reset()
            cli.store.upgrade()
            cli.states.forget()
            cli.start_game()
            for n in range(20):
                cli.speaker_command(c.AddPlayer(SPEAKER, f"q{n}@snap.test", f"Q {n}"))
        assert daemon.store.last_event_seq() > known_seq
        reads = Reads(daemon, monkeypatch)
        state = daemon.state()
        assert reads.after[0] == known_seq - 1 and reads.after[-1] != known_seq - 1
        assert state == _whole(daemon.store)
        assert not any(address.startswith("p") for address in state.players)


def test_a_snapshot_that_fails_to_be_written_fails_nothing_else(
        settings: Settings, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    with GameService.open(settings, rng=random.Random(1)) as service:
        before = service.store.last_event_seq()

        def failing(session: Any, *_: Any, **__: Any) -> None:
            session.execute(text("SELECT * FROM no_such_table"))  # a real database error

        monkeypatch.setattr(service.store, "save_snapshot", failing)
        with caplog.at_level(logging.WARNING):
            for n in range(4):  # crosses the next multiple of EVERY
                service.speaker_command(c.AddPlayer(SPEAKER, f"r{n}@snap.test", f"R {n}"))
        assert "could not keep a snapshot" in caplog.text
        assert service.store.last_event_seq() >= before + 8
        assert _whole(service.store) == service.state()
        assert {f"r{n}@snap.test" for n in range(4)} <= set(service.state().players)
