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
from pathlib import Path

import pytest

from speakerbot.adapters.store import Store
from speakerbot.engine import replay
from speakerbot.engine.codec import event_from_json
from tests.integration.hosting_harness import HostedGame, Hosting
from tests.support.patience import patience
from tests.support.ports import LOOPBACK
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

GAME = HostedGame("tea", "nomicam", (("reminder_before", "none"), ("voting_period", "2d")))
VOTERS = [f"p{n}@players.test" for n in range(8)]


def _deliver(port: int, sender: str, raw: bytes) -> bool:
    """Hand ``raw`` to the LMTP listener; whether it was answered 250 (False: cut off)."""
    try:
        with smtplib.LMTP(LOOPBACK, port, timeout=patience(10)) as client:
            client.ehlo()
            client.mail(sender)
            client.rcpt(GAME.address)
            code, _ = client.data(raw)
            return code == 250
    except (smtplib.SMTPException, OSError):
        return False


def _stored_ids(hosting: Hosting) -> list[str]:
    with Store(hosting.db_url, game=GAME.id) as store:
        return [row.message_id for row in store.list_inbound(limit=1000)]


def _ballots(hosting: Hosting) -> list[str]:
    """The voters whose ballot on 301 the record counts, once each."""
    with Store(hosting.db_url, game=GAME.id) as store:
        state = replay([event_from_json(row.data) for row in store.load_events()])
    return sorted(state.proposals[301].ballots)


def test_a_killed_worker_acknowledged_only_what_it_had_committed(
        tmp_path: Path, smtp_sink: SmtpSink, db_url: str) -> None:
    hosting = Hosting(tmp_path, smtp_sink, db_url, [GAME])
    hosting.cli("init")
    for n, voter in enumerate(VOTERS):
        hosting.cli("player", "add", voter, f"Voter {n}")
    worker = hosting.worker()
    hosting.send(VOTERS[0], GAME.address, "PROPOSE: Tea", "Tea is served at four.\n")
    hosting.wait_for(lambda m: "Proposal 301: Tea" in m.data.decode(errors="replace"))
    assert worker.stop() == 0

    ballots = {voter: hosting.message(voter, GAME.address, f"vote {voter}", "VOTE 301 FOR\n")
               for voter in VOTERS}
    hosting.env["SPEAKERBOT_CRASHPOINT"] = "after-store"
    hosting.env["SPEAKERBOT_CRASHPOINT_MARKER"] = str(tmp_path / "crashed")
    crashing = hosting.worker(same_config=True)
    # All at once, each on a connection of its own, as a mail server delivers a burst.
    with ThreadPoolExecutor(len(VOTERS)) as pool:
        answered = dict(zip(VOTERS, pool.map(
            lambda voter: _deliver(crashing.port, voter, ballots[voter]), VOTERS),
            strict=True))
    assert crashing.process is not None
    assert crashing.process.wait(patience(30)) == -9, crashing.log_text()[-2000:]

    # Nothing answered 250 that is not in the store...
    stored = set(_stored_ids(hosting))
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
            assert _deliver(again.port, voter, ballots[voter]), voter
    for voter in VOTERS:
        hosting.wait_reply(f"vote {voter}", voter)
    assert again.stop() == 0
    assert "stored already" in again.log_text()

    stored_ids = _stored_ids(hosting)
    assert sorted(stored_ids.count(ids[voter]) for voter in VOTERS) == [1] * len(VOTERS)
    assert _ballots(hosting) == sorted(VOTERS)
