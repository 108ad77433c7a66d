"""Hosting benchmark: many games in one daemon, bursts across games, two workers, failover.

Real ``speakerbot run`` processes on a real PostgreSQL, LMTP in, an SMTP sink out. Printed,
each beside its baseline from the same run:

1. **idle**: resident memory and CPU over a quiet spell, 100 games against 1 game
   (goal: under 150 MB and 0.1 CPU-s per 10 s with 100 games);
2. **burst**: the same ballots, one per message, into one game against spread over 50
   games, with one worker (goal: the spread rate at least 0.9 of the one game's);
3. **two workers**: the spread burst again with two workers sharing the 50 games, the
   ballots handed to both listeners;
4. **failover**: seconds from SIGKILL of the worker holding a game to the first reply from
   that game by the other worker (goal: under 15 s with the default lease of 10 s).

A ballot's rate counts from the first message handed over to the last reply in the sink.

The bursts run in rounds, interleaved (one game, fifty, fifty on two workers, and again):
a median of each, since this shared machine's speed drifts by a third from minute to minute.

Run: .venv/bin/python bench/hosting.py [--games N] [--ballots N] [--rounds N] [--quiet-seconds N]
"""

from __future__ import annotations

import argparse
import signal
import statistics
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bench.processes import cpu_seconds, resident_mb
from speakerbot.config import load_games
from speakerbot.engine import commands as c
from speakerbot.entrypoints.opening import open_game
from tests.integration.game_harness import subject_of
from tests.integration.hosting_harness import HostedGame, Hosting, Worker
from tests.support.postgres import PostgresServer
from tests.support.smtp_sink import SmtpSink

QUIET = (("reminder_before", "none"), ("voting_period", "2d"))
VOTERS = 20
NO_LIMITS = """
[limits]
replies_per_day = 100000
proposals_per_day = 100000
public_per_hour = 100000
"""
"""A burst is many ballots from few players: the daily limits of a real game stay out of it."""


def _games(count: int, prefix: str) -> list[HostedGame]:
    return [HostedGame(f"{prefix}{n:03d}", "nomicam", QUIET) for n in range(count)]


def _hosting(server: PostgresServer, folder: Path, sink: SmtpSink,
             games: Sequence[HostedGame], players: int, lease: str | None = None) -> Hosting:
    """A database with ``games`` started, each with ``players`` players (added in-process)."""
    folder.mkdir()
    hosting = Hosting(folder, sink, server.url_for(server.create_database()), games,
                      workers_lease=lease, more=NO_LIMITS)
    hosting.cli("init")
    config = load_games(hosting.config)
    for settings in config.games:
        with open_game(settings) as service:
            speaker = service.state().speaker
            for n in range(players):
                service.speaker_command(c.AddPlayer(speaker, f"p{n}@players.test", f"P{n}"))
    return hosting


def _start(hosting: Hosting, games: Sequence[HostedGame], workers: int = 1) -> list[Worker]:
    started = [hosting.worker() for _ in range(workers)]
    deadline = time.monotonic() + 120
    while not all(any(f"took the game {g.id} " in w.log_text() for w in started) for g in games):
        assert time.monotonic() < deadline, "the games were not all taken"
        time.sleep(0.2)
    return started


def idle(server: PostgresServer, root: Path, sink: SmtpSink, count: int,
         quiet: float) -> tuple[float, float]:
    """Return (resident MB, CPU-s per 10 s) of one worker holding ``count`` idle games."""
    games = _games(count, f"idle{count}-")
    hosting = _hosting(server, root / f"idle-{count}", sink, games, players=0)
    [worker] = _start(hosting, games)
    assert worker.process is not None
    time.sleep(5)  # let start-up settle
    before = cpu_seconds(worker.process.pid)
    time.sleep(quiet)
    cpu = (cpu_seconds(worker.process.pid) - before) * 10 / quiet
    memory = resident_mb(worker.process.pid)
    hosting.stop()
    return memory, cpu


@dataclass
class Burst:
    """Games ready for bursts of ballots: started, with their voters and open proposals."""

    hosting: Hosting
    games: list[HostedGame]
    workers: list[Worker]
    proposals: int
    voters: int = VOTERS
    rounds: int = 0
    cpu: list[float] = field(default_factory=list)
    """The workers' CPU milliseconds a ballot, in each burst."""

    def run(self, ballots: int) -> float:
        """Hand ``ballots`` ballots, one a message, to the games; return ballots a second.

        Each round changes every ballot (FOR, then AGAINST, ...): each message is read,
        counted and answered like the first.
        """
        self.rounds += 1
        choice = "FOR" if self.rounds % 2 else "AGAINST"
        sink = self.hosting.sink
        jobs = [(f"p{v}@players.test", game.address, 301 + n,
                 self.workers[(i + v) % len(self.workers)])
                for i, game in enumerate(self.games) for n in range(self.proposals)
                for v in range(self.voters)][:ballots]
        want = len(sink.messages) + len(jobs)
        spent = self._workers_cpu()
        began = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda job: self.hosting.send(
                job[0], job[1], f"vote {job[2]}", f"VOTE {job[2]} {choice}\n",
                worker=job[3]), jobs))
        _wait(sink, want, 600)
        took = time.monotonic() - began
        self.cpu.append((self._workers_cpu() - spent) * 1000 / len(jobs))
        return len(jobs) / took

    def _workers_cpu(self) -> float:
        return sum(cpu_seconds(worker.process.pid) for worker in self.workers
                   if worker.process is not None)


