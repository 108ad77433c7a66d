"""Two ``speakerbot run`` workers share three games through PostgreSQL, and take over.

Real processes, a real PostgreSQL, LMTP in and an SMTP sink out. A worker killed (SIGKILL)
loses its games when its lease runs out; the other takes them, answers the mail each game
was sent before and after the kill exactly once, and closes the next vote on time with every
ballot. A worker frozen (SIGSTOP) past its lease, then thawed, writes nothing more for the
game it lost.
"""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from tests.integration.game_harness import body_of, subject_of
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


def _hosting(folder: Path, sink: SmtpSink, url: str, lease: str | None) -> Hosting:
    hosting = Hosting(folder, sink, url, GAMES, workers_lease=lease)
    hosting.cli("init")
    for game in GAMES:
        for address, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")):
            hosting.cli("player", "add", address, name, game=game.id)
    return hosting


@pytest.fixture
def stop_workers() -> Iterator[list[Hosting]]:
    started: list[Hosting] = []
    yield started
    for hosting in started:
        for worker in hosting.workers:
            if worker.process is not None:
                worker.signal(signal.SIGCONT)
            worker.kill()


def _holders(hosting: Hosting) -> dict[str, str | None]:
    rows = json.loads(hosting.cli("games", "--json").stdout)
    return {row["id"]: row["worker"] for row in rows}


def _worker_of(hosting: Hosting, holder: str | None) -> Worker | None:
    for worker in hosting.workers:
        assert worker.process is not None
        if holder is not None and holder.endswith(f" pid {worker.process.pid}"):
            return worker
    return None


def _wait_spread(hosting: Hosting, timeout: float = patience(30)) -> dict[str, Worker]:
    """Wait until every game is held and both workers hold some; return each game's worker."""
    deadline = time.monotonic() + timeout
    while True:
        held = {game: _worker_of(hosting, holder) for game, holder in _holders(hosting).items()}
        owners = {id(worker) for worker in held.values() if worker is not None}
        if None not in held.values() and len(owners) == len(hosting.workers):
            return {game: worker for game, worker in held.items() if worker is not None}
        assert time.monotonic() < deadline, f"games not spread: {held}"
        time.sleep(0.2)


def _two_workers(hosting: Hosting) -> tuple[Worker, Worker]:
    """Start two workers; once they share the games, return alpha's holder and the other."""
    hosting.worker()
    hosting.worker()
    holder = _wait_spread(hosting)[ALPHA.id]
    return holder, next(worker for worker in hosting.workers if worker is not holder)


