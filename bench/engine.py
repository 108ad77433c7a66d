"""Engine benchmark: how long apply, tick and replay take as a game grows. Prints figures.

First, at scale (1,000 players and 200 open proposals by default): one ballot applied, and
the close of every proposal with its results mail rendered and composed, each against the
bound of 1 s. Then a game played from the start, ballot by ballot.

Run: .venv/bin/python bench/engine.py [--voters N] [--proposals N] [--scale-players N]
     [--scale-proposals N] [--scale-ballots N]
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
from speakerbot.engine.luck import SeededDraws
from speakerbot.engine.model import Ballot, Choice
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import GameIdentity, Renderer, compose
from speakerbot.presets import load_preset
from speakerbot.resources import templates_dir


def at_scale(players: int, proposals: int, voters_each: int) -> None:
    """Print the cost of a ballot and of a close with its results rendered, in a big game.

    The game is built with the engine, except the sealed ballots on the open proposals, which
    are put straight into the state (casting each through ``apply`` would take minutes, and
    it is what is measured below, once the state is big).
    """
    rng = random.Random(2)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    now = datetime(2026, 1, 1, tzinfo=UTC)
    speaker = "speaker@example.org"
    # Reminders off: one per player and proposal, they are the big game's mail problem,
    # measured on their own; this is the close and its results.
    mechanics = {"win_points": "1000000", "reminder_before": "none"}
    state, _ = apply(GameState(), c.StartGame(speaker, load_preset("nomicam"), "Speaker",
                                               mechanics=mechanics), now, draws)
    voters = [f"v{i}@example.org" for i in range(players)]
    for i, voter in enumerate(voters):
        state, _ = apply(state, c.AddPlayer(speaker, voter, f"Voter {i}"), now, draws)
    for n in range(proposals):
        state, _ = apply(state, c.Propose(voters[n % players], f"Proposal {n}", "Text."), now,
                         draws)
    for proposal in state.open_proposals():
        for voter in rng.sample(voters, voters_each):
            proposal.ballots[voter] = Ballot(rng.choice([Choice.FOR, Choice.AGAINST]), now)
    first = state.open_proposals()[0].number
    times = []
    for voter in voters[:25]:
        t0 = time.perf_counter()
        state, _ = apply(state, c.CastBallot(voter, first, Choice.FOR), now, draws)
        times.append(time.perf_counter() - t0)
    times.sort()
    announcer = Announcer(GameIdentity("Bench", "game@example.org"), Renderer(templates_dir()))
    t0 = time.perf_counter()
    closed, events = tick(state, now + timedelta(days=8), draws)
    ticked = time.perf_counter() - t0
    outgoing = announcer.messages(events, closed, "e1", state)
    mails = [compose(announcer.identity, message, now)[1] for message in outgoing]
    rendered = time.perf_counter() - t0
    print(f"at scale: {players} players, {proposals} open proposals, {voters_each} ballots "
          "on each")
    print(f"  apply(ballot): median {1000 * times[len(times) // 2]:.1f} ms, "
          f"slowest {1000 * times[-1]:.1f} ms (the bound is 1 s)")
    print(f"  close all {proposals}: {len(events)} events in {1000 * ticked:.0f} ms; with "
          f"{len(mails)} mails rendered ({sum(map(len, mails)) // 1024} KB) "
          f"{1000 * rendered:.0f} ms (the bound is 1 s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--voters", type=int, default=50)
    parser.add_argument("--proposals", type=int, default=300)
    parser.add_argument("--scale-players", type=int, default=1000)
    parser.add_argument("--scale-proposals", type=int, default=200)
    parser.add_argument("--scale-ballots", type=int, default=100,
                        help="ballots on each open proposal at scale")
    args = parser.parse_args()
    at_scale(args.scale_players, args.scale_proposals, args.scale_ballots)
    rng = random.Random(1)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    now = datetime(2026, 1, 1, tzinfo=UTC)
    speaker = "speaker@example.org"
    state = GameState()
    record: list[Event] = []

    def do(command: c.Command) -> None:
        nonlocal state
        state, events = apply(state, command, now, draws)
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
        state, events = tick(state, now, draws)
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
