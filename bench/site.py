"""Web archive benchmark: how long building the whole site takes as a game grows.

Plays a nomicam game on the engine (10 players, every proposal amending or enacting a
rule, every player voting, a CFJ every 25 proposals), then builds the site from its public
record (the fold, every page, the chart) and prints the time for a baseline of 50
proposals beside the game of 500, the best of 3 runs each (and the first, which compiles
the templates); the bound for 500 is 2 s. Writing the files and swapping them in is
timed apart. Beside each, the archive kept page by page (``KeptSite``, as the daemon keeps
it): the update after a proposal is distributed and after its vote closes, folded,
rendered and written into the live folder, the best of the game's last 3 of each.

``--large N ...`` adds games of N proposals among 50 players (160 give about 3,500 public
events, 2,400 about 50,000, 9,600 about 200,000; one build there). The engine could not
play those in reasonable time: ``--segment`` proposals (200) are played, and told again
with fresh numbers and moments up to N (``stretched``). The issue's aim: an update after
a close under 0.2 s at 200,000 events, and no more than 1.3 times its cost at 3,500.

Run: .venv/bin/python bench/site.py [--proposals N] [--baseline N] [--players N]
     [--large N ...] [--large-players N] [--segment N]
"""

from __future__ import annotations

import argparse
import itertools
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from speakerbot.engine import GameState, apply, chain, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_to_json
from speakerbot.engine.luck import SeededDraws
from speakerbot.engine.model import Choice, Clause, ClauseKind, Judgement
from speakerbot.presets import load_preset
from speakerbot.resources import templates_dir
from speakerbot.site import KeptSite, build_site, update_site, write_site

SPEAKER = "speaker@example.org"


def play(proposals: int, players: int) -> list[dict[str, Any]]:
    """Return the public record of a nomicam game of ``proposals`` closed proposals."""
    return list(chain.extend(chain.Head(), played(proposals, players)))


def played(proposals: int, players: int) -> list[dict[str, Any]]:
    """Return the public events of a nomicam game of ``proposals``, not yet chained."""
    rng = random.Random(5)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    now = datetime(2026, 1, 1, tzinfo=UTC)
    record: list[e.Event] = []
    state = GameState()

    def run(command: c.Command) -> None:
        nonlocal state
        state, events = apply(state, command, now, draws)
        assert not any(isinstance(ev, e.CommandRejected) for ev in events), events
        record.extend(events)

    run(c.StartGame(SPEAKER, load_preset("nomicam"), "Speaker",
                    mechanics={"win_points": "1000000", "reminder_before": "none",
                               "voting_period": "1h"}, game_id="bench"))
    voters = [f"p{i}@example.org" for i in range(players)]
    for i, voter in enumerate(voters):
        run(c.AddPlayer(SPEAKER, voter, f"Player {i}"))
    for n in range(proposals):
        # Only the rules it enacted are amended: a word added to a preset's rule may change
        # a mechanic it is read from (the voting period), and votes would stop closing.
        own = [rule for rule in state.rules.values() if rule.text.startswith("New rule")]
        target = rng.choice(own) if own else None
        clause = (Clause(ClauseKind.AMEND, target.number, target.text + f" Amended {n}.")
                  if n % 2 and target is not None else Clause(
                      ClauseKind.ENACT, None,
                      f"New rule {n}: players may do a thing they could not do before."))
        run(c.Propose(voters[n % players], f"Proposal number {n}",
                      f"Text of proposal {n}.\n" * 5, (clause,)))
        number = max(state.proposals)
        for voter in voters:
            if voter != state.speaker:  # a win may hand a player the Speaker's role
                run(c.CastBallot(voter, number,
                                 rng.choice([Choice.FOR, Choice.FOR, Choice.AGAINST])))
        if n % 25 == 0:
            run(c.CallForJudgement(voters[n % players], f"Statement {n}.", "Arguments."))
            cfj = max(state.cfjs)
            judge = state.cfjs[cfj].judge or SPEAKER
            run(c.DeliverJudgement(judge, cfj, Judgement.TRUE, "Reasons."))
        now += timedelta(hours=1, minutes=1)
        state, events = tick(state, now, draws)
        record.extend(events)
    data = []
    for event in record:
        if event.public:
            item = event_to_json(event)
            if isinstance(event, e.VoteClosed) and not item.get("salts"):
                item["salts"] = [[voter, f"{i:032x}"] for i, (voter, _) in
                                 enumerate(event.ballots)]
            data.append(item)
    return data


def stretched(proposals: int, players: int, segment: int) -> list[dict[str, Any]]:
    """Return the public record of a game of ``proposals``, of which ``segment`` are played.

    The engine copies its state for every command, and the state holds every proposal:
    playing 10,000 proposals would take hours. So a game of ``segment`` proposals is played,
    and what followed its first proposal is told again and again, each time with the
    proposals, rules and CFJs numbered on and the moments moved on: a record each of whose
    events the fold reads as the engine would have written it.
    """
    data = played(min(proposals, segment), players)
    first = next(n for n, item in enumerate(data) if item["type"] == "ProposalSubmitted")
    cycle, made = data[first:], min(proposals, segment)
    step = sum(item["type"] == "ProposalSubmitted" for item in cycle)
    cfjs = sum(item["type"] == "CfjCalled" for item in cycle)
    lasted = _moment(cycle[-1]["at"]) - _moment(cycle[0]["at"]) + timedelta(hours=1, minutes=1)
    copies = 0
    while made < proposals:
        copies += 1
        taken = cycle[:next((n for n, item in enumerate(cycle) if item["type"] ==
                             "ProposalSubmitted" and item["number"] >= cycle[0]["number"]
                             + proposals - made), len(cycle))]
        data.extend(_renumbered(item, copies * step, copies * cfjs, copies * lasted)
                    for item in taken)
        made += step
    return list(chain.extend(chain.Head(), data))