def _wait_taken(hosting: Hosting, game: str, by: Worker, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while _worker_of(hosting, _holders(hosting)[game]) is not by:
        assert time.monotonic() < deadline, f"{game} was not taken over"
        time.sleep(0.2)


def _replies(hosting: Hosting, subject: str, to: str) -> int:
    return len(hosting.sent(f"Re: {subject}", to=to))


def test_a_killed_workers_games_go_on_at_the_other_within_20_seconds(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    hosting = _hosting(tmp_path, smtp_sink, postgres_url, lease=None)  # the default, 10 s
    stop_workers.append(hosting)
    holder, other = _two_workers(hosting)

    hosting.send(ALICE, ALPHA.address, "PROPOSE: Sing", "Players may sing.\n", worker=other)
    hosting.wait_for(lambda m: subject_of(m) == f"[{ALPHA.name}] Proposal 301: Sing")
    status = json.loads(hosting.cli("status", "--json", game=ALPHA.id).stdout)
    closes_at = datetime.fromisoformat(status["open_proposals"][0]["closes_at"]).timestamp()
    hosting.send(ALICE, ALPHA.address, "vote alice", "VOTE 301 FOR\n", worker=other)
    hosting.wait_reply("vote alice", ALICE)

    # Stored by the holder's listener (250), then the holder dies: it may or may not have
    # read it, and the other worker must answer it either way, once.
    hosting.send(BOB, ALPHA.address, "vote bob", "VOTE 301 FOR\n", worker=holder)
    holder.kill()
    killed = time.time()
    hosting.send(CAROL, ALPHA.address, "vote carol", "VOTE 301 AGAINST\n", worker=other)
    for subject, voter in (("vote bob", BOB), ("vote carol", CAROL)):
        hosting.wait_reply(subject, voter, timeout=patience(25))
        # The 20 seconds on a quiet machine (SPEAKERBOT_TEST_SLOWDOWN=1), scaled.
        assert time.time() - killed < patience(20), \
            f"{subject} answered {time.time() - killed:.1f} s after the kill"
    assert "took the game alpha" in other.log_text()

    results = hosting.wait_for(
        lambda m: subject_of(m) == f"[{ALPHA.name}] Proposal 301 ADOPTED: Sing",
        timeout=patience(60))
    arrived = time.time()
    assert closes_at - 1 <= arrived <= closes_at + patience(5), (closes_at, arrived)
    body = body_of(results)
    for name in ("Alice", "Bob", "Carol"):
        assert name in body
    assert "Tally: 2 FOR, 1 AGAINST (3 cast" in body, body
    assert "Did not vote: Dave" in body
    for subject, voter in (("vote alice", ALICE), ("vote bob", BOB), ("vote carol", CAROL)):
        assert _replies(hosting, subject, voter) == 1, subject
    assert len(hosting.sent("Proposal 301 ADOPTED")) == 1
    hosting.cli("record", "verify", game=ALPHA.id)
    assert other.stop() == 0


def test_a_frozen_worker_writes_nothing_more_for_the_game_it_lost(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    hosting = _hosting(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    stop_workers.append(hosting)
    frozen, other = _two_workers(hosting)

    frozen.signal(signal.SIGSTOP)
    log_before = len(frozen.log_text())
    _wait_taken(hosting, ALPHA.id, other, timeout=patience(15))
    hosting.send(ALICE, ALPHA.address, "while frozen", "STATUS\n", worker=other)
    hosting.wait_reply("while frozen", ALICE)

    # Mail handed to the frozen worker's listener waits in the socket; thawed, the worker
    # stores it (any worker's listener does) and wakes the game's loop at once, which races
    # its round of leases: whichever comes first, the game is gone and nothing is written.
    handed = threading.Thread(target=hosting.send, args=(BOB, ALPHA.address, "after the thaw",
                                                         "STATUS\n"), kwargs={"worker": frozen})
    handed.start()
    frozen.signal(signal.SIGCONT)
    handed.join(patience(30))
    frozen.wait_log("let the game alpha go")
    hosting.wait_reply("after the thaw", BOB)
    hosting.send(CAROL, ALPHA.address, "last", "STATUS\n", worker=other)
    hosting.wait_reply("last", CAROL)

    since = frozen.log_text()[log_before:]
    assert "the game alpha sent" not in since, since
    assert "took the game alpha" not in since, since
    for subject, to in (("while frozen", ALICE), ("after the thaw", BOB), ("last", CAROL)):
        assert _replies(hosting, subject, to) == 1, subject
    hosting.cli("record", "verify", game=ALPHA.id)
    for worker in hosting.workers:
        assert worker.stop() == 0


def _copies_each(hosting: Hosting, subject: str) -> dict[str, int]:
    """How many copies of the mail titled ``subject`` each recipient got."""
    counts: dict[str, int] = {}
    for copy in hosting.sink.messages:
        if subject_of(copy) == subject:
            for recipient in copy.rcpt_tos:
                counts[recipient] = counts.get(recipient, 0) + 1
    return counts


def test_a_worker_frozen_in_mid_send_sends_nothing_after_the_copy_it_was_in(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    """Issue 37.2: the lease is asked before every copy, not once a batch.

    A relay that takes a second a copy; the holder is stopped (SIGSTOP) right after the first
    copy of a distribution went, the other worker takes the game and sends every copy, and
    the frozen one, continued, sends at most the copy whose SMTP transaction it was inside.
    """
    hosting = _hosting(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    stop_workers.append(hosting)
    frozen, other = _two_workers(hosting)
    smtp_sink.slow_down(patience(1))  # slow enough to freeze the holder mid-distribution

    hosting.send(ALICE, ALPHA.address, "PROPOSE: Hum", "Players may hum.\n", worker=other)
    distribution = f"[{ALPHA.name}] Proposal 301: Hum"
    first = hosting.wait_for(lambda m: subject_of(m) == distribution)
    frozen.signal(signal.SIGSTOP)
    taken_before = len(smtp_sink.messages)
    frozen_peer = first.peer
    _wait_taken(hosting, ALPHA.id, other, timeout=patience(20))

    players = (ALICE, BOB, CAROL, DAVE)
    for player in players:  # the new holder sends the whole distribution: it knows no better
        hosting.wait_for(lambda m, to=player: subject_of(m) == distribution  # type: ignore[misc]
                         and to in m.rcpt_tos and m.peer != frozen_peer)
    hosting.wait_reply("PROPOSE: Hum", ALICE)

    frozen.signal(signal.SIGCONT)
    frozen.wait_log("let the game alpha go")
    after = [m for m in smtp_sink.messages[taken_before:] if m.peer == frozen_peer]
    assert len(after) <= 1, [(subject_of(m), m.rcpt_tos) for m in after]
    by_frozen = [m for m in smtp_sink.messages if m.peer == frozen_peer]
    per_recipient = _copies_each(hosting, distribution)
    assert set(players) <= set(per_recipient)
    twice = {r for r, count in per_recipient.items() if count > 1}
    assert all(count <= 2 for count in per_recipient.values()), per_recipient
    assert twice <= {r for m in by_frozen for r in m.rcpt_tos}, (twice, per_recipient)
    assert _replies(hosting, "PROPOSE: Hum", ALICE) <= 2
    hosting.cli("record", "verify", game=ALPHA.id)
    for worker in hosting.workers:
        assert worker.stop() == 0


def test_run_for_one_game_beside_a_worker_serves_nothing_twice(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    """Issue 37.3: on PostgreSQL, ``run --game`` and ``run --once`` serve a game by lease only."""
    hosting = _hosting(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    stop_workers.append(hosting)
    first = hosting.worker()
    _wait_taken(hosting, ALPHA.id, first, timeout=patience(20))

    # cron's pass, while a worker holds the game: it leaves the game alone, and says so.
    once = hosting.cli("run", "--once", game=ALPHA.id, check=False)
    assert once.returncode == 2, once
    assert "a running worker serves alpha (held by the worker on" in once.stderr, once.stderr
    assert "Traceback" not in once.stderr

    alone = hosting.worker(game=ALPHA.id)
    hosting.send(ALICE, ALPHA.address, "PROPOSE: Whistle", "Players may whistle.\n",
                 worker=alone)
    distribution = f"[{ALPHA.name}] Proposal 301: Whistle"
    hosting.wait_for(lambda m: subject_of(m) == distribution)
    hosting.wait_reply("PROPOSE: Whistle", ALICE)
    for worker, subject in ((alone, "after, by alone"), (first, "after, by first")):
        hosting.send(BOB, ALPHA.address, subject, "STATUS\n", worker=worker)
        hosting.wait_reply(subject, BOB)
    assert set(_copies_each(hosting, distribution).values()) == {1}
    assert _replies(hosting, "PROPOSE: Whistle", ALICE) == 1
    assert "took the game alpha" not in alone.log_text()

    # The worker for alpha alone takes it when the game is free, and serves it once.
    first.kill()
    _wait_taken(hosting, ALPHA.id, alone, timeout=patience(20))
    hosting.send(CAROL, ALPHA.address, "vote carol", "VOTE 301 FOR\n", worker=alone)
    hosting.wait_reply("vote carol", CAROL)
    assert _replies(hosting, "vote carol", CAROL) == 1
    assert {row["id"]: row["worker"] for row in json.loads(
        hosting.cli("games", "--json").stdout)}.keys() == {ALPHA.id, BETA.id, GAMMA.id}
    assert "took the game beta" not in alone.log_text()
    hosting.cli("record", "verify", game=ALPHA.id)
    assert alone.stop() == 0


def test_two_workers_of_one_config_share_its_port_and_mail_flows_when_one_dies(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    """Issue 37.9: a second ``run`` of the same config on the same machine starts and serves."""
    hosting = _hosting(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    stop_workers.append(hosting)
    first = hosting.worker()
    second = hosting.worker(same_config=True)
    assert second.port == first.port
    _wait_spread(hosting)
    assert "Traceback" not in second.log_text()

    # The kernel spreads the connections to the one port between the two listeners; each
    # stores for every game, and the holder answers.
    for n in range(6):
        game = GAMES[n % len(GAMES)]
        hosting.send(ALICE, game.address, f"before {n}", "STATUS\n", worker=first)
        hosting.wait_reply(f"before {n}", ALICE)
    first.kill()
    for n in range(6):
        game = GAMES[n % len(GAMES)]
        hosting.send(BOB, game.address, f"after {n}", "STATUS\n", worker=first)
        hosting.wait_reply(f"after {n}", BOB, timeout=patience(30))
    for n in range(6):
        assert _replies(hosting, f"before {n}", ALICE) == 1
        assert _replies(hosting, f"after {n}", BOB) == 1
    assert second.stop() == 0


def test_a_port_another_program_holds_is_one_line_not_a_traceback(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str) -> None:
    hosting = _hosting(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    port = int(hosting.config.stem.rpartition("-")[2])
    with socket.socket() as taken:  # another program's, without SO_REUSEPORT
        taken.bind(("127.0.0.1", port))
        taken.listen()
        result = hosting.cli("run", check=False)
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"cannot listen for LMTP on 127.0.0.1:{port}" in lines[0]
    assert "set [lmtp] port" in lines[0]
