"""The archive's Atom feeds: valid, stable, sealed, bounded, gaining an entry at a close."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import PurePosixPath
from typing import Any

import feedparser
import pytest

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from speakerbot.site.feeds import FEED_SIZE, NEWS
from tests.engine.cast import ALICE, BOB, CAROL
from tests.engine.harness import Game, amend
from tests.site.records import nomicam_game, public_lines

TEMPLATES = templates_dir() / "site"
URL = "https://nomic.example.org"


def build(lines: list[dict[str, Any]], **options: Any) -> dict[str, bytes]:
    return build_site(lines, TEMPLATES, name="Test <Nomic>", **options)


def feeds(files: dict[str, bytes]) -> dict[str, bytes]:
    return {path: content for path, content in files.items() if path.endswith(".atom")}


def parse(content: bytes) -> Any:
    parsed = feedparser.parse(content)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    return parsed


def ids(content: bytes) -> list[str]:
    return [entry.id for entry in parse(content).entries]


@pytest.fixture(scope="module")
def game() -> Game:
    return nomicam_game()


@pytest.fixture(scope="module")
def files(game: Game) -> dict[str, bytes]:
    return build(public_lines([("g1", game)]))


def test_every_feed_is_valid_atom(files: dict[str, bytes]) -> None:
    found = feeds(files)
    assert {"feed.atom", "games/g1/feed.atom", "rules/202.atom", "rules/303.atom",
            "rules/213.atom"} <= set(found)
    for path, content in found.items():
        parsed = parse(content)
        assert parsed.feed.id.startswith("tag:speakerbot,2026:g1"), path
        assert parsed.feed.author == "Test <Nomic>", path
        for entry in parsed.entries:
            assert entry.id.startswith("tag:speakerbot,2026:g1/"), (path, entry.id)
            assert entry.updated_parsed is not None and entry.link, (path, entry.id)


def test_the_game_feed_tells_the_news_newest_first(files: dict[str, bytes]) -> None:
    entries = parse(files["feed.atom"]).entries
    titles = [entry.title for entry in entries]
    assert titles[0].startswith("Proposal 304 “Still open” submitted by Alice")
    assert "Proposal 301 ADOPTED: 2 FOR, 1 AGAINST" in titles
    assert "Rule 202 amended by proposal 301" in titles
    assert "CFJ 1 judged TRUE by Chuck" in titles
    assert not any("joined" in title for title in titles)  # PlayerJoined is no news
    assert not any(title.startswith(("Alice +", "Bob -")) for title in titles)  # scores
    seqs = [int(entry.id.rsplit("/", 1)[1]) for entry in entries]
    assert seqs == sorted(seqs, reverse=True)
    parsed = parse(files["feed.atom"])
    assert parsed.feed.updated == entries[0].updated


def test_entries_link_to_the_pages_they_are_about(files: dict[str, bytes]) -> None:
    for path, content in feeds(files).items():
        for entry in parse(content).entries:
            target = PurePosixPath(path).parent / entry.link.partition("#")[0]
            parts: list[str] = []
            for part in target.parts:
                if part == "..":
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            assert "/".join(parts) in files, (path, entry.link)
    links = {entry.title: entry.link for entry in parse(files["feed.atom"]).entries}
    assert links["Proposal 301 ADOPTED: 2 FOR, 1 AGAINST"] == "proposals/301.html"
    assert links["CFJ 1 judged TRUE by Chuck"] == "cfjs/1.html"


def test_with_the_sites_address_links_are_absolute_and_lasting(game: Game) -> None:
    files = build(public_lines([("g1", game)]), url=URL + "/")
    root, nested = parse(files["feed.atom"]), parse(files["games/g1/feed.atom"])
    assert {link.rel: link.href for link in root.feed.links}["self"] == f"{URL}/feed.atom"
    assert ({link.rel: link.href for link in nested.feed.links}["self"]
            == f"{URL}/games/g1/feed.atom")
    # Both copies link to games/g1/, where the game's pages stay once the next begins.
    assert [entry.link for entry in root.entries] == [entry.link for entry in nested.entries]
    assert all(entry.link.startswith(f"{URL}/games/g1/") for entry in root.entries)
    rule = parse(files["rules/202.atom"])
    assert rule.entries[0].link == f"{URL}/games/g1/rules/202.html"


def test_a_game_feed_gains_an_entry_when_a_vote_closes() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL], mechanics={"voting_period": "1h"})
    number = game.propose(ALICE, amend(202, "Points may be traded."), title="Trade")
    game.votes(number, alice="FOR", bob="FOR", carol="AGAINST")
    before = parse(build(public_lines([("g1", game)]))["feed.atom"]).entries
    closing = game.later(timedelta(hours=1, minutes=1))
    assert any(isinstance(event, e.VoteClosed) for event in closing)
    after = parse(build(public_lines([("g1", game)]))["feed.atom"]).entries
    new = [entry for entry in after if entry.id not in {old.id for old in before}]
    assert [entry.title for entry in new] == ["Rule 202 amended by proposal 301",
                                             "Proposal 301 ADOPTED: 2 FOR, 1 AGAINST"]
    assert "2 FOR, 1 AGAINST, 3 eligible" in new[1].content[0].value
    # What was there keeps its id, its title and its time.
    assert [(x.id, x.title, x.updated) for x in after[len(new):]] == [
        (x.id, x.title, x.updated) for x in before]


def test_two_builds_are_byte_identical(game: Game) -> None:
    lines = public_lines([("g1", game)])
    first = feeds(build(lines, now=datetime(2026, 2, 1, tzinfo=UTC)))
    second = feeds(build(lines, now=datetime(2027, 5, 9, tzinfo=UTC)))
    assert first == second
    assert ids(first["feed.atom"]) == ids(second["feed.atom"])


def test_entry_ids_are_the_games_and_the_records_not_the_builds(game: Game) -> None:
    one = feeds(build(public_lines([("g1", game)])))
    two = feeds(build(public_lines([("g2", game)])))
    assert ids(one["feed.atom"]) == [i.replace(":g2/", ":g1/") for i in ids(two["feed.atom"])]
    assert not set(ids(one["feed.atom"])) & set(ids(two["feed.atom"]))


def test_a_rules_feed_lists_its_amendment(files: dict[str, bytes]) -> None:
    amended = parse(files["rules/202.atom"])
    assert [entry.title for entry in amended.entries] == ["Rule 202 amended by proposal 301"]
    content = amended.entries[0].content[0].value
    assert "+ All players begin with 0 points. Points may be traded." in content
    # The same change has the same id in the game's feed.
    assert amended.entries[0].id in ids(files["feed.atom"])
    repealed = parse(files["rules/213.atom"]).entries
    assert repealed == []  # proposal 302, which would have repealed it, was rejected
    enacted = parse(files["rules/303.atom"]).entries
    assert [entry.title for entry in enacted] == ["Rule 303 enacted (mutable) by proposal 303"]


def test_pages_name_their_feeds(files: dict[str, bytes]) -> None:
    head = '<link rel="alternate" type="application/atom+xml"'
    home = files["index.html"].decode("utf-8")
    assert f'{head} title="Test &lt;Nomic&gt;: the game\'s news" href="feed.atom">' in home
    rule = files["rules/202.html"].decode("utf-8")
    assert 'href="../feed.atom"' in rule and 'href="../rules/202.atom"' in rule
    # The game's copy under games/g1/ names its own copy of the feeds.
    assert 'href="../rules/202.atom"' in files["games/g1/rules/202.html"].decode("utf-8")
    assert files["games/g1/rules/202.atom"] == files["rules/202.atom"]


def test_no_entry_before_a_close_shows_a_ballot() -> None:
    def played(ballots: dict[str, str]) -> tuple[Game, int]:
        game = Game("nomicam", [ALICE, BOB, CAROL], mechanics={"voting_period": "1h"})
        number = game.propose(BOB, amend(202, "Points may be traded."), title="Trade")
        game.ok(c.CallForJudgement(BOB, "Bob may trade.", "Rule 202.", False))
        game.votes(number, **ballots)
        return game, number

    voting, number = played({"alice": "FOR", "bob": "AGAINST"})
    silent, _ = played({})
    seen = feeds(build(public_lines([("g1", voting)])))
    assert seen == feeds(build(public_lines([("g1", silent)])))
    for entry in parse(seen["feed.atom"]).entries:
        shown = entry.title + "".join(part.value for part in entry.get("content", []))
        assert "FOR" not in shown and "AGAINST" not in shown, shown
    assert any(f"Proposal {number}" in entry.title for entry in parse(seen["feed.atom"]).entries)


def test_a_feed_keeps_its_newest_entries_only() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL], mechanics={"voting_period": "1h"})
    for count in range(30):
        number = game.propose(ALICE, title=f"Idea {count}")
        game.votes(number, alice="FOR", bob="AGAINST", carol="AGAINST")
        game.later(timedelta(hours=1, minutes=1))
    entries = parse(build(public_lines([("g1", game)]))["feed.atom"]).entries
    news = sum(1 for event in game.events if event.public and type(event).__name__ in NEWS)
    assert news > FEED_SIZE == len(entries) == 50
    assert entries[0].title == f"Proposal {number} REJECTED: 1 FOR, 2 AGAINST"
    assert entries[-1].title.startswith(f"Proposal {number - 24} “Idea 5” submitted")
