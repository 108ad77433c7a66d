"""The archive's pages, built from scripted games' public records (no browser)."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from speakerbot.engine import chain
from speakerbot.engine import commands as c
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from speakerbot.site.archive import HISTORY_PAGE
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import Game, enact
from tests.site.records import SALT, nomicam_game, public_lines

TEMPLATES = templates_dir() / "site"
LAYOUT = ("index.html", "rules/index.html", "rules/initial.html", "rules/202.html",
          "proposals/index.html", "proposals/301.html", "cfjs/index.html", "cfjs/1.html",
          "players/index.html", "players/alice.html", "history/index.html", "record.jsonl",
          "games.html", "style.css", "scores.svg")


def build(lines: list[dict[str, Any]]) -> dict[str, bytes]:
    return build_site(lines, TEMPLATES, name="Test <Nomic>")


def text(files: dict[str, bytes], path: str) -> str:
    return files[path].decode("utf-8")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)
            if name == "id" and value is not None:
                self.ids.add(value)


def parsed(content: bytes) -> _Links:
    links = _Links()
    links.feed(content.decode("utf-8"))
    return links


def broken_links(files: dict[str, bytes]) -> list[str]:
    """Return every link of every page that leads to no file or no such anchor."""
    pages = {path: parsed(content) for path, content in files.items()
             if path.endswith(".html")}
    broken = []
    for path, page in pages.items():
        for link in page.links:
            assert "://" not in link and not link.startswith("/"), (path, link)
            target, _, anchor = link.partition("#")
            parts: list[str] = []
            for part in (PurePosixPath(path).parent / target).parts:
                if part == "..":
                    assert parts, (path, link)
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            resolved = "/".join(parts)
            if resolved not in files or (anchor and anchor not in pages[resolved].ids):
                broken.append(f"{path} -> {link}")
    return broken


@pytest.fixture(scope="module")
def game() -> Game:
    return nomicam_game(5)


@pytest.fixture(scope="module")
def files(game: Game) -> dict[str, bytes]:
    return build(public_lines([("g-one", game)]))


def test_the_layout_the_mail_links_to(files: dict[str, bytes]) -> None:
    for path in LAYOUT:
        assert path in files, path
    assert broken_links(files) == []


def test_the_rules_as_the_game_has_them(game: Game, files: dict[str, bytes]) -> None:
    ruleset = text(files, "rules/index.html")
    for rule in game.state.rules.values():
        assert f'href="../rules/{rule.number}.html">Rule {rule.number}</a>' in ruleset
    assert "All players begin with 0 points. Points may be traded." in ruleset
    initial = text(files, "rules/initial.html")
    assert "Points may not be gained, lost, or traded" in initial
    history = text(files, "rules/202.html")
    assert "Amended" in history and 'href="../proposals/301.html">proposal 301</a>' in history
    # The paragraph changed in a few words: the line removed and the line added, and in
    # the removed one exactly the words that went.
    assert '<span class="line removed"><span class="mark">-</span> All players begin with 0 ' \
           "points. Points may <del>not</del> be <del>gained, lost, or</del> traded" in history
    assert '<span class="line added"><span class="mark">+</span> All players begin with 0 ' \
           "points. Points may be traded.</span>" in history
    enacted = text(files, "rules/303.html")
    assert "Rule number 0." in enacted and "Enacted" in enacted


def test_a_closed_proposal_shows_its_result_ballots_and_receipts(
        game: Game, files: dict[str, bytes]) -> None:
    page = text(files, "proposals/301.html")
    assert "Result: ADOPTED" in page and "2 FOR, 1 AGAINST (3 cast, 3 eligible)" in page
    assert "Quorum</dt><dd>1 of the 3 Voters" in page and "Threshold" in page
    assert "Game id: <code>g-one</code>" in page
    receipts = re.search(r'<pre class="receipts">(.*?)</pre>', page, re.S)
    assert receipts is not None
    lines = re.sub(r"</?span>", "", receipts.group(1)).strip().splitlines()  # one per line
    assert len(lines) == 3
    for line, (voter, choice) in zip(lines, (("alice@example.org", "FOR"),
                                             ("bob@example.org", "FOR"),
                                             ("carol@example.org", "AGAINST")), strict=True):
        receipt, address, shown_choice, salt = line.split(" ")
        assert (address, shown_choice) == (voter, choice) and salt.startswith(SALT[:-2])
        expected = hashlib.sha256(f"g-one:301:{voter}:{choice}:{salt}".encode()).hexdigest()
        assert receipt == expected
    assert "Alice</a> +10: proposal 301 adopted" in page
    # The proposal's own words are text, never markup.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page


def test_ballots_without_salts_are_shown_without_receipts(game: Game) -> None:
    page = text(build(public_lines([("g-one", game)], salts=False)), "proposals/301.html")
    assert "Carol</a></td><td>AGAINST" in page
    assert '<pre class="receipts">' not in page and "before receipts were kept" in page


def test_an_open_proposal_shows_nothing_of_its_ballots() -> None:
    """Two games that differ only in the ballots on an open proposal give the same site."""
    sites = []
    for ballots in ({}, {"alice": "FOR", "bob": "AGAINST", "carol": "FOR"}):
        played = nomicam_game(3)
        number = max(played.state.proposals)
        played.votes(number, **ballots)
        played.later(timedelta(minutes=5))
        sites.append(build(public_lines([("g", played)])))
    assert sites[0] == sites[1]
    page = text(sites[0], f"proposals/{max(nomicam_game(3).state.proposals)}.html")
    assert "Ballots stay sealed" in page
    # What the page says after its text is the same either way; the only FOR and AGAINST
    # on it are the lines a voter sends.
    shown = page.split("<h2>What it does</h2>")[1].split('<h2 id="vote">')
    for word in ("Tally", "Ballots, revealed", "Receipts", "FOR", "AGAINST"):
        assert word not in shown[0], word
    assert re.findall(r"\b(?:FOR|AGAINST)\b", shown[1]) == ["FOR", "AGAINST"]


def test_players_scores_and_the_chart(game: Game, files: dict[str, bytes]) -> None:
    home = text(files, "index.html")
    for player in game.state.players.values():
        assert player.name in home
    board = text(files, "players/index.html")
    assert re.search(r"Carol</a></td><td>voter</td><td class=\"num\">35</td>", board)
    carol = text(files, "players/carol.html")
    assert carol.count("<tr>") == 1 + len([ev for ev in game.events
                                           if getattr(ev, "player", None) == CAROL
                                           and type(ev).__name__ == "ScoreChanged"])
    svg = text(files, "scores.svg")
    assert svg.startswith("<svg") and "<script" not in svg and "Carol" in svg
    assert 'img src="scores.svg"' in home


def test_cfjs_and_the_timeline(game: Game, files: dict[str, bytes]) -> None:
    cfj = text(files, "cfjs/1.html")
    assert "Alice may sing." in cfj and "Rule 301 says so." in cfj
    assert "TRUE, by" in cfj and "It says so." in cfj
    history = text(files, "history/index.html")
    lines = public_lines([("g-one", game)])
    assert history.count('<li id="e') == len(lines)
    assert "speakerbot record verify record.jsonl" in history


def test_the_record_is_the_lines_as_given_and_its_chain_holds(game: Game,
                                                              files: dict[str, bytes]) -> None:
    lines = public_lines([("g-one", game)])
    written = [json.loads(line) for line in files["record.jsonl"].splitlines()]
    assert written == lines
    assert chain.verify(written) is None
    assert files["record.jsonl"].isascii()


def test_several_games_each_in_its_folder_and_every_link_resolves() -> None:
    first = nomicam_game(3)
    first.ok(c.EndGame(SPEAKER, "the players moved on"))
    second = Game("suber", [ALICE, BOB])
    second.propose(second.state.turn.mover if second.state.turn else ALICE,
                   enact("Rule one."), title="Turn one")
    files = build(public_lines([("../../evil", first), ("g-two", second)]))
    assert "games/evil/index.html" in files and "games/evil/proposals/301.html" in files
    assert "games/evil/record.jsonl" not in files  # one record, at the root
    assert "suber" in text(files, "index.html")
    games = text(files, "games.html")
    assert 'href="games/evil/index.html"' in games and 'href="index.html"' in games
    assert "the players moved on" in games
    past = text(files, "games/evil/proposals/301.html")
    assert 'href="../../../style.css"' in past and 'href="../../../record.jsonl"' in past
    assert broken_links(files) == []


def test_the_timeline_is_paged(game: Game) -> None:
    many = nomicam_game(3)
    while len([ev for ev in many.events if ev.public]) <= HISTORY_PAGE + 5:
        count = len(many.state.players)
        many.ok(c.Join(f"p{count}@example.org", f"Joiner {count}"))
    many.ok(c.Join("zoe1@example.org", "Zoë!"))
    many.ok(c.Join("zoe2@example.org", "Zoe"))
    files = build(public_lines([("g", many)]))
    assert "history/2.html" in files and "history/3.html" not in files
    assert 'href="../history/2.html">Page 2</a>' in text(files, "history/index.html")
    assert broken_links(files) == []
    assert "players/joiner-50.html" in files
    assert "players/zoe.html" in files and "players/zoe-2.html" in files


def test_an_empty_record_and_a_second_build_are_plain() -> None:
    empty = build([])
    assert set(empty) == {"index.html", "games.html", "record.jsonl", "style.css"}
    assert "No game has started yet" in text(empty, "index.html")
    played = nomicam_game(3)
    lines = public_lines([("g", played)])
    assert build(lines) == build(lines)  # the same record gives the same bytes


def test_a_players_name_never_reaches_a_path_or_markup() -> None:
    played = Game("nomicam", [ALICE])
    played.ok(c.Join("mallory@example.org", '../<img src=x onerror=alert(1)>'))
    files = build(public_lines([("g", played)]))
    assert "players/img-src-x-onerror-alert-1.html" in files
    assert "<img src=x" not in "".join(v.decode() for k, v in files.items()
                                        if k.endswith(".html"))
    assert "Test &lt;Nomic&gt;" in text(files, "index.html")


def test_templates_are_shipped(tmp_path: Path) -> None:
    assert (TEMPLATES / "base.html").is_file() and (TEMPLATES / "style.css").is_file()
