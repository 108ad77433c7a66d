"""The command line as a user meets it: config selection, init, players, status, parse."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from email.utils import formatdate
from pathlib import Path

import pytest

from tests.support.commands import speakerbot as forked
from tests.support.patience import patience

CONFIG = """
[game]
name = "Cli Nomic"
ruleset = "{ruleset}"
address = "game@cli.test"
speaker = "chuck@cli.test"
speaker_name = "Chuck"
admin_password = "pw"

[database]
url = "sqlite:///{db}"

[lmtp]
port = 8024

[smtp]
host = "127.0.0.1"
port = 2525
security = "none"
"""


def speakerbot(*args: str, cwd: Path, env: dict[str, str] | None = None,
               stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m speakerbot ARGS`` as a process of its own, forked from the helper that
    has imported speakerbot (test_startup and test_forked_commands start it afresh)."""
    environ = {k: v for k, v in os.environ.items() if k != "SPEAKERBOT_CONFIG"}
    return forked(args, env={**environ, **(env or {})}, cwd=cwd, stdin=stdin, timeout=patience(60))


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "game.toml"
    path.write_text(CONFIG.format(ruleset="suber", db=tmp_path / "state" / "game.db"))
    return path


def test_the_config_may_come_before_or_after_the_subcommand_or_from_the_environment(
    config: Path, tmp_path: Path
) -> None:
    assert speakerbot("--config", str(config), "init", cwd=tmp_path).returncode == 0
    before = speakerbot("--config", str(config), "status", cwd=tmp_path)
    after = speakerbot("status", "--config", str(config), cwd=tmp_path)
    short = speakerbot("status", "-c", str(config), cwd=tmp_path)
    environ = speakerbot("status", cwd=tmp_path, env={"SPEAKERBOT_CONFIG": str(config)})
    assert before.returncode == after.returncode == short.returncode == environ.returncode == 0
    assert before.stdout == after.stdout == short.stdout == environ.stdout
    assert "Cli Nomic (suber)" in before.stdout


def test_the_default_config_path_is_config_speakerbot_toml(config: Path, tmp_path: Path) -> None:
    missing = speakerbot("status", cwd=tmp_path)
    assert missing.returncode == 2 and "config/speakerbot.toml" in missing.stderr
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "speakerbot.toml").write_text(config.read_text())
    assert speakerbot("init", cwd=tmp_path).returncode == 0