_NUMBERED = {"ProposalSubmitted": ("number",), "VoteClosed": ("proposal",),
             "RuleEnacted": ("number", "proposal"),
             "RuleAmended": ("number", "new_number", "proposal"), "ScoreChanged": ("proposal",)}
_TIMED = ("at", "closes_at", "deadline")


def _renumbered(item: dict[str, Any], proposals: int, cfjs: int,
                later: timedelta) -> dict[str, Any]:
    """Return an event of the played game told again: numbered on, at a later moment.

    Every rule the bench's proposals enact takes its proposal's number, and only those are
    amended: a rule's number moves as its proposal's does.
    """
    item = dict(item)
    for key in _NUMBERED.get(item["type"], ()):
        if item.get(key) is not None:
            item[key] += proposals
    if item["type"] in ("CfjCalled",):
        item["number"] += cfjs
    elif item.get("cfj") is not None:
        item["cfj"] += cfjs
    for key in _TIMED:
        if item.get(key):
            item[key] = (_moment(item[key]) + later).isoformat()
    if item["type"] == "ProposalSubmitted":
        item["clauses"] = [{**clause, "rule": clause["rule"] + proposals}
                           if clause.get("rule") is not None else clause
                           for clause in item["clauses"]]
    if item["type"] == "ScoreChanged" and item.get("proposal") is not None:
        item["reason"] = item["reason"].replace(f"proposal {item['proposal'] - proposals} ",
                                                f"proposal {item['proposal']} ")
    return item


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def measure(lines: list[dict[str, Any]],
            runs: int = 3) -> tuple[float, float, float, dict[str, bytes]]:
    """Return the first and the best of ``runs`` build times, the best write time, the files."""
    folder = templates_dir() / "site"
    times, writes, files = [], [], {}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(runs):
            started = time.perf_counter()
            files = build_site(lines, folder, name="Bench Nomic")
            built = time.perf_counter()
            write_site(files, Path(scratch) / "site")
            times.append(built - started)
            writes.append(time.perf_counter() - built)
    return times[0], min(times), min(writes), files


def measure_updates(lines: list[dict[str, Any]], cycles: int = 3) -> dict[str, float]:
    """Return the best time of keeping the site after one proposal and after one close.

    The site is kept (``KeptSite``) up to the distribution of the record's ``cycles``-th
    last proposal, then given, for each of the last ``cycles`` proposals, its line, what
    followed up to its close, and the close's lines up to the next proposal: the updates
    timed are the proposal's and the close's, each folded, rendered and written into the
    live folder (``update_site``). One build for every cycle: at 200,000 events a build
    takes a minute.
    """
    submitted = [n for n, line in enumerate(lines) if line["type"] == "ProposalSubmitted"]
    times: dict[str, list[float]] = {"proposal": [], "close": [], "files": []}
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "site"
        site = KeptSite(templates_dir() / "site", name="Bench Nomic")
        write_site(site.build(lines[:submitted[-cycles]]), target)
        for start, stop in itertools.pairwise([*submitted[-cycles:], len(lines)]):
            close = next(n for n in range(start, stop) if lines[n]["type"] == "VoteClosed")
            for name, piece in (("proposal", lines[start:start + 1]),
                                ("", lines[start + 1:close]), ("close", lines[close:stop])):
                started = time.perf_counter()
                update = site.update(piece)
                update_site(update.files, target, removed=update.removed, record=update.record)
                if name:
                    times[name].append(time.perf_counter() - started)
                    times["files"].append(len(update.files))
    return {name: min(found) if name != "files" else max(found)
            for name, found in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proposals", type=int, default=500)
    parser.add_argument("--baseline", type=int, default=50)
    parser.add_argument("--large", type=int, nargs="*", default=[], help="also games of "
                        "these many proposals among --large-players (160: about 3,500 "
                        "events, 2400: 50,000, 9600: 200,000)")
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--large-players", type=int, default=50)
    parser.add_argument("--segment", type=int, default=200, help="a large game's proposals "
                        "played; those beyond are told again, numbered on (stretched)")
    args = parser.parse_args()
    for count in (args.baseline, args.proposals, *args.large):
        large = count in args.large and count not in (args.baseline, args.proposals)
        lines = (stretched(count, args.large_players, args.segment) if large
                 else play(count, args.players))
        runs = 1 if large else 3
        first, best, write, files = measure(lines, runs)
        size = sum(len(content) for content in files.values())
        bound = " (bound: 2 s)" if count == args.proposals else ""
        print(f"{count:>5} proposals, {len(lines):>6} public events: {len(files)} files "
              f"({size / 1e6:.1f} MB) built in {best:.2f} s{bound}, the first time "
              f"{first:.2f} s; written and swapped in {write:.2f} s", flush=True)
        kept = measure_updates(lines)
        print(f"{'':>5} kept page by page: after one proposal {kept['proposal']:.3f} s, after "
              f"one close {kept['close']:.3f} s (at most {kept['files']:.0f} files written), "
              f"against {best + write:.2f} s built whole and swapped in", flush=True)

if __name__ == "__main__":
    main()
