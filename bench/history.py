"""A long game stays fast: the cost of a message, a start and a reminder round against size.

Through ``GameService`` on SQLite (WAL, synchronous=FULL, as in production). Prints a table
and saves a chart beside this script (``history.svg``, drawn with pygal):

- **per message**: ballot messages (each also asks STATUS) arriving one by one through a
  day, each taken in as the IMAP thread takes a batch (stored, parsed, applied, answered,
  committed), at 300, 3,000 and 10,000 messages; the mean over the run and over its last
  tenth, and the SQL statements per message;
- **start-up**: a game whose record holds 10,000, 100,000 and 200,000 events, opened
  afresh: the time until the service has the current state (what a daemon or a CLI command
  pays first), with snapshots (``[database] snapshot_every`` at its default, 2,000, and
  1,999 events after the latest: the longest tail) and without;
- **reminder round**: 300 players and 100 open proposals, the tick that reminds them all
  and the tick that closes them: seconds, and the longest transaction.

Run: .venv/bin/python bench/history.py [--quick]
"""

from __future__ import annotations

import argparse
import copy
import random
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygal
from sqlalchemy import event

from speakerbot.adapters.store import Store
from speakerbot.config import Settings, parse_settings
from speakerbot.engine import GameState, apply, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.evolve import evolve
from speakerbot.engine.luck import SeededDraws
from speakerbot.engine.model import Choice
from speakerbot.presets import load_preset
from speakerbot.service import GameService
from speakerbot.service.policy import Received
from speakerbot.service.unit_of_work import open_unit

SPEAKER = "speaker@bench.test"
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)
CHART = Path(__file__).with_name("history.svg")


def settings_in(folder: Path, **tables: dict[str, Any]) -> Settings:
    """The settings of a bench game in ``folder``: nomicam, no daily reply limit to speak of."""
    return parse_settings({
        "game": {"name": "Bench", "ruleset": "nomicam", "address": "game@bench.test",
                 "speaker": SPEAKER, "speaker_name": "Speaker", "admin_password": "pw"},
        "mechanics": {"win_points": "1000000"},
        "limits": {"replies_per_day": 100000, "proposals_per_day": 100000},
        "database": {"url": f"sqlite:///{folder / 'bench.db'}"},
        "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
        "auth": {"authserv_id": ["mx.bench.test"]},
        **tables,
    }, path=folder / "bench.toml", environ={})


def mail(sender: str, subject: str, body: str, n: int) -> bytes:
    """A message the game's receiving server vouches for (DMARC pass)."""
    return ("Authentication-Results: mx.bench.test; dmarc=pass header.from=bench.test\r\n"
            f"From: {sender}\r\nTo: game@bench.test\r\nSubject: {subject}\r\n"
            "Date: Mon, 05 Jan 2026 12:00:00 +0000\r\n"
            f"Message-ID: <bench-{n}@bench.test>\r\n\r\n{body}").encode()


@dataclass
class Statements:
    """Counts the SQL statements an engine runs, and times its transactions."""

    count: int = 0
    longest: float = 0.0
    _began: float = 0.0
    durations: list[float] = field(default_factory=list)

    @contextmanager
    def watching(self, store: Store) -> Iterator[Statements]:
        """Count and time while the block runs."""
        engine = store.engine

        def executed(*_: Any) -> None:
            self.count += 1

        def began(*_: Any) -> None:
            self._began = time.perf_counter()

        def ended(*_: Any) -> None:
            spent = time.perf_counter() - self._began
            self.durations.append(spent)
            self.longest = max(self.longest, spent)

        listeners: list[tuple[str, Callable[..., None]]] = [
            ("before_cursor_execute", executed), ("begin", began), ("commit", ended)]
        for name, listener in listeners:
            event.listen(engine, name, listener)
        try:
            yield self
        finally:
            for name, listener in listeners:
                event.remove(engine, name, listener)


# --- per message ---------------------------------------------------------------------------


@dataclass
class MessageRun:
    """The cost of the ballot messages of a day."""

    messages: int
    mean_ms: float
    last_tenth_ms: float
    statements: float


