"""``speakerbot --help`` and ``speakerbot parse`` start at once: they import no database.

What is checked is what they import, not how long they take (a busy machine decides that;
``bench/startup.py`` measures the speed). Each command runs as ``python -X importtime -m
speakerbot ...``, whose standard error lists every module the process imported.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.configs import game_config
from tests.support.patience import patience

# Every third-party package speakerbot depends on is imported only by the subcommands that
# need it (the daemon, the store, the configuration, the archive, the tests' browser).
HEAVY = ("sqlalchemy", "alembic", "apscheduler", "jinja2", "imapclient", "aiosmtpd",
         "authres", "publicsuffixlist", "msgspec", "psycopg", "selenium")
# speakerbot's own rooms that open or configure a game: parse and --help need none.
STACK = ("speakerbot.service", "speakerbot.adapters", "speakerbot.config",
         "speakerbot.site", "speakerbot.mail.outbound")


def _imports(*args: str) -> set[str]:
    """Return the modules ``python -X importtime ARGS`` imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True,
                          text=True, timeout=patience(60))
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2} - {"imported package"}


def imported(*args: str) -> set[str]:
    """Return what ``speakerbot ARGS`` imports beyond the interpreter's own start-up."""
    return _imports("-m", "speakerbot", *args) - _imports("-c", "pass")


def _heavy_imports(*args: str) -> str:
    """Return the heavy packages and stack modules ``speakerbot ARGS`` imports, comma-joined."""
    modules = imported(*args)
    heavy = {name.split(".")[0] for name in modules} & set(HEAVY)
    stack = {room for room in STACK for name in modules if name.startswith(room)}
    return ",".join(sorted(heavy | stack))


@pytest.fixture
def vote(tmp_path: Path) -> Path:
    message = tmp_path / "vote.eml"
    message.write_bytes(b"From: alice@example.org\r\nSubject: x\r\n\r\nVOTE 301 FOR\r\n")
    return message


def test_parse_and_help_import_nothing_outside_the_standard_library(vote: Path) -> None:
    for args in (("parse", str(vote)), ("--help",), ("parse", "--help")):
        modules = imported(*args)
        assert "speakerbot.entrypoints.cli" in modules, args  # the probe sees the command
        # A name no installed package provides was only tried (the copy module tries
        # Jython's org.python.core) and failed: it imported nothing.
        outside = {top for top in {name.split(".")[0] for name in modules}
                   if top not in sys.stdlib_module_names and importlib.util.find_spec(top)}
        assert outside == {"speakerbot"}, (args, outside)
        assert not {name for name in modules if name.startswith(STACK)}, args


def test_the_probe_sees_heavy_imports_where_there_are_some(tmp_path: Path) -> None:
    heavy = _heavy_imports("status", "-c", str(tmp_path / "missing.toml")).split(",")
    assert {"sqlalchemy", "msgspec", "speakerbot.adapters", "speakerbot.service"} <= set(heavy), \
        heavy


# What a query of a started game on SQLite needs none of: the daemon's scheduler and IMAP
# connection, the templates of mail (these queries render none), PostgreSQL's dialect.
NOT_FOR_QUERIES = ("apscheduler", "imapclient", "jinja2", "aiosmtpd", "psycopg", "alembic",
                   "sqlalchemy.dialects.postgresql", "feedgen", "selenium")


def test_a_query_imports_only_what_it_uses(tmp_path: Path) -> None:
    config = game_config(tmp_path, "nomicam")
    started = subprocess.run([sys.executable, "-m", "speakerbot", "-c", str(config), "init"],
                             capture_output=True, text=True, timeout=patience(60))
    assert started.returncode == 0, started.stderr
    for query in (("status",), ("player", "list"), ("games",), ("record", "verify")):
        modules = imported("-c", str(config), *query)
        assert "speakerbot.service" in modules and "sqlalchemy.orm" in modules, query
        assert not {name for name in modules if name.startswith(NOT_FOR_QUERIES)}, \
            (query, sorted({name for name in modules if name.startswith(NOT_FOR_QUERIES)}))


def test_the_daemon_imports_the_archive_only_for_a_game_that_keeps_one() -> None:
    modules = _imports("-c", "import speakerbot.entrypoints.running, "
                       "speakerbot.entrypoints.daemon, speakerbot.entrypoints.hosting")
    assert "speakerbot.entrypoints.daemon" in modules and "aiosmtpd" in modules
    assert not {name for name in modules
                if name.startswith(("speakerbot.site", "feedgen", "lxml"))}
