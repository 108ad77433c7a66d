"""The config of a game the command-line tests start: SQLite in a folder, no mail server up."""

from __future__ import annotations

from pathlib import Path


def game_config(folder: Path, ruleset: str) -> Path:
    """A game's config in ``folder``: its ruleset as given, its database a SQLite file there."""
    path = folder / "speakerbot.toml"
    path.write_text(f"""
[game]
name = "Test Nomic"
ruleset = "{ruleset}"
address = "game@nomic.test"
speaker = "chuck@nomic.test"
speaker_name = "Chuck"

[database]
url = "sqlite:///{folder / 'game.db'}"

[imap]
host = "127.0.0.1"
username = "game"
password = "imap-password"

[smtp]
host = "127.0.0.1"
port = 2525
security = "none"
""")
    return path
