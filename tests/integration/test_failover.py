"""Two ``speakerbot run`` workers share three games through PostgreSQL, and take over.

Real processes, a real PostgreSQL, LMTP in and an SMTP sink out. A worker killed (SIGKILL)
loses its games when its lease runs out; the other takes them, answers the mail each game
was sent before and after the kill exactly once, and closes the next vote on time with every
ballot. (A worker frozen instead: test_frozen_workers.py.)
"""

from __future__ import annotations

import json
import socket
import time
from datetime import datetime
from pathlib import Path

from tests.integration.failover_harness import (
    ALICE,
    ALPHA,
    BETA,
    BOB,
    CAROL,
    GAMES,
    GAMMA,
    LEASE,
    copies_each,
    hosting_for,
    replies,
    two_workers,
    wait_spread,
    wait_taken,
)
from tests.integration.game_harness import body_of, subject_of
from tests.integration.hosting_harness import Hosting
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink


def test_a_killed_workers_games_go_on_at_the_other_within_20_seconds(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    hosting = hosting_for(tmp_path, smtp_sink, postgres_url, lease=None)  # the default, 10 s
    stop_workers.append(hosting)
    holder, other = two_workers(hosting)

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
        assert replies(hosting, subject, voter) == 1, subject
    assert len(hosting.sent("Proposal 301 ADOPTED")) == 1
    hosting.cli("record", "verify", game=ALPHA.id)
    assert other.stop() == 0



def test_run_for_one_game_beside_a_worker_serves_nothing_twice(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    """Issue 37.3: on PostgreSQL, ``run --game`` and ``run --once`` serve a game by lease only."""
    hosting = hosting_for(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    stop_workers.append(hosting)
    first = hosting.worker()
    wait_taken(hosting, ALPHA.id, first, timeout=patience(20))

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
    assert set(copies_each(hosting, distribution).values()) == {1}
    assert replies(hosting, "PROPOSE: Whistle", ALICE) == 1
    assert "took the game alpha" not in alone.log_text()

    # The worker for alpha alone takes it when the game is free, and serves it once.
    first.kill()
    wait_taken(hosting, ALPHA.id, alone, timeout=patience(20))
    hosting.send(CAROL, ALPHA.address, "vote carol", "VOTE 301 FOR\n", worker=alone)
    hosting.wait_reply("vote carol", CAROL)
    assert replies(hosting, "vote carol", CAROL) == 1
    assert {row["id"]: row["worker"] for row in json.loads(
        hosting.cli("games", "--json").stdout)}.keys() == {ALPHA.id, BETA.id, GAMMA.id}
    assert "took the game beta" not in alone.log_text()
    hosting.cli("record", "verify", game=ALPHA.id)
    assert alone.stop() == 0


def test_two_workers_of_one_config_share_its_port_and_mail_flows_when_one_dies(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    """Issue 37.9: a second ``run`` of the same config on the same machine starts and serves."""
    hosting = hosting_for(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    stop_workers.append(hosting)
    first = hosting.worker()
    second = hosting.worker(same_config=True)
    assert second.port == first.port
    wait_spread(hosting)
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
        assert replies(hosting, f"before {n}", ALICE) == 1
        assert replies(hosting, f"after {n}", BOB) == 1
    assert second.stop() == 0


def test_a_port_another_program_holds_is_one_line_not_a_traceback(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str) -> None:
    hosting = hosting_for(tmp_path, smtp_sink, postgres_url, lease=LEASE)
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
