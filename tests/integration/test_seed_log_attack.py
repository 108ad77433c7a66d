"""ATTACK (issue 27 review): a sealed seed written to the log at ``--log-level DEBUG``.

FAILS on main as merged. The issue: the seed is kept in the database "never in public mail,
the archive or record export --public before its reveal, nor in any log line". At DEBUG the
command line lets every library log as it will (``configure_logging``), and SQLAlchemy then
logs each statement's parameters: the seed stored in the ``meta`` table among them.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from sqlalchemy import text

from speakerbot.entrypoints.cli import THIRD_PARTY_LOGGERS
from speakerbot.service.unit_of_work import SEED_KEY
from tests.engine.harness import ALICE, BOB, CAROL
from tests.support.mailgame import MailGame


def test_attack_a_sealed_seed_is_in_no_log_line_at_debug(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    levels = {name: logging.getLogger(name).level for name in THIRD_PARTY_LOGGERS}
    for name in THIRD_PARTY_LOGGERS:  # as configure_logging("DEBUG") leaves them
        logging.getLogger(name).setLevel(logging.NOTSET)
    try:
        game = MailGame(tmp_path, "suber", [ALICE, BOB, CAROL])
        logged = caplog.text  # before this test reads the store itself
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
    try:
        seeds = [value for key, value in _meta(game) if key.startswith(SEED_KEY)]
    finally:
        game.close()
    assert seeds and all(isinstance(seed, str) and len(seed) == 64 for seed in seeds)
    leaked = [seed for seed in seeds if seed in logged]
    assert leaked == [], "a seed not revealed was logged"


def _meta(game: MailGame) -> list[tuple[str, object]]:
    with game.store.engine.connect() as connection:
        rows = connection.execute(text("SELECT key, value FROM meta")).all()
    return [(str(key), _value(value)) for key, value in rows]


def _value(value: object) -> object:
    data = json.loads(value) if isinstance(value, str) else value
    return data.get("value") if isinstance(data, dict) else data
