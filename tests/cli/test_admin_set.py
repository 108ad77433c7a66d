"""``ADMIN SET`` as the host writes it: echoed in its own order, and a near miss named.

Through the real command line (``speakerbot admin``), which answers in the words of the
mail reply.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_commands import config, speakerbot

__all__ = ["config"]  # the fixture: a suber game's configuration


def test_a_done_admin_set_repeats_the_words_as_written(config: Path, tmp_path: Path) -> None:
    assert speakerbot("init", "-c", str(config), cwd=tmp_path).returncode == 0
    done = speakerbot("admin", "SET", "voting_period", "2h", "-c", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ADMIN SET voting_period 2h: Done"), done.stdout


def test_an_unknown_mechanic_is_refused_naming_the_nearest(config: Path,
                                                           tmp_path: Path) -> None:
    assert speakerbot("init", "-c", str(config), cwd=tmp_path).returncode == 0
    refused = speakerbot("admin", "SET", "quorum", "5", "-c", str(config), cwd=tmp_path)
    assert refused.returncode == 1, refused.stdout
    assert ("ADMIN SET quorum 5: Refused: SET quorum: there is no mechanic called 'quorum'; "
            "did you mean quorum_percent?") in refused.stderr
