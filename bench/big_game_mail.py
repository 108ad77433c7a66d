"""A big game's mail: the reminder round and the close, 1,000 players and 200 open proposals.

Through ``GameService`` on SQLite (WAL, synchronous=FULL), so each figure includes composing
the mail and queueing it in the outbox in the tick's transaction. Printed side by side:

- **before**: the reminders as they were, one per player per vote they owe (the old round,
  put back for this run);
- **now**: one reminder per player listing everything they owe.

For each: the reminder round (events, mails, seconds) and the close of all 200 with results
rendered and queued (seconds, mails, bytes), and the mail bytes each player receives in each
round (a message's bytes counted once per recipient).

Run: .venv/bin/python bench/big_game_mail.py [--players N] [--proposals N] [--ballots N]
"""

from __future__ import annotations

import argparse
import random
import secrets
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from speakerbot.adapters.store import Store
from speakerbot.config import parse_settings
from speakerbot.engine import apply, deadlines
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.evolve import evolve
from speakerbot.engine.luck import SeededDraws
from speakerbot.engine.model import Choice
from speakerbot.engine.play import Play
from speakerbot.engine.reminders import remind_round
from speakerbot.service import GameService
from speakerbot.service.unit_of_work import open_unit

SPEAKER = "speaker@bench.test"
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)


def legacy_round(play: Play, _number: int = 0) -> None:
    """The reminders as they were: each vote due, one event (and mail) per voter who owes it."""
    state = play.state
    before = state.rules_mechanics.reminder_before
    assert before is not None
    for proposal in state.open_proposals():
        if proposal.reminded or proposal.closes_at is None \
                or proposal.closes_at - before > play.now:
            continue
        play.emit(e.RemindersSent(play.now, proposal.number))
        for voter in state.voters():
            if voter not in proposal.ballots and voter not in state.absences:
                play.emit(e.VoteReminder(play.now, proposal.number, voter, proposal.closes_at))


@dataclass
class Round:
    """What one tick did: its events, the mail it queued and how long it took."""

    seconds: float
    events: int
    reminded: int
    mails: Counter[str]
    bytes_sent: int  # each message's bytes once per recipient
    players: int

    def line(self, label: str) -> str:
        """One line of the table."""
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.mails.items()))
        return (f"  {label:<26} {self.seconds:7.2f} s  {self.events:7} events "
                f"({self.reminded} reminder events)  {sum(self.mails.values()):5} mails "
                f"({kinds})  {self.bytes_sent / 1e6:8.1f} MB sent, "
                f"{self.bytes_sent / self.players / 1024:7.1f} KB per player")


def play(folder: Path, players: int, proposals: int, ballots: int) -> tuple[Round, Round]:
    """Set up the big game, then time its reminder round and the close of every vote."""
    settings = parse_settings({
        "game": {"name": "Bench", "ruleset": "nomicam", "address": "game@bench.test",
                 "speaker": SPEAKER, "speaker_name": "Speaker", "admin_password": "pw"},
        "mechanics": {"win_points": "1000000"},
        "database": {"url": f"sqlite:///{folder / 'bench.db'}"},
        "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
    }, path=folder / "bench.toml", environ={})
    store = Store(settings.database.url)
    store.upgrade()
    clock = [T0]
    service = GameService(store, settings, rng=random.Random(1), clock=lambda: clock[0])
    service.start_game()
    _seed(service, players, proposals, ballots)
    state = service.state()
    closes = sorted(p.closes_at for p in state.open_proposals() if p.closes_at)
    before = state.rules_mechanics.reminder_before
    assert before is not None
    rounds = []
    for now in (closes[-1] - before + timedelta(minutes=1), closes[-1] + timedelta(minutes=1)):
        clock[0] = now
        queued = {row.id for row in store.due_outbox(now, limit=10**7)}
        started = time.perf_counter()
        events = service.tick(now)
        seconds = time.perf_counter() - started
        rows = [row for row in store.due_outbox(now, limit=10**7) if row.id not in queued]
        rounds.append(Round(
            seconds, len(events),
            sum(isinstance(ev, e.VoteReminder | e.JudgeReminder | pe.Reminded) for ev in events),
            Counter(row.kind for row in rows),
            sum(len(row.raw) * len(row.recipients) for row in rows), players))
    store.close()
    return rounds[0], rounds[1]


def _seed(service: GameService, players: int, proposals: int, ballots: int) -> None:
    """Register the players, submit the proposals and cast the ballots, in one transaction.

    The setup is not what is measured: it is applied with the engine and committed without
    announcing it (through the service's own commit), the ballots folded in as the engine
    records them (casting each through ``apply`` would copy the big state each time).
    """
    rng = random.Random(2)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    voters = [f"v{i}@bench.test" for i in range(players)]
    with open_unit(service.deps) as uow:
        state = uow.state()
        record: list[e.Event] = []
        for n, voter in enumerate(voters):
            state, events = apply(state, c.AddPlayer(SPEAKER, voter, f"Voter {n}"), T0, draws)
            record += events
        for n in range(proposals):
            # Over an hour, as a flood of proposals comes: their reminders fall due together.
            at = T0 + timedelta(seconds=3600 * n // proposals)
            state, events = apply(state, c.Propose(voters[n % players], f"Proposal {n}",
                                                   "Text of the proposal.\n"), at, draws)
            record += events
        for proposal in state.open_proposals():
            for voter in rng.sample(voters, ballots):
                cast = e.BallotCast(T0 + timedelta(hours=2), proposal.number, voter,
                                    rng.choice([Choice.FOR, Choice.AGAINST]),
                                    secrets.token_hex(16))
                evolve(state, cast)
                record.append(cast)
        uow.record(record, state, [])


def _run(label: str, round_: Callable[[Play, int], None], args: argparse.Namespace
         ) -> tuple[Round, Round]:
    # The tick looks its reminder round up in its module at each call: put one in for the run.
    names = vars(deadlines)
    saved = names["remind_round"]
    names["remind_round"] = round_
    try:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"  ({label}: set up)", flush=True)
            return play(Path(tmp), args.players, args.proposals, args.ballots)
    finally:
        names["remind_round"] = saved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--proposals", type=int, default=200)
    parser.add_argument("--ballots", type=int, default=100, help="ballots on each proposal")
    args = parser.parse_args()
    print(f"{args.players} players, {args.proposals} open proposals, {args.ballots} ballots "
          "on each (nomicam, SQLite)")
    before = _run("before", legacy_round, args)
    now = _run("now", remind_round, args)
    print("the reminder round:")
    print(before[0].line("before (one per vote)"))
    print(now[0].line("now (one per player)"))
    print(f"close of all {args.proposals}, results rendered and queued:")
    print(before[1].line("before"))
    print(now[1].line("now"))


if __name__ == "__main__":
    main()
