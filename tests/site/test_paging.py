"""Long lists are paged as the history is: a page, once full, never changes again.

The proposals' list shows the open ones and the newest others, and links a page of a
hundred for every hundred proposals (``proposals/list/<n>.html``); a player's page shows
the changes since their last full page of fifty and links the first and the latest
(``players/<slug>/<n>``, each written once full).
Kept page by page across each page's end, the site stays a full build, byte for byte.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from speakerbot.site.archive import CHANGES_PAGE, LATEST, LIST_PAGE
from tests.site.records import voted_record
from tests.site.test_incremental import keep

TEMPLATES = templates_dir() / "site"
Lines = list[dict[str, Any]]
PLAYER = "players/player-0"


@pytest.fixture(scope="module")
def lines() -> Lines:
    """A game of 160 proposals among two players: over a page of each list."""
    return voted_record(LIST_PAGE + 60, players=2)


@pytest.fixture(scope="module")
def files(lines: Lines) -> dict[str, str]:
    built = build_site(lines, TEMPLATES, name="Paged")
    return {path: content.decode() for path, content in built.items() if path.endswith("html")}


def changes_of(lines: Lines, player: str) -> list[int]:
    """Return where in ``lines`` the score of ``player`` changes."""
    return [n for n, line in enumerate(lines)
            if line["type"] == "ScoreChanged" and line["player"] == player]


def test_the_proposals_are_listed_a_hundred_a_page(files: dict[str, str]) -> None:
    first, second = files["proposals/list/1.html"], files["proposals/list/2.html"]
    assert "proposals/list/3.html" not in files
    assert first.count('<td><a href="../../proposals/') == LIST_PAGE
    assert second.count('<td><a href="../../proposals/') == 60
    assert "<h1>Proposals 301 to 400</h1>" in first and "<h1>Proposals 401 to 460</h1>" in second
    assert 'href="../../proposals/list/2.html">Page 2</a>' in first
    assert 'href="../../proposals/list/1.html">Page 1</a>' in second
    index = files["proposals/index.html"]
    assert re.findall(r'href="\.\./proposals/list/(\d)\.html">([^<]+)</a>', index) == [
        ("1", "301–400"), ("2", "401–460")]
    shown = re.findall(r'<td><a href="\.\./proposals/(\d+)\.html">', index)
    assert shown == [str(number) for number in range(460, 460 - LATEST, -1)]  # newest first


def test_a_players_page_shows_the_newest_changes_and_links_every_full_page(
        files: dict[str, str], lines: Lines) -> None:
    count = len(changes_of(lines, "p0@example.org"))
    full = count // CHANGES_PAGE
    assert full >= 2 and count - full * CHANGES_PAGE >= LATEST  # the newest: the last page's
    page = files[f"{PLAYER}.html"]
    newest = count - full * CHANGES_PAGE
    assert page.count("<tr><td>") == newest and f"The latest {newest} of {count}" in page
    linked = re.findall(r'href="\.\./(players/player-0/\d+\.html)">Page', page)
    assert linked == [f"{PLAYER}/1.html", f"{PLAYER}/{full}.html"]  # the first, the latest
    pages = [f"{PLAYER}/{n}.html" for n in range(1, full + 1)]
    assert f"{PLAYER}/{full + 1}.html" not in files  # written once full, never before
    assert sum(files[path].count("<tr><td>") for path in pages) == full * CHANGES_PAGE
    for number in range(1, full):  # each leads to the next
        assert f'href="../../{PLAYER}/{number + 1}.html">Page {number + 1}</a>' in files[
            f"{PLAYER}/{number}.html"]
    last = files[f"{PLAYER}/{full}.html"]
    assert f'href="../../{PLAYER}.html">Newer changes</a>' in last
    assert f'href="../../{PLAYER}.html">Player 0</a>' in last


def test_kept_across_each_pages_end_the_site_is_a_full_build(lines: Lines) -> None:
    submitted = [n for n, line in enumerate(lines) if line["type"] == "ProposalSubmitted"]
    closed = [n for n, line in enumerate(lines) if line["type"] == "VoteClosed"]
    changed = changes_of(lines, "p1@example.org")
    cuts = sorted({submitted[LIST_PAGE - 1], submitted[LIST_PAGE], submitted[LIST_PAGE] + 1,
                   closed[LIST_PAGE], closed[LIST_PAGE] + 1, changed[CHANGES_PAGE - 1],
                   changed[CHANGES_PAGE - 1] + 1, changed[CHANGES_PAGE], len(lines)})
    keep(lines, [cuts[0]] + [high - low for low, high in itertools.pairwise(cuts)])