def per_message(messages: int, voters: int = 30, proposals: int = 10) -> MessageRun:
    """Take in ``messages`` ballot messages one by one over a day; time each."""
    with tempfile.TemporaryDirectory() as tmp:
        clock = [T0]
        store = Store(settings_in(Path(tmp)).database.url)
        store.upgrade()
        service = GameService(store, settings_in(Path(tmp)), rng=random.Random(1),
                              clock=lambda: clock[0])
        service.start_game()
        players = [f"v{i}@bench.test" for i in range(voters)]
        for i, player in enumerate(players):
            service.speaker_command(c.AddPlayer(SPEAKER, player, f"Voter {i}"))
        for n in range(proposals):
            service.take_in([Received(mail(players[n], f"PROPOSE: Idea {n}", "Text.\n", n),
                                      clock[0], "bench")])
        step = timedelta(days=1) / (messages + 1)
        times: list[float] = []
        counter = Statements()
        with counter.watching(store):
            for n in range(messages):
                clock[0] += step
                raw = mail(players[n % voters], "vote",
                           f"VOTE {301 + n % proposals} {'FOR' if n % 3 else 'AGAINST'}\n"
                           "STATUS\n", 1000 + n)
                started = time.perf_counter()
                [status] = service.take_in([Received(raw, clock[0], "bench")])
                times.append(time.perf_counter() - started)
                assert status == "processed", status
        store.close()
    tenth = times[-max(1, messages // 10):]
    return MessageRun(messages, 1000 * statistics.fmean(times), 1000 * statistics.fmean(tenth),
                      counter.count / messages)


# --- start-up ------------------------------------------------------------------------------


def long_record(size: int, voters: int = 30) -> list[e.Event]:
    """Play a game of ``size`` events or more: proposals, every ballot, each vote closed."""
    rng = random.Random(3)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    now = T0
    state, record = apply(GameState(), c.StartGame(
        SPEAKER, load_preset("nomicam"), "Speaker", mechanics={"win_points": "10000000"},
        game_id="b" * 16), now, draws)
    players = [f"v{i}@bench.test" for i in range(voters)]
    for i, player in enumerate(players):
        state, events = apply(state, c.AddPlayer(SPEAKER, player, f"Voter {i}"), now, draws)
        record += events
    while len(record) < size:
        state, events = apply(state, c.Propose(players[len(record) % voters], "Idea",
                                               "Text."), now, draws)
        record += events
        number = state.next_proposal - 1
        for player in players:
            # Folded in as the engine records a ballot: apply would copy the state each time.
            cast = e.BallotCast(now, number, player, rng.choice([Choice.FOR, Choice.AGAINST]),
                                secrets.token_hex(16))
            evolve(state, cast)
            record.append(cast)
        now += timedelta(hours=1)
        state, events = tick(state, now, draws)  # every voter voted: the vote closes
        record += events
    return record[:size]


def stored(folder: Path, record: list[e.Event], snapshot_every: int) -> Settings:
    """A database holding ``record``, written as the service writes it.

    With snapshots, the last ``snapshot_every - 1`` events are written after the latest
    snapshot: a start then has the longest tail it can have to replay.
    """
    settings = settings_in(folder, database={"url": f"sqlite:///{folder / 'bench.db'}",
                                             "snapshot_every": snapshot_every})
    tail = max(0, snapshot_every - 1)
    unsnapped = settings_in(folder, database={"url": f"sqlite:///{folder / 'bench.db'}",
                                              "snapshot_every": 0})
    store = Store(settings.database.url)
    store.upgrade()
    state = GameState()
    for start in range(0, len(record), 5000):
        chunk = record[start:start + 5000]
        head, rest = chunk[:max(0, len(record) - tail - start)], chunk[len(record) - tail - start:]
        for part, written_by in ((head, settings), (rest, unsnapped)):
            if not part:
                continue
            for event_ in part:
                evolve(state, event_)
            service = GameService(store, written_by, rng=random.Random(1), clock=lambda: T0)
            with open_unit(service.deps) as uow:  # the bench's setup, not measured
                uow.record(part, copy.deepcopy(state), [])
    store.close()
    return settings


def start_up(folder: Path, settings: Settings) -> float:
    """Open the game afresh and read its current state: seconds (best of three)."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        with GameService.open(settings, rng=random.Random(1)) as service:
            service.state()
            best = min(best, time.perf_counter() - started)
    return best


# --- the reminder round --------------------------------------------------------------------


def reminder_round(players: int = 300, proposals: int = 100) -> tuple[float, float, float,
                                                                     float, int]:
    """The tick that reminds everyone and the tick that closes every vote: (s, longest tx)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        clock = [T0]
        settings = settings_in(folder)
        store = Store(settings.database.url)
        store.upgrade()
        service = GameService(store, settings, rng=random.Random(1), clock=lambda: clock[0])
        service.start_game()
        rng = random.Random(2)
        draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
        voters = [f"v{i}@bench.test" for i in range(players)]
        with open_unit(service.deps) as uow:  # the setup, unannounced
            state = uow.state()
            record: list[e.Event] = []
            for n, voter in enumerate(voters):
                state, events = apply(state, c.AddPlayer(SPEAKER, voter, f"Voter {n}"), T0,
                                      draws)
                record += events
            for n in range(proposals):
                state, events = apply(state, c.Propose(voters[n], f"Idea {n}", "Text.\n"),
                                      T0 + timedelta(seconds=n), draws)
                record += events
            uow.record(record, state, [])
        closes = max(p.closes_at for p in service.state().open_proposals() if p.closes_at)
        before = service.state().rules_mechanics.reminder_before
        assert before is not None
        figures: list[float] = []
        counter = Statements()
        mails = 0
        for now in (closes - before + timedelta(minutes=1), closes + timedelta(minutes=1)):
            clock[0] = now
            counter = Statements()
            with counter.watching(store):
                started = time.perf_counter()
                events = service.tick(now)
                figures += [time.perf_counter() - started, counter.longest]
            mails += sum(isinstance(ev, e.Event) and not ev.public for ev in events)
        store.close()
    return figures[0], figures[1], figures[2], figures[3], mails


# --- the report ----------------------------------------------------------------------------


def chart(runs: list[MessageRun], starts: list[tuple[int, float, float]]) -> None:
    """Save the per-message and start-up figures as one SVG bar chart, small to large."""
    plot = pygal.Bar(title="A long game stays fast (bench/history.py)", logarithmic=True,
                     y_title="milliseconds (log scale)", legend_at_bottom=True,
                     legend_at_bottom_columns=1, width=900, height=520, print_values=True,
                     range=(1, 10_000), zero=1, truncate_label=-1,
                     y_labels=[1, 10, 100, 1000, 10_000],
                     value_formatter=lambda ms: f"{ms:.1f}" if ms < 100 else f"{ms:.0f}")
    plot.x_labels = [f"{run.messages:,} messages, {size // 1000:,}k events"
                     for run, (size, _, _) in zip(runs, starts, strict=True)]
    plot.add("one ballot message, mean over the day", [round(run.mean_ms, 2) for run in runs])
    plot.add("a start, from the latest snapshot", [round(1000 * s, 1) for _, s, _ in starts])
    plot.add("a start replaying the whole record", [round(1000 * w, 1) for _, _, w in starts])
    CHART.write_bytes(plot.render())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes, to try it out")
    args = parser.parse_args()
    sizes = (100, 300, 1000) if args.quick else (300, 3000, 10000)
    records = (2000, 10000, 20000) if args.quick else (10000, 100000, 200000)

    print("per message (a ballot and STATUS, taken in one by one through a day):")
    runs = [per_message(n) for n in sizes]
    for run in runs:
        print(f"  {run.messages:6} messages: mean {run.mean_ms:6.2f} ms, last tenth "
              f"{run.last_tenth_ms:6.2f} ms, {run.statements:5.1f} SQL statements each")
    print(f"  growth: {runs[-1].mean_ms / runs[0].mean_ms:.2f}x the mean at {sizes[0]} "
          "(the bound is 1.3x)")

    print("start-up (open the game, read its state), best of three:")
    whole_record = long_record(records[-1])
    starts: list[tuple[int, float, float]] = []
    for size in records:
        with tempfile.TemporaryDirectory() as tmp:
            snapshots = start_up(Path(tmp), stored(Path(tmp), whole_record[:size], 2000))
        with tempfile.TemporaryDirectory() as tmp:
            whole = start_up(Path(tmp), stored(Path(tmp), whole_record[:size], 0))
        starts.append((size, snapshots, whole))
        print(f"  {size:7} events: {snapshots:6.3f} s with snapshots, {whole:6.3f} s "
              "replaying the whole record (the bound is 1 s)")

    print("the reminder round (300 players, 100 open proposals):")
    remind, remind_longest, close, close_longest, mails = reminder_round()
    print(f"  reminders: {remind:.2f} s, longest transaction {remind_longest:.2f} s; "
          f"close of all: {close:.2f} s, longest transaction {close_longest:.2f} s "
          f"(the bound is 1 s); {mails} private events")
    chart(runs, starts)
    print(f"chart: {CHART}")


if __name__ == "__main__":
    main()
