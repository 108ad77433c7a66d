"""Issue 39's "Done when", in a real browser at 375 px: the archive as a player's tool.

A nomicam game played within one day (an amendment, receipts, an open proposal, the
Speaker among the players), built and served by HTTP, opened in headless Chromium 375 px
wide: the receipts block is seen whole, the chart's axis labels are distinct and apart and
its legend names every player, the open proposal offers a ``mailto:`` link for each ballot
line (read back from the page's own links), and the amended paragraph's changed words are
marked. Every wait is the browser's own (a page's load, ``WebDriverWait``): no sleep.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from selenium import webdriver
from selenium.webdriver.support.ui import WebDriverWait

from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.engine.harness import Game
from tests.site.browser import WIDTH, chromium, served
from tests.site.records import nomicam_game, public_lines

pytestmark = pytest.mark.integration

ADDRESS = "nomic@play.test"

_BOX = """const e = document.querySelector(arguments[0]); const r = e.getBoundingClientRect();
return [r.left, r.right, e.scrollWidth, e.clientWidth, window.innerWidth];"""
_LABELS = """return Array.from(document.querySelectorAll('text'))
    .filter(t => t.getAttribute('y') === arguments[0])
    .map(t => { const b = t.getBBox(); return [t.textContent, b.x, b.x + b.width]; });"""
_LEGEND = "return Array.from(document.querySelectorAll('g.legend text')).map(t => t.textContent);"
_MAILTOS = """return Array.from(document.querySelectorAll('a[href^="mailto:"]')).map(a => {
    const r = a.getBoundingClientRect();
    return [a.getAttribute('href'), a.textContent, r.left, r.right, r.height]; });"""
_MARKED = """return Array.from(document.querySelectorAll(arguments[0])).map(e =>
    [e.textContent, getComputedStyle(e).textDecorationLine, e.getBoundingClientRect().width]);"""


@pytest.fixture(scope="module")
def game() -> Game:
    return nomicam_game(3)


@pytest.fixture(scope="module")
def site(game: Game, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    files = build_site(public_lines([("g-phone", game)]), templates_dir() / "site",
                       name="Phone Nomic", address=ADDRESS)
    with served(files, tmp_path_factory.mktemp("archive")) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    with chromium() as driver:
        yield driver


def open_page(driver: webdriver.Chrome, url: str, selector: str) -> None:
    """Open ``url`` and wait until ``selector`` is in it; nothing of it scrolls sideways."""
    driver.get(url)
    WebDriverWait(driver, 10, poll_frequency=0.05).until(
        lambda d: d.find_elements("css selector", selector))
    width = int(driver.execute_script("return document.documentElement.scrollWidth"))
    assert width <= WIDTH, (url, width)


def test_the_receipts_block_is_shown_whole(site: str, browser: webdriver.Chrome) -> None:
    open_page(browser, site + "proposals/301.html", "pre.receipts")
    left, right, scrolled, shown, viewport = browser.execute_script(_BOX, "pre.receipts")
    assert viewport == WIDTH
    assert left >= 0 and right <= viewport, (left, right)
    assert scrolled <= shown, (scrolled, shown)  # nothing of it hidden beyond its edge
    text = browser.find_element("css selector", "pre.receipts").text
    assert len(text.splitlines()) >= 3  # three receipts, each wrapped within the screen
    assert "mailto:" not in browser.page_source  # a closed vote: no ballot to send


def test_the_chart_has_distinct_labels_and_every_player(site: str, game: Game,
                                                        browser: webdriver.Chrome) -> None:
    open_page(browser, site + "scores.svg", "g.legend")
    labels: list[list[Any]] = browser.execute_script(_LABELS, "258")
    names = [label[0] for label in labels]
    assert len(names) == 3 and len(set(names)) == 3, names
    for (_, _, end), (_, start, _) in pairwise(labels):
        assert end < start, labels  # apart, not drawn over each other
    legend = browser.execute_script(_LEGEND)
    players = [player.name for player in game.state.active_players()]
    assert sorted(legend) == sorted(players) and game.state.name_of(
        game.state.speaker) in legend, legend


def test_an_open_proposal_has_a_mail_for_each_ballot_line(site: str, game: Game,
                                                          browser: webdriver.Chrome) -> None:
    number = max(game.state.proposals)
    open_page(browser, site + f"proposals/{number}.html", "ul.ballot a")
    links = browser.execute_script(_MAILTOS)
    lines = [f"VOTE {number} {choice}" for choice in ("FOR", "AGAINST", "ABSTAIN")]
    assert [link[1] for link in links] == lines
    for href, line, left, right, height in links:
        parts = urlsplit(href)
        fields = parse_qs(parts.query, strict_parsing=True)
        assert (parts.scheme, unquote(parts.path)) == ("mailto", ADDRESS)
        assert fields == {"subject": [line], "body": [line]}
        assert left >= 0 and right <= WIDTH and height >= 24  # on screen, big enough to tap


def test_the_changed_words_of_an_amended_paragraph_are_marked(
        site: str, browser: webdriver.Chrome) -> None:
    open_page(browser, site + "rules/202.html", "pre.diff")
    removed = browser.execute_script(_MARKED, "pre.diff .removed del")
    assert [item[0] for item in removed] == [
        "not", "gained, lost, or", "except as explicitly stated in the rules"]
    assert all(decoration == "line-through" and width > 0 for _, decoration, width in removed)
    line = browser.find_element("css selector", "pre.diff .removed").text
    assert "Points may not be gained, lost, or traded" in line  # the paragraph itself whole
