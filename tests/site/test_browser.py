"""Whole games by mail through the daemon, then their archive in a real browser.

A nomicam game (with a CFJ) and a suber game, followed by the next game in the same
database, are played on real Dovecot and an SMTP sink;
the daemon keeps ``[site] dir`` up to date; ``speakerbot site build`` writes the same
archive; ``speakerbot site serve`` serves it and headless Chromium opens every page,
follows every link, checks the width at 375 px and keeps a screenshot of each kind of page
in the test's temporary folder.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from selenium import webdriver

from speakerbot.engine.chain import is_public
from speakerbot.site import MARKER
from tests.integration.game_harness import GAME, RunningGame, body_of
from tests.site.browser import Crawl, chromium, crawl
from tests.support.dovecot import DovecotServer
from tests.support.patience import patience, period
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

ALICE, BOB, CAROL = "alice@nomic.test", "bob@nomic.test", "carol@nomic.test"
KINDS = {"home", "games", "rules/index", "rules/initial", "rules/n", "proposals/index",
         "proposals/n", "cfjs/index", "cfjs/n", "players/index", "players/n", "history/index"}


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    with chromium() as driver:
        yield driver


def start_game(tmp: Path, dovecot: DovecotServer, sink: SmtpSink, ruleset: str,
               mechanics: dict[str, str]) -> RunningGame:
    game = RunningGame(tmp, dovecot, sink, f"sqlite:///{tmp / 'game.db'}", ruleset, mechanics)
    with game.config.open("a", encoding="utf-8") as config:
        config.write('\n[site]\ndir = "site"\nurl = "https://nomic.test/archive"\n')
    return game


def wait_for_daemon_site(game: RunningGame, timeout: float = patience(30)) -> list[str]:
    """Wait until the daemon's archive holds the whole public record; return its lines."""
    wanted = sum(1 for data in game.events() if is_public(data))
    record = game.tmp / "site" / "record.jsonl"
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        lines = record.read_text().splitlines() if record.exists() else []
        if len(lines) == wanted:
            return lines
        assert time.monotonic() < deadline, (len(lines), wanted, game.log_text()[-3000:])
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def _stops_on_ctrl_c() -> None:
    """In the server's process, before it starts: SIGINT is Ctrl-C, as at a terminal.

    A run started in the background of a script ignores SIGINT, and its children would
    inherit that: the server would never stop.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def serve_and_crawl(game: RunningGame, driver: webdriver.Chrome, shots: Path) -> Crawl:
    """Serve the game's archive with ``speakerbot site serve --port 0``; crawl it."""
    server = subprocess.Popen(
        [sys.executable, "-m", "speakerbot", "-c", str(game.config), "site", "serve",
         "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=game.env, cwd=game.tmp, preexec_fn=_stops_on_ctrl_c)
    try:
        assert server.stdout is not None and server.stderr is not None
        first = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", first)
        assert match, first + (server.stderr.read() if server.poll() is not None else "")
        shots.mkdir(exist_ok=True)
        return crawl(driver, match.group(0), shots)
    finally:
        server.send_signal(signal.SIGINT)  # Ctrl-C: it removes its folder and exits 0
        try:
            code = server.wait(patience(30))
        except subprocess.TimeoutExpired:
            server.kill()  # not left behind, serving
            server.wait()
            raise AssertionError("site serve did not stop on Ctrl-C") from None
        assert code == 0, server.stderr.read() if server.stderr else ""


def check_site(found: Crawl) -> None:
    assert found.broken == []
    assert found.too_wide == {}
    assert {"record.jsonl", "style.css", "scores.svg"} <= found.files
    for shot in found.shots.values():
        assert shot.stat().st_size > 1000


def test_a_nomicam_game_by_mail_in_the_archive(tmp_path: Path, dovecot: DovecotServer,
                                               smtp_sink: SmtpSink,
                                               browser: webdriver.Chrome) -> None:
    game = start_game(tmp_path, dovecot, smtp_sink, "nomicam",
                      {"voting_period": period(4), "win_points": "20",
                       "reminder_before": "none"})
    try:
        play_nomicam(game)
        daemon_lines = wait_for_daemon_site(game)
        assert (tmp_path / "site").is_symlink() and (tmp_path / "site" / MARKER).exists()
        assert game.stop() == 0
        built = game.cli("site", "build", str(tmp_path / "built"))
        assert "wrote" in built.stdout
        assert (tmp_path / "built" / "record.jsonl").read_text().splitlines() == daemon_lines
        for page in ("index.html", "proposals/301.html", "rules/202.html", "scores.svg"):
            assert (tmp_path / "built" / page).read_bytes() == \
                (tmp_path / "site" / page).read_bytes(), page
        found = serve_and_crawl(game, browser, tmp_path / "screenshots")
    finally:
        game.kill()
    check_site(found)
    assert set(found.shots) >= KINDS, set(found.shots)
    check_nomicam_content(game, found)
    check_for_visitors(game, found, (tmp_path / "built" / "scores.svg").read_text())


def play_nomicam(game: RunningGame) -> None:
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(CAROL, "joining", "JOIN Carol\n")
    game.wait_subject("Re: joining", to=CAROL)
    game.send(ALICE, "PROPOSE: Sing", "Players may sing.\n")
    game.wait_subject("Proposal 301: Sing")
    game.send(ALICE, "mine", "VOTE 301 FOR\n")
    game.send(BOB, "my vote", "VOTE 301 FOR\n")
    game.send(CAROL, "my vote", "VOTE 301 AGAINST\n")
    game.wait_subject("Proposal 301 ADOPTED")
    game.send(BOB, "a question", "CFJ Alice may sing.\nRule 301 says so.\nEND CFJ\n")
    game.wait_subject("CFJ 1")
    judge = game.state().cfjs[1].judge
    assert judge is not None
    game.send(judge, "my judgement", "JUDGEMENT 1 TRUE\nIt says so.\nEND JUDGEMENT\n")
    game.wait_for(lambda m: "Judgement: TRUE" in body_of(m))
    game.send(ALICE, "PROPOSE: Points may be traded",
              "AMEND RULE 202:\nAll players begin with 0 points. Points may be traded.\n")
    game.wait_subject("Proposal 302:")
    game.send(BOB, "vote", "VOTE 302 FOR\n")
    game.wait_subject("Proposal 302 ADOPTED")
    game.wait_for(lambda m: "Game 2 begins" in body_of(m))


def check_nomicam_content(game: RunningGame, found: Crawl) -> None:
    state = game.state()
    rules = found.pages["rules/index.html"]
    assert "All players begin with 0 points. Points may be traded." in rules
    for number in state.rules:
        assert f"Rule {number}" in rules
    assert "Points may not be gained" in found.pages["rules/initial.html"]
    history = found.pages["rules/202.html"]
    assert "Amended" in history and "proposal 302" in history
    first = found.pages["proposals/301.html"]
    assert "Result: ADOPTED" in first and "2 FOR, 1 AGAINST" in first
    assert f"Game id: {state.game_id}" in first
    for name, choice in (("Alice", "FOR"), ("Bob", "FOR"), ("Carol", "AGAINST")):
        assert re.search(rf"{name}\s+{choice}", first), name
    receipts = [line.split()[1] for m in game.sink.messages if "Receipt:" in body_of(m)
                for line in body_of(m).splitlines() if line.startswith("Receipt:")]
    pages = "\n".join(found.pages[f"proposals/{n}.html"] for n in (301, 302))
    for receipt in receipts:  # each confirmation's receipt is among the published lines
        assert receipt in pages
    cfj = found.pages["cfjs/1.html"]
    assert "Alice may sing." in cfj and "TRUE" in cfj and "It says so." in cfj
    players = found.pages["players/index.html"]
    for player in state.players.values():
        assert player.name in players
    assert "Game 2 begins" in found.pages["history/index.html"]
    home = found.pages["index.html"]
    assert f"The Speaker is {state.name_of(state.speaker)}" in home
    # Every page was reached from the home page: the fixed ones, one per thing, and the
    # one page of every proposal (proposals/list/1.html: fewer than a hundred).
    assert "proposals/list/1.html" in found.pages
    assert len(found.pages) == 8 + len(state.rules) + len(state.repealed) + len(
        state.proposals) + len(state.cfjs) + len(state.players) + 1, sorted(found.pages)


def check_for_visitors(game: RunningGame, found: Crawl, chart: str) -> None:
    """What the issue's "Done when" asks, seen in the browser at 375 px."""
    state = game.state()
    assert found.too_wide == {}  # home, rules and proposal pages among every other
    assert {"index.html", "rules/index.html", "proposals/301.html"} <= set(found.pages)
    exported = (game.tmp / "built" / "record.jsonl").read_text()
    for address in (ALICE, BOB, CAROL):
        assert address not in exported
        for path, text in found.pages.items():
            assert address not in text, (path, address)
    assert f"write to {GAME}" in found.pages["index.html"]
    # A closed vote offers no ballot line; the home page JOIN, HELP and STATUS, as mails.
    assert [path for path in found.mailtos if "proposals/" in path] == []
    assert {subject for _, subject in map(mail_of, found.mailtos["index.html"])} >= {
        "HELP", "STATUS"}
    (image,) = [item for item in found.images["index.html"] if item[0].endswith("scores.svg")]
    _, shown, drawn = image
    sizes = [float(size) for size in re.findall(r"font-size:([\d.]+)px", chart)]
    assert min(sizes) * shown / drawn >= 11, (min(sizes), shown, drawn)
    legend = re.findall(r'class="legend reactive activate-serie">.*?<text[^>]*>([^<]+)</text>',
                        chart)
    current = {p.name for p in state.active_players()}  # the Speaker too
    assert set(legend) == current and len(legend) == len(current)


def test_a_suber_game_by_mail_and_the_next_game_in_the_archive(
        tmp_path: Path, dovecot: DovecotServer, smtp_sink: SmtpSink,
        browser: webdriver.Chrome) -> None:
    game = start_game(tmp_path, dovecot, smtp_sink, "suber",
                      {"win_points": "12", "reminder_before": "none"})
    try:
        play_suber(game)
        state = game.state()
        assert state.ended
        game.cli("new-game")
        # The command line's transaction does not wake the daemon; the next mail does, and
        # the archive follows it.
        game.send(ALICE, "again", "JOIN Alice\n")
        game.wait_subject("Re: again", to=ALICE)
        # An open proposal in the current game (a week to vote: still open when crawled).
        now = game.state()
        assert now.turn is not None
        number = now.next_proposal
        game.send(now.turn.mover, "PROPOSE: Tea", "Tea.\nENACT RULE:\nTea is served.\n")
        game.wait_subject(f"Proposal {number}: Tea")
        wait_for_daemon_site(game)
        assert game.stop() == 0
        found = serve_and_crawl(game, browser, tmp_path / "screenshots")
    finally:
        game.kill()
    check_site(found)
    winner = state.name_of(state.winners[0])
    pages = found.pages
    assert "games.html" in pages and "Game 2 (the current game)" in pages["games.html"]
    past = f"games/{state.game_id}/index.html"  # the ended game (state is from before)
    assert "This game has ended" in pages[past] and winner in pages[past]
    assert any(path.startswith("games/") and "/proposals/" in path for path in pages)
    page = pages[f"proposals/{number}.html"]
    assert f"VOTE {number} FOR" in page and f"VOTE {number} AGAINST" in page
    # Each ballot line of the open proposal is a mail to the game, written for the player.
    assert [mail_of(href) for href in found.mailtos[f"proposals/{number}.html"]] == [
        (GAME, f"VOTE {number} {choice}") for choice in ("FOR", "AGAINST", "ABSTAIN")]
    for address in (ALICE, BOB):
        for path, text in pages.items():
            assert address not in text, (path, address)


def mail_of(href: str) -> tuple[str, str]:
    """Return the address and the line a ``mailto:`` link writes (its subject and body)."""
    parts = urlsplit(href)
    fields = parse_qs(parts.query, strict_parsing=True)
    assert parts.scheme == "mailto" and fields["subject"] == fields["body"], href
    return unquote(parts.path), fields["body"][0]


def play_suber(game: RunningGame) -> None:
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    for turn in range(1, 30):
        state = game.state()
        if state.ended:
            return
        assert state.turn is not None
        mover, number = state.turn.mover, state.next_proposal
        game.send(mover, f"PROPOSE: Turn {turn}", f"Turn {turn}.\nENACT RULE:\nRule {turn}.\n")
        game.wait_subject(f"Proposal {number}:")
        other = BOB if mover == ALICE else ALICE
        game.send(other, f"vote {number}", f"VOTE {number} FOR\n")
        game.send(mover, f"vote {number} mine", f"VOTE {number} FOR\n")
        game.wait_subject(f"Proposal {number} ADOPTED")
        if game.sent("won the game"):
            game.wait_for(lambda m: "won the game" in str(m.parsed()["Subject"]))
            return
