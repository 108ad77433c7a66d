"""``speakerbot player welcome (--all | EMAIL...)``: the host asks for the welcome letter."""

from __future__ import annotations

from pathlib import Path

from speakerbot.adapters.store import Store
from tests.cli.test_commands import CONFIG, speakerbot
from tests.support.mailgame import FAR_FUTURE


def _welcomes(db: Path) -> list[tuple[str, ...]]:
    """The recipients of each welcome waiting in the outbox."""
    with Store(f"sqlite:///{db}") as store:
        rows = store.due_outbox(FAR_FUTURE, limit=1000)
        return [tuple(row.recipients) for row in rows
                if b"Welcome to" in row.raw.split(b"\r\n\r\n")[0]]


def test_the_host_welcomes_players_and_bad_asks_change_nothing(tmp_path: Path) -> None:
    db = tmp_path / "state" / "game.db"
    config = tmp_path / "game.toml"
    config.write_text(CONFIG.format(ruleset="suber", db=db))
    assert speakerbot("init", "-c", str(config), cwd=tmp_path).returncode == 0
    for address, name in (("alice@cli.test", "Alice"), ("bob@cli.test", "Bob")):
        assert speakerbot("player", "add", address, name, "-c", str(config),
                          cwd=tmp_path).returncode == 0
    joined = _welcomes(db)  # each added player's own welcome, queued with the addition

    def welcome(*args: str) -> tuple[int, str]:
        done = speakerbot("player", "welcome", *args, "-c", str(config), cwd=tmp_path)
        return done.returncode, (done.stdout + done.stderr).strip()

    for bad in (("not-an-address",), ("--all", "alice@cli.test"), ()):
        code, said = welcome(*bad)
        assert code == 2 and said, (bad, said)
    code, said = welcome("carol@cli.test")
    assert code == 1 and "carol@cli.test" in said
    assert _welcomes(db) == joined, "a refused ask queued something"
    assert welcome("--all") == (
        0, "a welcome for 2 players is in the outbox: alice@cli.test, bob@cli.test")
    assert sorted(_welcomes(db)) == sorted(
        [*joined, ("alice@cli.test",), ("bob@cli.test",)])
