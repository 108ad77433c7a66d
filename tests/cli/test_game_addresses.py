"""The game's own addresses are never players: ``player add`` and ``admin ADD`` refuse them.

Mail from the game's address or its list is never acted on, so such a "player" could never
vote, and under unanimity no proposal could pass again. An address with a +tag on the
game's (``game+x@``) is delivered to the game as well. Through the real command line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_commands import CONFIG, speakerbot

OWN = ["game@cli.test", "Game@CLI.test", "game+x@cli.test", "GAME+Spare.Tag@cli.test",
       "players@cli.test", "players+digest@cli.test"]
"""The game's address, its list's, in any case and with +tags: all delivered to the game."""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "game.toml"
    text = CONFIG.format(ruleset="suber", db=tmp_path / "game.db")
    path.write_text(text.replace('admin_password = "pw"\n',
                                 'admin_password = "pw"\nlist = "players@cli.test"\n'))
    assert speakerbot("init", "-c", str(path), cwd=tmp_path).returncode == 0
    return path


def _record(config: Path, tmp_path: Path) -> str:
    exported = speakerbot("record", "export", "-", "-c", str(config), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    return exported.stdout


@pytest.mark.parametrize("address", OWN)
def test_player_add_refuses_an_address_of_the_game(config: Path, tmp_path: Path,
                                                   address: str) -> None:
    before = _record(config, tmp_path)
    added = speakerbot("player", "add", address, "Ghost", "-c", str(config), cwd=tmp_path)
    assert added.returncode == 2, added.stdout
    assert f"{address.lower()} is an address of the game itself" in added.stderr
    assert "cannot be a player" in added.stderr
    assert _record(config, tmp_path) == before


def test_admin_add_from_the_desk_refuses_an_address_of_the_game(config: Path,
                                                               tmp_path: Path) -> None:
    before = _record(config, tmp_path)
    for address in OWN:
        added = speakerbot("admin", "ADD", address, "Ghost", "-c", str(config), cwd=tmp_path)
        assert added.returncode == 1, (address, added.stdout, added.stderr)
        assert "Refused:" in added.stderr and "address of the game itself" in added.stderr
    assert _record(config, tmp_path) == before


def test_addresses_near_the_games_are_players_like_any_other(config: Path,
                                                            tmp_path: Path) -> None:
    # Only the game's own local part, alone or with a +tag, on its own domain, is the game's.
    for address, name in (("gamer@cli.test", "Gamer"), ("game@other.test", "Other"),
                          ("players-x@cli.test", "Dash"), ("xgame+x@cli.test", "Prefix")):
        added = speakerbot("player", "add", address, name, "-c", str(config), cwd=tmp_path)
        assert added.returncode == 0, (address, added.stderr)
    desk = speakerbot("admin", "ADD", "game.x@cli.test", "Dot", "-c", str(config), cwd=tmp_path)
    assert desk.returncode == 0, desk.stderr
