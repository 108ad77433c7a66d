"""``speakerbot doctor`` at its edges, with no server to reach: a config that does not load is
a finding, not a traceback; a bad ``--nameserver`` is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_commands import CONFIG, speakerbot
from tests.support.dns_stub import NoSuchDomain
from tests.support.ports import free_port


def test_a_config_that_does_not_load_is_one_fault_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "game.toml"
    config.write_text(CONFIG.format(ruleset="suber", db=tmp_path / "game.db")
                      .replace("port = 2525", 'port = "2525"'))
    done = speakerbot("doctor", "-c", str(config), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "")
    [line] = done.stdout.splitlines()
    assert line.startswith(f"fault   config     {config}: [smtp] port: expected a whole "
                           "number from 1 to 65535")
    assert "-> correct [smtp] port as it says" in line
    as_json = speakerbot("doctor", "--json", "-c", str(config), cwd=tmp_path)
    assert as_json.returncode == 2
    [finding] = json.loads(as_json.stdout)
    assert (finding["check"], finding["level"], finding["game"]) == ("config", "fault", None)
    # No database was made for a game doctor could not read.
    assert not (tmp_path / "game.db").exists()


def test_a_missing_config_is_a_fault_saying_how_to_make_one(tmp_path: Path) -> None:
    done = speakerbot("doctor", "-c", str(tmp_path / "none.toml"), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "speakerbot config example > PATH" in done.stdout


def test_a_bad_nameserver_is_a_usage_error(tmp_path: Path) -> None:
    done = speakerbot("doctor", "--nameserver", "dns.example.org", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("speakerbot: --nameserver: expected an IP address")


def test_a_game_not_started_is_a_fault_and_no_database_is_made(tmp_path: Path) -> None:
    config = tmp_path / "game.toml"
    config.write_text(CONFIG.format(ruleset="suber", db=tmp_path / "game.db")
                      .replace("port = 2525", f"port = {free_port()}"))
    with NoSuchDomain() as dns:
        done = speakerbot("doctor", "--json", "-c", str(config), "--nameserver", dns.address,
                          cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == ""
    found = {finding["check"]: finding for finding in json.loads(done.stdout)}
    assert found["store"]["level"] == "fault"
    assert found["store"]["message"] == ("the database holds no game main yet, so there is no "
                                         "mail to look at")
    assert found["store"]["fix"] == "run speakerbot init"
    assert found["smtp"]["level"] == "fault" and "messages" not in found
    assert not (tmp_path / "game.db").exists()
