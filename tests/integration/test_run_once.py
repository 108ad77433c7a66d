"""``speakerbot run --once`` takes in everything, processes it and sends the whole outbox."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from speakerbot.adapters.store import Store
from speakerbot.config import Settings, load_settings
from speakerbot.engine import commands as c
from speakerbot.service import GameService
from tests.support.mailgame import MX, raw_mail
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink, one_per_message

pytestmark = pytest.mark.integration

CONFIG = """
[game]
name = "Once Nomic"
ruleset = "nomicam"
address = "game@once.test"
speaker = "host@once.test"
speaker_name = "Host"
admin_password = "pw-pw-pw"

[mechanics]
reminder_before = "none"

[auth]
authserv_id = ["{mx}"]

[database]
url = "sqlite:///{db}"

[smtp]
host = "127.0.0.1"
port = {port}
security = "none"
"""


def _configured(tmp_path: Path, smtp_sink: SmtpSink) -> tuple[Path, Settings]:
    """Write the game's configuration in ``tmp_path``; return it and its settings."""
    config = tmp_path / "once.toml"
    config.write_text(CONFIG.format(mx=MX, db=tmp_path / "game.db", port=smtp_sink.port))
    return config, load_settings(config, {})


@contextmanager
def _started(settings: Settings, players: list[str], now: datetime) -> Iterator[GameService]:
    """Start the game on its store, its clock stopped at ``now``, with ``players`` P0, P1..."""
    with Store(settings.database.url) as store:
        store.upgrade()
        service = GameService(store, settings, rng=random.Random(1), clock=lambda: now)
        service.start_game()
        for n, address in enumerate(players):
            service.speaker_command(c.AddPlayer(settings.game.speaker, address, f"P{n}"))
        yield service


def _receive(service: GameService, sender: str, subject: str, body: str,
             at: datetime) -> None:
    """Store one message to the game, dated and received ``at``."""
    service.receive(raw_mail(sender, subject, body, date=at, to="game@once.test"), at,
                    source="test")


def _run_once(config: Path) -> None:
    """Run ``speakerbot run --once`` as a process of its own; it must succeed."""
    result = subprocess.run([sys.executable, "-m", "speakerbot", "run", "--once", "-c",
                             str(config)], capture_output=True, text=True, cwd=config.parent,
                            env={**os.environ}, timeout=patience(300))
    assert result.returncode == 0, result.stderr[-3000:]


def test_run_once_with_a_thousand_waiting_messages_leaves_an_empty_outbox(
        tmp_path: Path, smtp_sink: SmtpSink) -> None:
    config, settings = _configured(tmp_path, smtp_sink)
    players = [f"p{n}@once.test" for n in range(40)]
    now = datetime.now(UTC) - timedelta(minutes=5)
    with _started(settings, players, now) as service:
        _receive(service, players[0], "PROPOSE: Tea", "Tea at four.\n", now)
        for n in range(999):
            voter = players[n % len(players)]
            body = "VOTE 301 FOR\n" + ("STATUS\n" if n % 5 == 0 else "")
            _receive(service, voter, f"vote {n}", body, now)
    _run_once(config)
    with Store(settings.database.url) as store:
        summary = store.outbox_summary()
        assert summary.pending == 0 and summary.failed == 0
        assert not store.pending_inbound()
        assert {row.status for row in store.list_inbound(limit=2000)} == {"processed"}
    # The distribution, and one reply per message (the daily reply limit aside).
    assert len(one_per_message(smtp_sink.messages)) >= 1 + len(players) * 20


def test_run_once_settles_a_backlog_and_then_reads_the_mail_behind_it(
        tmp_path: Path, smtp_sink: SmtpSink) -> None:
    config, settings = _configured(tmp_path, smtp_sink)
    players = [f"p{n}@once.test" for n in range(4)]
    then = datetime.now(UTC) - timedelta(days=10)  # every vote closed days ago
    late = datetime.now(UTC) - timedelta(minutes=1)
    with _started(settings, players, then) as service:
        for n in range(45):  # more than two transactions' worth of closes
            service.speaker_command(c.Propose(players[n % 4], f"Idea {n}", "Text."))
        _receive(service, players[0], "votes", "VOTE 301 FOR\nSTATUS\n", late)
    _run_once(config)
    with Store(settings.database.url) as store:
        assert not store.pending_inbound()
        assert {row.status for row in store.list_inbound(limit=10)} == {"processed"}
        assert store.outbox_summary().pending == 0
    subjects = [str(m.parsed()["Subject"]) for m in one_per_message(smtp_sink.messages)]
    assert sum(" ADOPTED" in s or " REJECTED" in s for s in subjects) == 45
    [reply] = [m for m in smtp_sink.messages if m.rcpt_tos == (players[0],)
               and "Re: votes" in str(m.parsed()["Subject"])]
    assert b"is over for it; it does not count" in reply.data
