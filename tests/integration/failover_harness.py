"""The failover tests' shared parts: three hosted games, two workers, and waits on them.

Two ``speakerbot run`` workers share the games through PostgreSQL: test_failover.py kills
one (SIGKILL), test_frozen_workers.py freezes one (SIGSTOP). Split by that seam so that two
pytest workers share the slowest tests of the suite.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.integration.game_harness import subject_of
from tests.integration.hosting_harness import HostedGame, Hosting, Worker
from tests.support.patience import patience, period
from tests.support.smtp_sink import SmtpSink

ALICE, BOB, CAROL = "alice@players.test", "bob@players.test", "carol@players.test"
DAVE = "dave@players.test"  # who never votes, so that the vote runs its whole period
QUIET = (("reminder_before", "none"),)
ALPHA = HostedGame("alpha", "nomicam", (("voting_period", period(30)), *QUIET))
LEASE = period(2)
"""The workers' lease where the default's 10 s would only make a test longer."""
BETA = HostedGame("beta", "suber", QUIET)
GAMMA = HostedGame("gamma", "locked-open", QUIET)
GAMES = (ALPHA, BETA, GAMMA)


def hosting_for(folder: Path, sink: SmtpSink, url: str, lease: str | None) -> Hosting:
    """Three games (alpha, beta, gamma), each with Alice, Bob, Carol and Dave."""
    hosting = Hosting(folder, sink, url, GAMES, workers_lease=lease)
    hosting.cli("init")
    for game in GAMES:
        for address, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")):
            hosting.cli("player", "add", address, name, game=game.id)
    return hosting


def holders(hosting: Hosting) -> dict[str, str | None]:
    """Return each game's holder, as `speakerbot games --json` names it."""
    rows = json.loads(hosting.cli("games", "--json").stdout)
    return {row["id"]: row["worker"] for row in rows}


def worker_of(hosting: Hosting, holder: str | None) -> Worker | None:
    """Return the worker a holder's name is, if one of ours."""
    for worker in hosting.workers:
        assert worker.process is not None
        if holder is not None and holder.endswith(f" pid {worker.process.pid}"):
            return worker
    return None


def wait_spread(hosting: Hosting, timeout: float = patience(30)) -> dict[str, Worker]:
    """Wait until every game is held and both workers hold some; return each game's worker."""
    deadline = time.monotonic() + timeout
    while True:
        held = {game: worker_of(hosting, holder) for game, holder in holders(hosting).items()}
        owners = {id(worker) for worker in held.values() if worker is not None}
        if None not in held.values() and len(owners) == len(hosting.workers):
            return {game: worker for game, worker in held.items() if worker is not None}
        assert time.monotonic() < deadline, f"games not spread: {held}"
        time.sleep(0.2)


def two_workers(hosting: Hosting) -> tuple[Worker, Worker]:
    """Start two workers; once they share the games, return alpha's holder and the other."""
    hosting.worker()
    hosting.worker()
    holder = wait_spread(hosting)[ALPHA.id]
    return holder, next(worker for worker in hosting.workers if worker is not holder)


def wait_taken(hosting: Hosting, game: str, by: Worker, timeout: float) -> None:
    """Wait until ``by`` holds ``game``."""
    deadline = time.monotonic() + timeout
    while worker_of(hosting, holders(hosting)[game]) is not by:
        assert time.monotonic() < deadline, f"{game} was not taken over"
        time.sleep(0.2)


def replies(hosting: Hosting, subject: str, to: str) -> int:
    """Count the replies to ``subject`` that reached ``to``."""
    return len(hosting.sent(f"Re: {subject}", to=to))



def copies_each(hosting: Hosting, subject: str) -> dict[str, int]:
    """How many copies of the mail titled ``subject`` each recipient got."""
    counts: dict[str, int] = {}
    for copy in hosting.sink.messages:
        if subject_of(copy) == subject:
            for recipient in copy.rcpt_tos:
                counts[recipient] = counts.get(recipient, 0) + 1
    return counts

