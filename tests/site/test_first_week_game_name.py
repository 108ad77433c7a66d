"""The game is named by its own name, never by the title of the ruleset it started from.

A game configured as "Loopback Nomic" and started from the nomicam preset (titled
"NomiCam") was "The game NomiCam" in HISTORY, the archive and its feeds, and JOIN was
answered "Welcome to NomiCam". The record's line now names the preset only as the ruleset
the game began from; mail that names the game uses the configured name.
"""

from __future__ import annotations

import re

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import replay
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.outbound import lookups
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import GameIdentity, Renderer
from speakerbot.mail.outbound.replies import ReplyWriter, outcome_of
from speakerbot.mail.outbound.sentences import record_line
from speakerbot.presets import load_preset
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.engine.cast import ALICE, BOB, SPEAKER
from tests.engine.harness import Game
from tests.site.records import public_lines

NAME = "Loopback Nomic"
RENDERER = Renderer(templates_dir())
LOOPBACK = GameIdentity(NAME, "nomic@loopback.example")
# The preset's title where the game's name belongs: "The game NomiCam", "of NomiCam", ...
AS_THE_GAME = re.compile(r"(game|to|of|in) NomiCam\b")


def game() -> Game:
    return Game("nomicam", [ALICE, BOB])


def test_the_record_s_line_names_the_preset_as_the_ruleset_the_game_began_from() -> None:
    g = game()
    started = g.of(e.GameStarted)[0]
    line = record_line(started, g.state.name_of)
    assert line is not None
    assert line.startswith("The game began from the ruleset NomiCam (the nomicam preset)"), line
    assert not AS_THE_GAME.search(line), line


def test_a_join_is_welcomed_without_the_preset_s_title() -> None:
    g = game()
    events = g.ok(c.Join("dora@example.org", "Dora"))
    said = outcome_of(events, g.state, "dora@example.org")
    assert "Welcome to the game, Dora: a letter of welcome follows" in said
    assert "NomiCam" not in said


def test_rules_and_show_mechanics_name_the_configured_game() -> None:
    g = game()
    writer = ReplyWriter(RENDERER, lang.help_text, game_name=NAME)
    assert writer.answer("RULES", g.state, ALICE).startswith(f"The current rules of {NAME}:")
    shown = " ".join(lookups.show_mechanics(RENDERER, g.state, NAME).split())
    assert f"The mechanics speakerbot enforces in {NAME}," in shown


def test_a_new_game_is_announced_under_the_game_s_name() -> None:
    g = game()
    g.ok(c.EndGame(SPEAKER, "a holiday"))
    before = replay(g.events)
    events = g.ok(c.StartGame(SPEAKER, load_preset("nomicam"), "Chuck", game_id="second",
                              players=((ALICE, "Alice"), (BOB, "Bob"))))
    [message] = [m for m in Announcer(LOOPBACK, RENDERER).messages(events, g.state, "1", before)
                 if "new game" in m.subject.lower()]
    words = " ".join(message.body.split())
    assert words.startswith(f"A new game of {NAME} begins, from the ruleset NomiCam"), words
    assert not AS_THE_GAME.search(message.subject + words)


@pytest.fixture(scope="module")
def site() -> dict[str, bytes]:
    return build_site(public_lines([("g1", game())]), templates_dir() / "site", name=NAME)


def test_no_page_or_feed_of_the_archive_calls_the_game_by_its_preset(
        site: dict[str, bytes]) -> None:
    pages = {path: data.decode() for path, data in site.items()
             if path.endswith((".html", ".atom"))}
    assert any(path.endswith(".atom") for path in pages)
    for path, text in pages.items():
        assert not AS_THE_GAME.search(text), (path, AS_THE_GAME.search(text))
    assert "from the ruleset <strong>NomiCam</strong>" in pages["index.html"]
