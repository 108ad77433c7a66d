"""[metrics] on the running daemon: a scrape shows the game's counts; /healthz follows the loop.

A stopped process (SIGSTOP) answers nothing, which a monitor takes for down; once it goes on
(SIGCONT), /healthz is 200 again as soon as the loop goes round. That the answer is 503
while the loop is three intervals late is the health rule's own test (tests/unit).
"""

from __future__ import annotations

import os
import signal
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import MakeGame, RunningGame
from tests.integration.test_attacks import ALICE, BOB, CAROL, QUIET
from tests.support.patience import patience
from tests.support.ports import free_port

pytestmark = pytest.mark.integration

db_url = db_url_on("sqlite")


def get(port: int, path: str, timeout: float = patience(10)) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}",
                                    timeout=timeout) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def counts(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    status, text = get(port, "/metrics")
    assert status == 200, text
    return {(sample.name, tuple(sorted((k, v) for k, v in sample.labels.items()
                                       if k != "game"))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def wait_health(game: RunningGame, port: int, wanted: int) -> None:
    """Poll /healthz until it answers ``wanted`` (a bounded poll: the daemon says no more)."""
    deadline = time.monotonic() + patience(30)
    seen = get(port, "/healthz")
    while seen[0] != wanted:
        assert time.monotonic() < deadline, f"/healthz stayed {seen}\n{game.log_text()}"
        time.sleep(0.05)
        seen = get(port, "/healthz")


def test_a_scrape_shows_the_games_counts_and_healthz_follows_the_loop(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", QUIET)
    port = free_port()
    game.config.write_text(game.config.read_text() +
                           f'\n[metrics]\nlisten = "127.0.0.1:{port}"\n')
    game.begin(*((address, address.split("@")[0].title()) for address in (ALICE, BOB, CAROL)))
    game.wait_log(f"metrics listening on 127.0.0.1:{port}")

    game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    game.wait_subject("Proposal 301:")
    game.send(BOB, "my vote", "VOTE 301 FOR\n")
    game.wait_subject("Re: my vote", to=BOB)
    game.send(BOB, "changed my mind", "VOTE 301 AGAINST\n", authenticated=False)
    game.wait_subject("Please confirm", to=BOB)

    seen = counts(port)
    assert seen[("speakerbot_messages_received", ())] == 3
    assert seen[("speakerbot_messages", (("status", "processed"),))] == 2
    assert seen[("speakerbot_messages_held", (("reason", "not-authenticated"),))] == 1
    assert seen[("speakerbot_lease_held", ())] == 1
    assert seen[("speakerbot_outbox_failing", ())] == 0
    assert 0 <= seen[("speakerbot_seconds_since_tick", ())] < patience(10)
    wait_health(game, port, 200)

    assert game.process is not None
    os.kill(game.process.pid, signal.SIGSTOP)
    try:
        # Stopped: no answer at all, which is down to any monitor.
        with pytest.raises(OSError):
            get(port, "/healthz", timeout=1)
        time.sleep(3)  # more than three of the loop's 1 s intervals pass without a beat
    finally:
        os.kill(game.process.pid, signal.SIGCONT)
    wait_health(game, port, 200)
    assert game.stop() == 0
