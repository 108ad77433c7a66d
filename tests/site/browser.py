"""A real headless browser for the archive's test: Debian's Chromium, driven by Selenium.

Chromium starts with the flags that keep it off the network (the machine has none; without
them it stalls looking for updates and the like) and a fresh profile. ``crawl`` opens every
page reachable from the home page, checks that nothing scrolls sideways at 375 px and that
every link resolves (pages in the browser, with their anchors; other files by HTTP; a
``mailto:`` link is kept to be read, never followed), and keeps a screenshot of the first
page of each kind.
"""

from __future__ import annotations

import functools
import re
import shutil
import tempfile
import threading
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests.support.patience import patience
from tests.support.ports import INSTALL_HINT, MissingServerBinary

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
WIDTH = 375
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars")
_LINKS = """return Array.from(document.querySelectorAll('a[href], img[src], link[href]'))
    .map(e => e.href || e.src);"""
_IDS = "return Array.from(document.querySelectorAll('[id]')).map(e => e.id);"
_IMAGES = """return Array.from(document.images)
    .map(e => [e.getAttribute('src'), e.getBoundingClientRect().width, e.naturalWidth]);"""


def page_kind(path: str) -> str:
    """Name a page's kind from its path: ``proposals/301.html`` is ``proposals/n``."""
    path = re.sub(r"^games/[^/]+/", "", path)
    folder, _, name = path.rpartition("/")
    if not folder:
        return "home" if name in ("", "index.html") else name.removesuffix(".html")
    if name in ("index.html", "initial.html"):
        return f"{folder}/{name.removesuffix('.html')}"
    return f"{folder}/n"


@contextmanager
def chromium() -> Iterator[webdriver.Chrome]:
    """Start headless Chromium, 375 px wide, with a profile of its own; quit it after."""
    if shutil.which(CHROMIUM) is None or shutil.which(DRIVER) is None:
        raise MissingServerBinary(f"Chromium or chromedriver is missing; {INSTALL_HINT}")
    profile = tempfile.mkdtemp(prefix="speakerbot-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={WIDTH},900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    try:
        driver.set_window_size(WIDTH, 900)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep the test's output to what fails."""


@contextmanager
def served(files: Mapping[str, bytes], folder: Path) -> Iterator[str]:
    """Write a built site's ``files`` into ``folder`` and serve it by HTTP; yield its address."""
    for path, content in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(content)
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


@dataclass
class Crawl:
    """What a crawl of the archive found."""

    pages: dict[str, str] = field(default_factory=dict)  # path: the page's text
    files: set[str] = field(default_factory=set)  # other files, fetched by HTTP
    too_wide: dict[str, int] = field(default_factory=dict)  # path: scrollWidth
    broken: list[str] = field(default_factory=list)
    shots: dict[str, Path] = field(default_factory=dict)  # kind: screenshot
    # path: each image's (file, width shown, width drawn), to tell the size its type is seen
    images: dict[str, list[tuple[str, float, float]]] = field(default_factory=dict)
    # path: each mailto: link's href (a message to the game, written for the player)
    mailtos: dict[str, list[str]] = field(default_factory=dict)


def crawl(driver: webdriver.Chrome, base: str, shots: Path) -> Crawl:
    """Open every page reachable from ``base + "index.html"``; follow every link."""
    found = Crawl()
    queue, seen = ["index.html"], {"index.html"}
    anchors: list[tuple[str, str, str]] = []  # (from, to, anchor)
    ids: dict[str, set[str]] = {}
    while queue:
        path = queue.pop(0)
        driver.get(base + path)
        if driver.title.startswith("404") or "Error response" in driver.title:
            found.broken.append(path)
            continue
        found.pages[path] = driver.find_element("tag name", "body").text
        ids[path] = set(driver.execute_script(_IDS))
        found.images[path] = [(str(src), float(shown), float(drawn))
                              for src, shown, drawn in driver.execute_script(_IMAGES)]
        width = int(driver.execute_script("return document.documentElement.scrollWidth"))
        if width > WIDTH:
            found.too_wide[path] = width
        kind = page_kind(path)
        if kind not in found.shots:
            found.shots[kind] = _screenshot(driver, shots, kind)
        for link in driver.execute_script(_LINKS):
            if link.startswith("mailto:"):  # the one link that leaves: a message to write
                found.mailtos.setdefault(path, []).append(link)
                continue
            target, anchor = urldefrag(link)
            if not target.startswith(base):
                found.broken.append(f"{path} -> {link} (leaves the archive)")
                continue
            relative = target.removeprefix(base)
            if anchor:
                anchors.append((path, relative, anchor))
            if relative in seen:
                continue
            seen.add(relative)
            if relative.endswith(".html"):
                queue.append(relative)
            else:
                found.files.add(relative)
    for relative in found.files:
        with urllib.request.urlopen(base + relative, timeout=patience(10)) as response:
            if response.status != 200 or not response.read():
                found.broken.append(relative)
    found.broken += [f"{page} -> {target}#{anchor}" for page, target, anchor in anchors
                     if anchor not in ids.get(target, set())]
    return found


def _screenshot(driver: webdriver.Chrome, folder: Path, kind: str) -> Path:
    """Save the whole page, 375 px wide, as ``<kind>.png`` in ``folder``."""
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.set_window_size(WIDTH, min(max(height, 600), 8000))
    target = folder / (kind.replace("/", "-") + ".png")
    driver.save_screenshot(str(target))
    driver.set_window_size(WIDTH, 900)
    return target
