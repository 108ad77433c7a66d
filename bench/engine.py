"""Engine benchmark: how long apply, tick and replay take as a game grows. Prints figures.

Run: .venv/bin/python bench/engine.py [--voters N] [--proposals N]
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import UTC, datetime, timedelta

from speakerbot.engine import GameState, apply, replay, tick
from speakerbot.engine import commands as c
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.events import Event
from speakerbot.engine.model import Choice
from speakerbot.presets import load_preset


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--voters", type=int, default=50)
    parser.add_argument("--proposals", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(1)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    speaker = "speaker@example.org"
    state = GameState()
    record: list[Event] = []

    def do(command: c.Command) -> None:
        nonlocal state
        state, events = apply(state, command, now, rng)
        record.extend(events)

    do(c.StartGame(speaker, load_preset("nomicam"), "Speaker",
                   mechanics={"win_points": "1000000"}))
    voters = [f"v{i}@example.org" for i in range(args.voters)]
    for i, voter in enumerate(voters):
        do(c.AddPlayer(speaker, voter, f"Voter {i}"))

    ballot_times: list[float] = []
    started = time.perf_counter()
    for n in range(args.proposals):
        do(c.Propose(voters[n % len(voters)], f"Proposal {n}", "Text."))
        number = state.next_proposal - 1
        for voter in voters:
            t0 = time.perf_counter()
            do(c.CastBallot(voter, number, rng.choice([Choice.FOR, Choice.AGAINST])))
            ballot_times.append(time.perf_counter() - t0)
        now += timedelta(days=7)
        state, events = tick(state, now, rng)
        record.extend(events)
    played = time.perf_counter() - started

    t0 = time.perf_counter()
    rebuilt = replay(record)
    replay_s = time.perf_counter() - t0
    assert rebuilt == state
    t0 = time.perf_counter()
    stored = [event_to_json(event) for event in record]
    decoded = [event_from_json(data) for data in stored]
    codec_s = time.perf_counter() - t0
    assert decoded == record

    ballot_times.sort()
    print(f"game: {args.voters} voters, {args.proposals} proposals, {len(record)} events")
    print(f"played in {played:.2f} s")
    print(f"apply(ballot): median {1000 * ballot_times[len(ballot_times) // 2]:.2f} ms, "
          f"p99 {1000 * ballot_times[int(len(ballot_times) * 0.99)]:.2f} ms, "
          f"slowest {1000 * ballot_times[-1]:.2f} ms (a garbage collection may fall in it)")
    print(f"replay: {replay_s * 1000:.1f} ms ({1e6 * replay_s / len(record):.1f} us/event)")
    print(f"JSON round trip of the record: {codec_s * 1000:.1f} ms")


if __name__ == "__main__":
    main()
