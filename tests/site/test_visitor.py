"""The archive tells a visitor how to play: where to write, what to send, what is in force.

The home page gives the game's address and the first commands; an open proposal's page the
lines that vote on it; the ruleset the mechanics enforced (value and rule), a list to
jump to each rule, and a mark on the rules changed in the 14 days before the build's time
(passed in, never read from a clock). The chart's type is at least 11 px as a phone shows
it and its legend names every current player, the Speaker too.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

from speakerbot.engine import commands as c
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.engine.cast import BOB, SPEAKER, T0
from tests.engine.harness import Game
from tests.site.records import nomicam_game, public_lines

TEMPLATES = templates_dir() / "site"
ADDRESS = "nomic@game.test"


def build(lines: list[dict[str, Any]], **options: Any) -> dict[str, bytes]:
    return build_site(lines, TEMPLATES, name="Test Nomic", address=ADDRESS, **options)


@pytest.fixture(scope="module")
def game() -> Game:
    played = nomicam_game(3)
    played.ok(c.RemovePlayer(SPEAKER, BOB))
    return played


@pytest.fixture(scope="module")
def lines(game: Game) -> list[dict[str, Any]]:
    return public_lines([("g1", game)])


def test_the_home_page_says_where_to_write_and_what_to_send(lines: list[dict[str, Any]]) -> None:
    home = build(lines)["index.html"].decode()
    assert f'<code class="address">{ADDRESS}</code>' in home
    for command in ("JOIN your name", "VOTE 301 FOR", "PROPOSE a title", "HELP"):
        assert command in home, command


def test_an_open_proposal_shows_the_lines_that_vote_on_it(game: Game,
                                                         lines: list[dict[str, Any]]) -> None:
    number = max(game.state.proposals)
    page = build(lines)[f"proposals/{number}.html"].decode()
    for choice in ("FOR", "AGAINST", "ABSTAIN"):
        assert f">VOTE {number} {choice}</a>" in page, choice
    closed = build(lines)["proposals/301.html"].decode()
    assert "VOTE 301 FOR" not in closed


def test_the_ruleset_lists_the_mechanics_in_force_and_a_jump_list(
        game: Game, lines: list[dict[str, Any]]) -> None:
    rules = build(lines)["rules/index.html"].decode()
    assert 'id="mechanics"' in rules
    mechanics = game.state.rules_mechanics
    period = mechanics.formatted("voting_period")
    row = re.search(r"<tr><td>[^<]*</td><td>" + re.escape(period) + r"</td><td>(.*?)</td>", rules)
    assert row is not None
    source = game.state.sources.get("voting_period")
    assert (f"Rule {source}" if source else "the preset") in row.group(1)
    jump = rules.split('<nav class="jump"', 1)[1].split("</nav>")[0]
    for number in game.state.rules:
        assert f'#rule-{number}">{number}</a>' in jump


def _changed(rules: str) -> set[str]:
    jump = rules.split('<nav class="jump"', 1)[1].split("</nav>")[0]
    return set(re.findall(r'#rule-(\d+)">\d+</a> <span class="tag changed">', jump))


def test_rules_changed_in_the_last_14_days_of_the_builds_time_are_marked(
        game: Game, lines: list[dict[str, Any]]) -> None:
    amended = {str(number) for number, rule in game.state.rules.items()
               if rule.history[-1].kind != "initial"}
    assert amended
    soon = build(lines, now=T0 + timedelta(days=13))["rules/index.html"].decode()
    later = build(lines, now=T0 + timedelta(days=15))["rules/index.html"].decode()
    assert _changed(soon) == amended
    assert _changed(later) == set()


def test_the_charts_type_is_readable_on_a_phone_and_its_legend_names_current_players(
        lines: list[dict[str, Any]]) -> None:
    files = build(lines)
    svg = files["scores.svg"].decode()
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))  # type: ignore[union-attr]
    shown = min(width, 375 - 2 * 16)  # the page's margins at 375 px
    sizes = [int(size) for size in re.findall(r"font-size:(\d+)px", svg)]
    assert sizes and min(sizes) * shown / width >= 11
    legend = re.findall(r'class="legend reactive activate-serie">.*?<text[^>]*>([^<]+)</text>',
                        svg)
    # Bob was removed; Chuck, the Speaker, has a score and a line like every player.
    assert legend == ["Chuck", "Alice", "Carol"]
