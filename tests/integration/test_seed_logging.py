"""A sealed seed in no log line, and in no error's text (found by an attack review, issue 27).

The seed is kept in the database "never in public mail, the archive or record export
--public before its reveal, nor in any log line". At DEBUG, SQLAlchemy would log each
statement's parameters and each row read (the seed stored in ``meta`` among them); and at
any level an error of the statement that stores it would quote its parameters, which
``process`` logs whole and keeps as the inbound row's failure. The store's engines hide
their parameters, and the command line never lets the database log its rows.
"""

from __future__ import annotations

import json
import logging
import random
import re
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from speakerbot.adapters.store import Store
from speakerbot.engine.luck import commitment_of
from speakerbot.entrypoints.cli import THIRD_PARTY_LOGGERS, configure_logging
from speakerbot.service import GameService
from speakerbot.service.unit_of_work import MASTER_KEY, SEED_KEY
from tests.engine.cast import ALICE, BOB, CAROL
from tests.support.mailgame import T0, Clock, MailGame, make_settings


def test_a_sealed_seed_is_in_no_log_line_at_debug(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    levels = {name: logging.getLogger(name).level for name in THIRD_PARTY_LOGGERS}
    levels["sqlalchemy.engine"] = logging.getLogger("sqlalchemy.engine").level
    configure_logging("DEBUG")  # as `--log-level DEBUG` leaves every logger
    try:
        game = MailGame(tmp_path, "suber", [ALICE, BOB, CAROL])
        logged = caplog.text  # before this test reads the store itself
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
    try:
        # The seeds, and the master secret they are made from: either would tell a draw.
        seeds = [str(value) for key, value in _meta(game)
                 if key.startswith(SEED_KEY) or key == MASTER_KEY]
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


SEED_PARAMETER = re.compile(r"draw-seed:([0-9a-f]{64})', '\{\"value\": \"([0-9a-f]{64})\"\}'")


def test_a_failed_write_of_a_seed_does_not_say_the_seed(tmp_path: Path) -> None:
    """The store's engine does not hide its parameters: an error writing the seed (here a
    trigger standing for "database is locked", a full disk, a serialization failure) says
    the statement's parameters, the seed among them, and the daemon logs such an error
    whole (log.exception) at its default level."""
    settings = make_settings(tmp_path, "suber")
    store = Store(settings.database.url)
    store.upgrade()
    with store.engine.begin() as connection:
        connection.execute(text(
            "CREATE TRIGGER seed_fails BEFORE INSERT ON meta WHEN NEW.key LIKE 'draw-seed:%' "
            "BEGIN SELECT RAISE(ABORT, 'database is locked'); END"))
    service = GameService(store, settings, rng=random.Random(1), clock=Clock(T0))
    try:
        with pytest.raises(DBAPIError) as raised:
            service.start_game()
    finally:
        store.close()
    said = str(raised.value)
    found = SEED_PARAMETER.search(said)
    assert found is None or commitment_of(bytes.fromhex(found[2])) != found[1], \
        f"the error says the seed of commitment {found[1]}"