def test_init_player_add_and_status(config: Path, tmp_path: Path) -> None:
    init = speakerbot("init", "-c", str(config), cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    assert "started Cli Nomic: preset suber, 29 rules" in init.stdout
    for email, name in (("alice@cli.test", "Alice"), ("Bob@Cli.test", "Bob")):
        added = speakerbot("player", "add", email, name, "-c", str(config), cwd=tmp_path)
        assert added.returncode == 0, added.stderr
    again = speakerbot("player", "add", "alice@cli.test", "Alicia", "-c", str(config),
                       cwd=tmp_path)
    assert again.returncode == 2 and "already a player" in again.stderr
    status = speakerbot("status", "-c", str(config), cwd=tmp_path).stdout
    assert "Turn 1: Alice" in status
    assert "Alice" in status and "bob@cli.test" in status
    assert "Open proposals:\n  none" in status and "Open CFJs:\n  none" in status
    # The two additions are overrides, announced to every player together, in one message
    # at the daemon's first tick (service/additions.py): nothing waits in the outbox yet.
    assert "Outbox: 0 waiting" in status


def test_init_refuses_an_existing_game_unless_forced(config: Path, tmp_path: Path) -> None:
    assert speakerbot("init", "-c", str(config), cwd=tmp_path).returncode == 0
    assert speakerbot("player", "add", "a@cli.test", "A", "-c", str(config),
                      cwd=tmp_path).returncode == 0
    refused = speakerbot("init", "-c", str(config), cwd=tmp_path)
    assert refused.returncode == 2 and "--force" in refused.stderr
    config.write_text(config.read_text().replace('"suber"', '"nomicam"'))
    forced = speakerbot("init", "--force", "--yes", "-c", str(config), cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    status = speakerbot("status", "-c", str(config), cwd=tmp_path).stdout
    assert "(nomicam)" in status and "a@cli.test" not in status


def test_db_upgrade_is_idempotent(config: Path, tmp_path: Path) -> None:
    for _ in range(2):
        upgraded = speakerbot("db", "upgrade", "-c", str(config), cwd=tmp_path)
        assert upgraded.returncode == 0 and "up to date" in upgraded.stdout


def test_commands_before_init_say_what_to_do(config: Path, tmp_path: Path) -> None:
    for args in (("status",), ("player", "add", "a@cli.test", "A"), ("run", "--once")):
        result = speakerbot(*args, "-c", str(config), cwd=tmp_path)
        assert result.returncode == 2 and "speakerbot init" in result.stderr, args


def test_a_bad_config_is_refused_naming_the_key(config: Path, tmp_path: Path) -> None:
    config.write_text(config.read_text().replace("port = 2525", 'port = "many"'))
    result = speakerbot("init", "-c", str(config), cwd=tmp_path)
    assert result.returncode == 2 and "[smtp] port" in result.stderr
    assert "Traceback" not in result.stderr
    config.write_text(config.read_text() + "\n[surprise]\nkey = 1\n")
    assert "surprise" in speakerbot("init", "-c", str(config), cwd=tmp_path).stderr


def test_run_refuses_without_inbound_mail(config: Path, tmp_path: Path) -> None:
    config.write_text(config.read_text().replace("[lmtp]\nport = 8024\n", ""))
    assert speakerbot("init", "-c", str(config), cwd=tmp_path).returncode == 0
    result = speakerbot("run", "-c", str(config), cwd=tmp_path)
    assert result.returncode == 2 and "[imap] or [lmtp]" in result.stderr


RAW = (b"From: Alice <alice@example.org>\r\nTo: game@cli.test\r\nSubject: votes\r\n"
       b"Message-ID: <m1@example.org>\r\n\r\nHi all,\r\nVOTE #301 yes\r\nVOET 302 FOR\r\n")


def test_parse_prints_the_contract_json_from_a_file_and_from_stdin(tmp_path: Path) -> None:
    message = tmp_path / "m.eml"
    message.write_bytes(RAW)
    from_file = speakerbot("parse", str(message), cwd=tmp_path)
    from_stdin = speakerbot("parse", "-", cwd=tmp_path, stdin=RAW.decode())
    assert from_file.returncode == from_stdin.returncode == 0
    parsed = json.loads(from_file.stdout)
    assert parsed == json.loads(from_stdin.stdout)
    assert parsed["sender"] == "alice@example.org" and parsed["skipped"] is None
    assert parsed["message_id"] == "<m1@example.org>" and parsed["subject"] == "votes"
    assert parsed["commands"] == [{"line": 2, "verb": "VOTE", "proposal": 301, "choice": "FOR"}]
    assert parsed["errors"][0]["line"] == 3 and "VOTE" in parsed["errors"][0]["reason"]
    assert parsed["ignored"] == [{"line": 1, "text": "Hi all,"}]
    missing = speakerbot("parse", str(tmp_path / "nope.eml"), cwd=tmp_path)
    assert missing.returncode == 2 and missing.stdout == ""


def test_parse_checks_the_sender_only_against_a_configuration(tmp_path: Path) -> None:
    config = tmp_path / "auth.toml"
    config.write_text(CONFIG.format(ruleset="suber", db=tmp_path / "game.db")
                      + '\n[auth]\nrequire = "dmarc"\nauthserv_id = ["mx.cli.test"]\n')
    # Dated now: the daemon believes no authenticated message that may be a replay, and
    # parse reaches the daemon's verdict.
    date = f"Date: {formatdate()}\r\n".encode()
    trusted = b"Authentication-Results: mx.cli.test; dmarc=pass header.from=example.org\r\n"
    forged = b"Authentication-Results: mx.evil.test; dmarc=pass header.from=example.org\r\n"
    verdicts = {}
    for name, head in (("trusted", trusted + date), ("forged", forged + date), ("none", date),
                       ("undated", trusted)):
        message = tmp_path / f"{name}.eml"
        message.write_bytes(head + RAW)
        verdicts[name] = json.loads(speakerbot("parse", "-c", str(config), str(message),
                                               cwd=tmp_path).stdout)["authentication"]
    assert verdicts["trusted"] == {"checked": True, "authenticated": True, "by": "dmarc",
                                   "why": "dmarc=pass for example.org"}
    assert verdicts["forged"]["checked"] and not verdicts["forged"]["authenticated"]
    assert verdicts["forged"]["by"] is None and "mx.cli.test" in verdicts["forged"]["why"]
    assert verdicts["none"]["checked"] and not verdicts["none"]["authenticated"]
    assert not verdicts["undated"]["authenticated"]
    assert "not dated within a day" in verdicts["undated"]["why"]
    unchecked = json.loads(speakerbot("parse", str(tmp_path / "trusted.eml"),
                                      cwd=tmp_path).stdout)["authentication"]
    assert unchecked["checked"] is False and unchecked["authenticated"] is False


def test_inbound_list_show_and_retry(config: Path, tmp_path: Path) -> None:
    from speakerbot.adapters.store import Store

    assert speakerbot("init", "-c", str(config), cwd=tmp_path).returncode == 0
    with Store(f"sqlite:///{tmp_path / 'state' / 'game.db'}") as store:
        stored = store.store_inbound(RAW, datetime.now(UTC), source="test",
                                     set_aside="intake: ValueError: a test")
        good = store.store_inbound(RAW + b"\r\nmore\r\n", datetime.now(UTC), source="test")
    listing = speakerbot("inbound", "list", "--status", "set_aside", "-c", str(config),
                         cwd=tmp_path)
    assert listing.returncode == 0
    assert f"{stored.id:>6}  set_aside" in listing.stdout and "a test" in listing.stdout
    assert f"{good.id:>6}" not in listing.stdout
    show = speakerbot("inbound", "show", str(stored.id), "-c", str(config), cwd=tmp_path)
    assert show.returncode == 0 and "<m1@example.org>" in show.stdout
    assert "VOTE #301 yes" in show.stdout
    missing = speakerbot("inbound", "show", "999", "-c", str(config), cwd=tmp_path)
    assert missing.returncode == 1 and "no inbound message 999" in missing.stderr
    not_aside = speakerbot("inbound", "retry", str(good.id), "-c", str(config), cwd=tmp_path)
    assert not_aside.returncode == 2 and "set aside" in not_aside.stderr
    retried = speakerbot("inbound", "retry", str(stored.id), "-c", str(config), cwd=tmp_path)
    assert retried.returncode == 0, retried.stderr
    with Store(f"sqlite:///{tmp_path / 'state' / 'game.db'}") as store:
        assert store.inbound(stored.id).status == "new"
    again = speakerbot("inbound", "retry", str(stored.id), "-c", str(config), cwd=tmp_path)
    assert again.returncode == 2


def test_the_database_and_its_folder_are_created_private(config: Path, tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        assert speakerbot("init", "-c", str(config), cwd=tmp_path).returncode == 0
    finally:
        os.umask(old)
    folder = tmp_path / "state"
    assert folder.stat().st_mode & 0o777 == 0o700
    for path in folder.iterdir():
        assert path.stat().st_mode & 0o777 == 0o600, path
