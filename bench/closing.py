"""Closing benchmark: how soon after a voting period ends its results reach the players.

Real ``speakerbot run`` workers on a real PostgreSQL, LMTP in (so the 2 s LMTP grace applies:
mail timestamped before the close may still be landing), an SMTP sink out. In each round,
every game gets its proposals, a few ballots on each, and waits for the close; the seconds
from each proposal's close (``closes_at`` in the game's state) to the arrival of the last
copy of its results are taken. Printed side by side, from the same run:

- **one game**: the proposals of one game closing together;
- **spread**: the same number of proposals over ``--spread`` games, closing within the
  moment it takes to hand them over (the goal: every result within 2.5 s of its close).

Run: .venv/bin/python bench/closing.py [--spread N] [--proposals N] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from speakerbot.config import load_games
from speakerbot.engine import commands as c
from speakerbot.entrypoints.opening import open_game
from tests.integration.game_harness import subject_of
from tests.integration.hosting_harness import HostedGame, Hosting, Worker
from tests.support.postgres import PostgresServer
from tests.support.smtp_sink import SmtpSink

PERIOD = 25
"""Seconds of a voting period: long enough to hand every game its proposals first."""
VOTERS = 10
BALLOTS = 4
"""Ballots cast on each proposal (by the first voters): their results reveal them."""


class Arrivals:
    """When each message reached the sink, looked at every 5 ms on a thread of its own."""

    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink
        self.seen: list[tuple[datetime, str]] = []  # (arrival, subject)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.005):
            messages = self.sink.messages
            now = datetime.now(UTC)
            for message in messages[len(self.seen):]:
                self.seen.append((now, subject_of(message)))

    def last_with(self, fragment: str) -> datetime | None:
        """When the last copy whose subject holds ``fragment`` arrived (None: none yet)."""
        times = [when for when, subject in self.seen if fragment in subject]
        return max(times) if times else None

    def wait_for(self, fragment: str, timeout: float) -> None:
        """Wait until a message whose subject holds ``fragment`` has arrived."""
        deadline = time.monotonic() + timeout
        while self.last_with(fragment) is None:
            assert time.monotonic() < deadline, f"nothing came with {fragment!r}"
            time.sleep(0.01)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def _setup(server: PostgresServer, root: Path, sink: SmtpSink, games: int,
           name: str) -> tuple[Hosting, list[HostedGame], Worker]:
    hosted = [HostedGame(f"{name}-{n:03d}", "nomicam",
                         (("reminder_before", "none"), ("voting_period", f"{PERIOD}s"),
                          ("win_points", "100000")))
              for n in range(games)]
    folder = root / name
    folder.mkdir()
    hosting = Hosting(folder, sink, server.url_for(server.create_database()), hosted,
                      more="\n[limits]\nreplies_per_day = 100000\nproposals_per_day = 100000"
                           "\npublic_per_hour = 100000\n")
    hosting.cli("init")
    for settings in load_games(hosting.config).games:
        with open_game(settings) as service:
            speaker = service.state().speaker
            for n in range(VOTERS):
                service.speaker_command(c.AddPlayer(speaker, f"p{n}@players.test", f"P{n}"))
    worker = hosting.worker()
    deadline = time.monotonic() + 120
    while not all(f"took the game {g.id} " in worker.log_text() for g in hosted):
        assert time.monotonic() < deadline, "the games were not all taken"
        time.sleep(0.2)
    return hosting, hosted, worker


def _round(hosting: Hosting, hosted: Sequence[HostedGame], arrivals: Arrivals,
           proposals: int, tag: str) -> list[float]:
    """Open ``proposals`` proposals over the games, vote, wait for the close; the delays."""
    per_game = proposals // len(hosted)
    titles = [(game, f"{tag} {game.id} n{n:02d}") for game in hosted for n in range(per_game)]
    for game, title in titles:
        hosting.send("p0@players.test", game.address, f"PROPOSE: {title}", "Text.\n")
    # Looked for in what the watcher parsed already (the sink's own wait parses everything,
    # every time it looks: a busy bench process would slow the sink it measures by).
    for _game, title in titles:
        arrivals.wait_for(f"Re: PROPOSE: {title}", 60)
    numbers: dict[str, int] = {}
    closes: dict[str, datetime] = {}
    for settings in load_games(hosting.config).games:
        with open_game(settings) as service:
            for number, proposal in service.state().proposals.items():
                if proposal.title.startswith(f"{tag} ") and proposal.closes_at is not None:
                    numbers[proposal.title], closes[proposal.title] = number, proposal.closes_at
    for game, title in titles:
        for voter in range(BALLOTS):
            hosting.send(f"p{voter}@players.test", game.address, f"vote {numbers[title]}",
                         f"VOTE {numbers[title]} FOR\n")
    deadline = time.monotonic() + PERIOD + 120
    delays: list[float] = []
    for _game, title in titles:
        fragment = f"Proposal {numbers[title]} "
        while True:
            arrived = [when for when, subject in arrivals.seen
                       if fragment in subject and title in subject
                       and ("ADOPTED" in subject or "REJECTED" in subject)]
            if len(arrived) >= VOTERS:  # a copy to every player
                break
            assert time.monotonic() < deadline, f"no results for {title}"
            time.sleep(0.05)
        delays.append((max(arrived) - closes[title]).total_seconds())
    return delays


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spread", type=int, default=20)
    parser.add_argument("--proposals", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, PostgresServer() as server, SmtpSink() as sink:
        root = Path(tmp)
        arrivals = Arrivals(sink)
        setups = {"one game": _setup(server, root, sink, 1, "one"),
                  f"over {args.spread} games": _setup(server, root, sink, args.spread,
                                                      "spread")}
        delays: dict[str, list[float]] = {name: [] for name in setups}
        for number in range(args.rounds):
            for name, (hosting, hosted, _) in setups.items():
                found = _round(hosting, hosted, arrivals, args.proposals, f"R{number}")
                delays[name] += found
                print(f"round {number + 1}, {name}: results {min(found):.2f}-{max(found):.2f} s "
                      "after the close", flush=True)
        for hosting, _, _ in setups.values():
            hosting.stop()
        arrivals.close()
    print(f"{args.proposals} proposals closing together, {args.rounds} rounds "
          "(seconds from the close to the last copy of the results; 2 s of LMTP grace):")
    for name, found in delays.items():
        print(f"  {name:>16}: median {statistics.median(found):.2f} s, "
              f"worst {max(found):.2f} s (goal: within 2.5 s)")


if __name__ == "__main__":
    main()
