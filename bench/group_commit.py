"""Group commit benchmark: LMTP's parallel deliveries stored one commit each, or together.

A mail server delivers a burst over several LMTP connections at once; each delivery waits
for its message to be stored (a commit) before it is answered 250. This bench stores
``--messages`` ballot messages into one game through ``GameService.receive``, from
``--connections`` threads at once, on SQLite in WAL mode with ``synchronous = FULL`` (as
the daemon runs it: each commit an fsync), two ways, in turn for ``--rounds`` rounds:

- **one by one**: each message in a commit of its own (as before issue 41);
- **grouped**: the messages that arrive while a commit is under way share the next one
  (``speakerbot.service.grouping``, what the daemon does now).

Prints each round, the median messages/s of each way, their ratio, and how many messages
a grouped commit held on average. Every message is stored once either way.

Run: .venv/bin/python bench/group_commit.py [--messages N] [--connections N] [--rounds N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from speakerbot.adapters.store import Store
from speakerbot.config import parse_settings
from speakerbot.engine import commands as c
from speakerbot.service import GameService
from speakerbot.service.grouping import GroupCommit

NOW = datetime(2026, 1, 1, tzinfo=UTC)
VOTERS = [f"v{i}@bench.test" for i in range(20)]


class OneByOne:
    """The way before: each caller commits its own item alone."""

    commits = 0

    def submit(self, item: Any, commit: Callable[[Sequence[Any]], Sequence[Any]]) -> Any:
        """Commit ``item`` in a commit of its own."""
        self.commits += 1
        return commit([item])[0]


def _mail(sender: str, n: int) -> bytes:
    return ("Authentication-Results: mx.bench.test; dmarc=pass header.from=bench.test\r\n"
            f"From: {sender}\r\nTo: game@bench.test\r\nSubject: vote\r\n"
            "Date: Thu, 01 Jan 2026 00:00:00 +0000\r\n"
            f"Message-ID: <bench-{n}@bench.test>\r\n\r\nVOTE 301 FOR\r\n").encode()


def _service(folder: Path) -> tuple[Store, GameService]:
    settings = parse_settings({
        "game": {"name": "Bench", "ruleset": "nomicam", "address": "game@bench.test",
                 "speaker": "speaker@bench.test", "speaker_name": "Speaker"},
        "database": {"url": f"sqlite:///{folder / 'bench.db'}"},
        "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
        "auth": {"authserv_id": ["mx.bench.test"]},
    }, path=folder / "bench.toml", environ={})
    store = Store(settings.database.url)
    store.upgrade()
    service = GameService(store, settings, rng=random.Random(1), clock=lambda: NOW)
    service.start_game()
    for i, voter in enumerate(VOTERS):
        service.speaker_command(c.AddPlayer("speaker@bench.test", voter, f"Voter {i}"))
    return store, service


def one_round(grouped: bool, messages: int, connections: int) -> tuple[float, float]:
    """Store the burst one way; return messages a second and messages per commit."""
    with tempfile.TemporaryDirectory() as tmp:
        store, service = _service(Path(tmp))
        way: Any = GroupCommit() if grouped else OneByOne()
        service.deps.intake_commits = way
        raws = [_mail(VOTERS[n % len(VOTERS)], n) for n in range(messages)]
        began = time.perf_counter()
        with ThreadPoolExecutor(connections) as pool:
            stored = list(pool.map(lambda raw: service.receive(raw, NOW, source="lmtp"),
                                   raws))
        took = time.perf_counter() - began
        assert not any(place.duplicate for place in stored)
        assert len(store.list_inbound(limit=messages + 1)) == messages
        store.close()
    return messages / took, messages / max(way.commits, 1)


def main() -> None:
    """Run both ways in turn and print their figures side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rates: dict[bool, list[float]] = {False: [], True: []}
    held: list[float] = []
    for n in range(args.rounds):
        for grouped in (False, True):
            rate, per_commit = one_round(grouped, args.messages, args.connections)
            rates[grouped].append(rate)
            if grouped:
                held.append(per_commit)
            print(f"round {n + 1}: {'grouped' if grouped else 'one by one':<10} "
                  f"{rate:7.0f} messages/s, {per_commit:4.1f} messages a commit")
    alone, together = (statistics.median(rates[way]) for way in (False, True))
    print(f"{args.messages} messages over {args.connections} connections, SQLite WAL "
          f"synchronous=FULL, median of {args.rounds}:")
    print(f"  one commit each: {alone:7.0f} messages/s")
    print(f"  group commit:    {together:7.0f} messages/s ({together / alone:.2f} times; "
          f"{statistics.median(held):.1f} messages a commit)")


if __name__ == "__main__":
    main()
