"""The command line on a game played through the service: its config file, and a run of it.

The record tests play a game with ``MailGame`` and then read or change its SQLite database
with ``speakerbot`` as the host would, from a process of its own.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.commands import speakerbot as forked
from tests.support.mailgame import MailGame

CONFIG = """
[game]
name = "Camford Nomic"
ruleset = "{ruleset}"
address = "nomic@camford.example"
speaker = "speaker@camford.example"
speaker_name = "Speaker"
admin_password = "pw"

[database]
url = "sqlite:///{db}"
"""


def write_config(game: MailGame, folder: Path, ruleset: str) -> Path:
    """Write ``folder``/game.toml, which opens ``game``'s database; return its path."""
    url = game.settings.database.url
    assert url.startswith("sqlite:///")
    config = folder / "game.toml"
    config.write_text(CONFIG.format(ruleset=ruleset, db=url.removeprefix("sqlite:///")))
    return config


def speakerbot(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``speakerbot -c config args...`` and return what it did (it may fail)."""
    return forked(["-c", str(config), *args], env=os.environ, cwd=Path.cwd(), timeout=60)