def ready(server: PostgresServer, root: Path, sink: SmtpSink, games: int, ballots: int,
          workers: int, name: str) -> Burst:
    """Start ``games`` games on ``workers`` workers, each with its share of open proposals.

    One game and fifty hold the same number of open proposals and the same voters, so
    that a burst of ``ballots`` is the same work: each message a ballot, each answered.
    """
    hosted = _games(games, f"{name}-")
    proposals = max(1, ballots // games // VOTERS)
    hosting = _hosting(server, root / name, sink, hosted, players=VOTERS)
    started = _start(hosting, hosted, workers)
    _settle(sink)  # the players' welcome mail, queued before the workers started
    # Each proposal: its distribution, and the reply to its proposer.
    want = len(sink.messages) + 2 * games * proposals
    for game in hosted:
        for n in range(proposals):
            hosting.send(f"p{n % VOTERS}@players.test", game.address, f"PROPOSE: P{n}",
                         f"Text {n}.\n", worker=started[0])
    _wait(sink, want, 120)
    return Burst(hosting, hosted, started, proposals)


def _settle(sink: SmtpSink, quiet: float = 2.0) -> None:
    """Wait until the sink has received nothing for ``quiet`` seconds."""
    seen, since = -1, time.monotonic()
    while time.monotonic() - since < quiet:
        if len(sink.messages) != seen:
            seen, since = len(sink.messages), time.monotonic()
        time.sleep(0.1)


def _wait(sink: SmtpSink, count: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while len(sink.messages) < count:
        assert time.monotonic() < deadline, f"{len(sink.messages)} of {count} messages"
        time.sleep(0.05)


def failover(server: PostgresServer, root: Path, sink: SmtpSink) -> float:
    """Return the seconds from SIGKILL of a game's worker to its first reply from another."""
    games = _games(4, "fail-")
    hosting = _hosting(server, root / "failover", sink, games, players=1)
    started = _start(hosting, games, workers=2)
    victim = started[0]
    other = started[1]
    mine = [g for g in games if f"took the game {g.id} " in victim.log_text()]
    assert mine, "the first worker holds no game"
    victim.signal(signal.SIGKILL)
    killed = time.monotonic()
    hosting.send("p0@players.test", mine[0].address, "after the kill", "STATUS\n",
                 worker=other)
    hosting.wait_for(lambda m: "Re: after the kill" in subject_of(m), timeout=60)
    took = time.monotonic() - killed
    hosting.stop()
    return took


def _report(rates: dict[str, list[float]], cpu: dict[str, list[float]], ballots: int,
            spread_over: int) -> None:
    """Print each burst's median rate, its rounds, and the ratios the goals speak of.

    Beside them, the workers' CPU a ballot: on a machine of few cores, what a burst over
    many games costs the worker more than one game's is where its rate goes.
    """
    one, spread, two = (statistics.median(rates[name]) for name in ("one", "spread", "two"))
    shown = {name: ", ".join(f"{rate:.0f}" for rate in values) for name, values in rates.items()}
    print(f"bursts of {ballots} ballots, the median of {len(rates['one'])} interleaved rounds:")
    print(f"  one game, one worker:        {one:6.1f} ballots/s ({shown['one']})")
    print(f"  over {spread_over} games, one worker:   {spread:6.1f} ballots/s "
          f"({shown['spread']}): {spread / one:.2f} of one game's (goal: at least 0.9)")
    print(f"  over {spread_over} games, two workers:  {two:6.1f} ballots/s "
          f"({shown['two']}): {two / spread:.2f} of one worker's")
    spent = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"  the workers' CPU a ballot (median): one game {spent['one']:.2f} ms, over "
          f"{spread_over} games {spent['spread']:.2f} ms ({spent['spread'] / spent['one']:.2f} "
          f"times), two workers {spent['two']:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--ballots", type=int, default=1000)
    parser.add_argument("--spread", type=int, default=50)
    parser.add_argument("--quiet-seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, PostgresServer() as server, SmtpSink() as sink:
        root = Path(tmp)
        one_mb, one_cpu = idle(server, root, sink, 1, args.quiet_seconds)
        many_mb, many_cpu = idle(server, root, sink, args.games, args.quiet_seconds)
        print(f"idle, 1 game:        {one_mb:6.1f} MB resident, {one_cpu:.3f} CPU-s per 10 s")
        print(f"idle, {args.games} games:    {many_mb:6.1f} MB resident, {many_cpu:.3f} CPU-s "
              "per 10 s (goal: under 150 MB and 0.1 CPU-s)")
        setups = {"one": ready(server, root, sink, 1, args.ballots, 1, "one"),
                  "spread": ready(server, root, sink, args.spread, args.ballots, 1, "spread"),
                  "two": ready(server, root, sink, args.spread, args.ballots, 2, "two")}
        rates: dict[str, list[float]] = {name: [] for name in setups}
        for _ in range(args.rounds):  # interleaved, so that the machine's moods fall on all
            for name, setup in setups.items():
                rates[name].append(setup.run(args.ballots))
        for setup in setups.values():
            setup.hosting.stop()
        _report(rates, {name: setup.cpu for name, setup in setups.items()}, args.ballots,
                args.spread)
        print(f"failover, default lease: first reply {failover(server, root, sink):.1f} s after "
              "the kill (goal: under 15 s)")


if __name__ == "__main__":
    main()
