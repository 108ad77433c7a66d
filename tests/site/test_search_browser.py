"""The archive's search in a real headless browser: served by HTTP and opened from a folder.

One Chromium session: a word of an amended rule's new text finds the rule, a proposal's
title finds the proposal, a word in no text says "nothing found", and the search page does
not scroll sideways at 375 px. The same search works from ``file://``, where the index is
read as scripts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from selenium import webdriver
from selenium.webdriver.support.ui import WebDriverWait

from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.site.browser import WIDTH, chromium
from tests.site.browser import served as serving
from tests.site.records import public_lines
from tests.site.search_game import TITLE, search_game

pytestmark = pytest.mark.integration

_RESULTS = """return [document.getElementById('search-status').textContent,
    Array.from(document.querySelectorAll('#search-results a'))
        .map(a => [a.textContent, a.getAttribute('href'), a.href])];"""


@pytest.fixture(scope="module")
def archive_files() -> dict[str, bytes]:
    return build_site(public_lines([("g-search", search_game())]), templates_dir() / "site",
                      name="Search test")


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory, archive_files: dict[str, bytes]) -> Path:
    """The built archive in a folder, to be opened from file://."""
    folder = tmp_path_factory.mktemp("archive")
    for path, content in archive_files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(content)
    return folder


@pytest.fixture(scope="module")
def served(archive: Path, archive_files: dict[str, bytes]) -> Iterator[str]:
    with serving(archive_files, archive) as address:
        yield address


def search(driver: webdriver.Chrome, page: str, query: str) -> tuple[str, list[list[str]]]:
    """Open ``page`` with ``?q=query``; return the status line and the links it found."""
    driver.get(f"{page}?q={quote(query)}")
    WebDriverWait(driver, 10, poll_frequency=0.05).until(
        lambda d: "found" in d.find_element("id", "search-status").text)
    status, links = driver.execute_script(_RESULTS)
    return str(status), [list(link) for link in links]


def test_search_in_a_browser(served: str, archive: Path) -> None:
    with chromium() as driver:
        status, links = search(driver, served + "search.html", "xylophones")
        assert links == [["Rule 202", "rules/202.html", served + "rules/202.html"]], status
        assert status == "1 found for “xylophones”."
        # A word of a text one amendment ago: the rule, once.
        pages = [link[1] for link in search(driver, served + "search.html", "marmalade")[1]]
        assert pages == ["rules/202.html"]

        status, links = search(driver, served + "search.html", TITLE.lower())
        assert [link[:2] for link in links] == [[f"Proposal 301: {TITLE}",
                                                 "proposals/301.html"]], status
        # The box on a rule's page leads to the game's search page, relative to the rule.
        driver.get(served + "rules/202.html")
        box = driver.find_element("css selector", "form.search input[name=q]")
        box.send_keys("heliotr\n")
        WebDriverWait(driver, 10, poll_frequency=0.05).until(
            lambda d: "found" in d.find_element("id", "search-status").text)
        assert driver.current_url.startswith(served + "search.html?q=heliotr")
        assert [link[1] for link in driver.execute_script(_RESULTS)[1]] == ["cfjs/1.html"]

        status, links = search(driver, served + "search.html", "qzxjwv plurb")
        assert links == [] and status == "Nothing found for “qzxjwv plurb”."
        assert driver.find_element("id", "search-status").is_displayed()
        width = int(driver.execute_script("return document.documentElement.scrollWidth"))
        assert width <= WIDTH

        # Opened from a folder: the index is read as scripts, which file:// allows.
        status, links = search(driver, (archive / "search.html").as_uri(), "tangerine")
        assert [link[0] for link in links] == ["Proposal 303: Tangerine time"], status
