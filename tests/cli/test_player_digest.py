"""``speakerbot player digest EMAIL on|off``: the host puts a player in digest mode."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_commands import CONFIG, speakerbot


def test_the_host_turns_a_players_digest_on_and_off(tmp_path: Path) -> None:
    config = tmp_path / "game.toml"
    config.write_text(CONFIG.format(ruleset="suber", db=tmp_path / "state" / "game.db")
                      .replace('admin_password = "pw"',
                               'admin_password = "pw"\ndigest_time = "07:30"\n'
                               'timezone = "Europe/Paris"'))
    assert speakerbot("init", "-c", str(config), cwd=tmp_path).returncode == 0
    assert speakerbot("player", "add", "alice@cli.test", "Alice", "-c", str(config),
                      cwd=tmp_path).returncode == 0

    def digest(*args: str) -> tuple[int, str, str]:
        done = speakerbot("player", "digest", *args, "-c", str(config), cwd=tmp_path)
        return done.returncode, done.stdout.strip(), done.stderr.strip()

    assert digest("Alice@cli.test", "on") == (
        0, "alice@cli.test now gets the public mail in one digest a day at 07:30 "
        "(Europe/Paris)", "")
    assert digest("alice@cli.test", "on")[:2] == (0, "alice@cli.test was in digest mode already")
    # speakerbot status says who reads by digest.
    status = speakerbot("status", "-c", str(config), cwd=tmp_path).stdout
    [alice] = [line for line in status.splitlines() if "alice@cli.test" in line]
    assert alice.split()[-1] == "digest", status
    assert digest("alice@cli.test", "off")[:2] == (
        0, "alice@cli.test now gets each public message as it is sent")
    status = speakerbot("status", "-c", str(config), cwd=tmp_path).stdout
    assert "digest" not in status, status
    code, _, said = digest("nobody@cli.test", "on")
    assert code == 1 and "no player or observer" in said
    assert digest("alice@cli.test", "maybe")[0] == 2
