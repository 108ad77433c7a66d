"""Group commit under LMTP: a message is acknowledged only once the commit holding it is done.

A worker is killed (SIGKILL, ``after-store``) between a group's commit and the 250s: what
was answered 250 is in the store; what was not is delivered again, as the mail server
would, and every ballot counts once. Real ``speakerbot run`` processes, real LMTP, SQLite
and PostgreSQL. The grouping itself is ``tests/unit/test_group_commit.py``.
"""

from __future__ import annotations

import smtplib
from concurrent.futures import ThreadPoolExecutor
from email.parser import BytesParser
from functools import partial
from pathlib import Path

import pytest

from speakerbot.adapters.store import Store
from speakerbot.config import load_games
from speakerbot.engine import commands as c
from speakerbot.engine import replay
from speakerbot.engine.codec import event_from_json
from speakerbot.entrypoints.opening import open_game
from tests.integration.hosting_harness import HostedGame, Hosting
from tests.support.patience import patience
from tests.support.ports import LOOPBACK
from tests.support.smtp_sink import CapturedMessage, SmtpSink

pytestmark = pytest.mark.integration

QUIET = (("reminder_before", "none"), ("voting_period", "2d"))
GAME = HostedGame("tea", "nomicam", QUIET)
VOTERS = [f"p{n}@players.test" for n in range(8)]


def _deliver(port: int, sender: str, to: str, raw: bytes) -> bool:
    """Hand ``raw`` to the LMTP listener; whether it was answered 250 (False: cut off)."""
    try:
        with smtplib.LMTP(LOOPBACK, port, timeout=patience(10)) as client:
            client.ehlo()
            client.mail(sender)
            client.rcpt(to)
            code, _ = client.data(raw)
            return code == 250
    except (smtplib.SMTPException, OSError):
        return False


def _says(text: str, message: CapturedMessage) -> bool:
    return text in message.data.decode(errors="replace")


def _stored_ids(hosting: Hosting, game: HostedGame) -> list[str]:
    with Store(hosting.db_url, game=game.id) as store:
        return [row.message_id for row in store.list_inbound(limit=1000)]


def _ballots(hosting: Hosting, game: HostedGame) -> list[str]:
    """The voters whose ballot on 301 the record counts, once each."""
    with Store(hosting.db_url, game=game.id) as store:
        state = replay([event_from_json(row.data) for row in store.load_events()])
    return sorted(state.proposals[301].ballots)


def test_a_killed_worker_acknowledged_only_what_it_had_committed(
        tmp_path: Path, smtp_sink: SmtpSink, db_url: str) -> None:
    _kill_between_commit_and_answers(tmp_path, smtp_sink, db_url, [GAME])


def test_mail_for_three_games_stored_together_is_acknowledged_only_once_committed(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str) -> None:
    # On one PostgreSQL database the games' mail that arrives together shares a commit.
    games = [GAME, HostedGame("cake", "nomicam", QUIET), HostedGame("scones", "nomicam", QUIET)]
    _kill_between_commit_and_answers(tmp_path, smtp_sink, postgres_url, games)


def _kill_between_commit_and_answers(tmp_path: Path, smtp_sink: SmtpSink, db_url: str,
                                     games: list[HostedGame]) -> None:
    """Kill a worker after a commit, before its 250s; deliver again what was not answered.

    Each voter votes in one of ``games`` (in turn), all at once, as a burst.
    """
    hosting = Hosting(tmp_path, smtp_sink, db_url, games)
    hosting.cli("init")
    for settings in load_games(hosting.config).games:
        with open_game(settings) as service:  # in this process: quicker than the CLI
            for n, voter in enumerate(VOTERS):
                service.speaker_command(c.AddPlayer(service.state().speaker, voter,
                                                    f"Voter {n}"))
    worker = hosting.worker()
    for game in games:
        hosting.send(VOTERS[0], game.address, f"PROPOSE: Tea in {game.id}", "Tea at four.\n")
        hosting.wait_for(partial(_says, f"Proposal 301: Tea in {game.id}"))
    assert worker.stop() == 0

    game_of = {voter: games[n % len(games)] for n, voter in enumerate(VOTERS)}
    ballots = {voter: hosting.message(voter, game_of[voter].address, f"vote {voter}",
                                      "VOTE 301 FOR\n") for voter in VOTERS}
    hosting.env["SPEAKERBOT_CRASHPOINT"] = "after-store"
    hosting.env["SPEAKERBOT_CRASHPOINT_MARKER"] = str(tmp_path / "crashed")
    crashing = hosting.worker(same_config=True)
    # All at once, each on a connection of its own, as a mail server delivers a burst.
    with ThreadPoolExecutor(len(VOTERS)) as pool:
        answered = dict(zip(VOTERS, pool.map(
            lambda voter: _deliver(crashing.port, voter, game_of[voter].address,
                                   ballots[voter]), VOTERS), strict=True))
    assert crashing.process is not None
    assert crashing.process.wait(patience(30)) == -9, crashing.log_text()[-2000:]

    # Nothing answered 250 that is not in the store...
    stored = {message_id for game in games for message_id in _stored_ids(hosting, game)}
    ids = {voter: str(BytesParser().parsebytes(raw, headersonly=True)["Message-ID"])
           for voter, raw in ballots.items()}
    assert {ids[voter] for voter, ok in answered.items() if ok} <= stored
    # ...and the crash came after a commit, before its answer: stored, never acknowledged.
    cut_off_but_stored = [voter for voter, ok in answered.items()
                          if not ok and ids[voter] in stored]
    assert cut_off_but_stored, (answered, stored)

    # The mail server delivers again what it was not told was taken.
    hosting.env.pop("SPEAKERBOT_CRASHPOINT")
    again = hosting.worker(same_config=True)
    for voter, ok in answered.items():
        if not ok:
            assert _deliver(again.port, voter, game_of[voter].address, ballots[voter]), voter
    for voter in VOTERS:
        hosting.wait_reply(f"vote {voter}", voter)
    assert again.stop() == 0
    assert "stored already" in again.log_text()

    for game in games:
        stored_ids = _stored_ids(hosting, game)
        mine = [voter for voter in VOTERS if game_of[voter] is game]
        assert sorted(stored_ids.count(ids[voter]) for voter in mine) == [1] * len(mine)
        assert _ballots(hosting, game) == sorted(mine)
