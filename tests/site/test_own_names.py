"""The site's own files keep their names: no player or rule named like one replaces it.

A player's page is named after the player; before the names the site writes itself were
reserved, a player called "Index" wrote ``players/index.html`` over the list of players.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import PurePosixPath

import pytest

from speakerbot.engine import commands as c
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.engine.cast import ALICE, SPEAKER
from tests.engine.harness import Game, enact
from tests.site.records import public_lines

TEMPLATES = templates_dir() / "site"
# Each of the site's own pages, and what it says of itself, to tell it from a player's page.
TITLES = {"index.html": "<h1>Test Nomic</h1>", "games.html": "<h1>Every game played here</h1>",
          "rules/index.html": "<h1>The current ruleset</h1>",
          "rules/initial.html": "<h1>The initial ruleset</h1>",
          "proposals/index.html": "<h1>Proposals</h1>",
          "cfjs/index.html": "<h1>Calls for judgement</h1>",
          "players/index.html": "<h1>Players</h1>", "history/index.html": "<h1>History"}
NAMES = ("index", "games", "record", "style", "scores", "rules", "initial", "proposals",
         "cfjs", "players", "history", "feed")


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    """A game with a player, a proposal and a rule named like each of the site's files."""
    game = Game("nomicam", [ALICE], mechanics={"voting_period": "1h"})
    for number, name in enumerate(NAMES):
        game.ok(c.AddPlayer(SPEAKER, f"p{number}@example.org", name.capitalize()))
    adopted = game.propose(ALICE, enact("index"), title="index")
    game.votes(adopted, alice="FOR")
    game.later(timedelta(hours=2))
    for name in NAMES:
        game.propose(ALICE, enact(name), title=name)
    return build_site(public_lines([("g1", game)]), TEMPLATES, name="Test Nomic")


def test_the_reserved_names_are_every_name_the_site_writes_itself(
        files: dict[str, bytes]) -> None:
    """Each file of a build is one of the site's own, or one named by the record."""
    from speakerbot.site.archive import OWN_FILES, RESERVED

    data_page = re.compile(r"(rules|proposals|cfjs|history)/[0-9-]+\.html|players/[a-z0-9-]+\.html"
                           r"|rules/[0-9-]+\.atom|search/(terms|docs)/[a-z0-9_-]+\.js"
                           r"|proposals/list/[0-9]+\.html|players/[a-z0-9-]+/[0-9]+\.html")
    for path in files:
        inside = re.sub(r"^games/[^/]+/", "", path)
        if inside not in OWN_FILES.values():
            assert data_page.fullmatch(inside), path
    for path in OWN_FILES.values():
        assert path in files
        for part in PurePosixPath(path).parts:
            assert part.split(".")[0] in RESERVED


def test_every_own_page_is_still_itself_beside_players_named_like_them(
        files: dict[str, bytes]) -> None:
    for path, heading in TITLES.items():
        assert heading in files[path].decode(), path
    players = files["players/index.html"].decode()
    for name in NAMES:
        assert f'href="../players/{name}.html">{name.capitalize()}</a>' not in players, name
    # Each player has a page of their own, with their name on it.
    linked = re.findall(r'<td><a href="\.\./(players/[^"]+)">([^<]+)</a>', players)
    assert len({page for page, _ in linked}) == len(linked) == len(NAMES) + 2  # Alice, Chuck
    for page, name in linked:
        assert f"<h1>{name}</h1>" in files[page].decode()
