"""The archive as a player's tool (issue 39): links that write the message, words marked.

An open proposal's page offers each ballot line as a ``mailto:`` link to the game's
address, the line in subject and body; the home page JOIN, HELP and STATUS likewise; a
closed proposal offers none, and nothing on an open one depends on its ballots. A paragraph
changed in a few words has exactly those words marked. The chart of a game within one day
labels its axis by times, each label its own, and its legend names the Speaker too. The
receipts wrap rather than scroll. Each was missing before, and each test here failed.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine.model import Choice
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from speakerbot.site.archive import DiffLine
from speakerbot.site.texts import WORDS_COMPARED, diff_lines, mailto
from tests.engine.cast import ALICE, BOB, CAROL
from tests.engine.harness import Game
from tests.site.records import nomicam_game, public_lines

TEMPLATES = templates_dir() / "site"
ADDRESS = "nomic+game@play.test"
_HREFS = re.compile(r'href="(mailto:[^"]*)"')


def build(lines: list[dict[str, Any]], address: str = ADDRESS) -> dict[str, bytes]:
    return build_site(lines, TEMPLATES, name="Tool Nomic", address=address)


def message(href: str) -> tuple[str, str, str]:
    """Return the address, subject and body a ``mailto:`` link (as in the page) writes."""
    parts = urlsplit(href.replace("&amp;", "&"))
    assert parts.scheme == "mailto"
    fields = parse_qs(parts.query, keep_blank_values=True, strict_parsing=True)
    assert set(fields) == {"subject", "body"} and all(len(v) == 1 for v in fields.values())
    return unquote(parts.path), fields["subject"][0], fields["body"][0]


@pytest.fixture(scope="module")
def game() -> Game:
    return nomicam_game(3)


@pytest.fixture(scope="module")
def files(game: Game) -> dict[str, bytes]:
    return build(public_lines([("g-tool", game)]))


def test_an_open_proposal_offers_each_ballot_line_as_a_mail_to_the_game(
        game: Game, files: dict[str, bytes]) -> None:
    number = max(game.state.proposals)
    page = files[f"proposals/{number}.html"].decode()
    written = [message(href) for href in _HREFS.findall(page)]
    assert written == [(ADDRESS, f"VOTE {number} {choice}", f"VOTE {number} {choice}")
                       for choice in ("FOR", "AGAINST", "ABSTAIN")]
    # Encoded as RFC 6068 asks: a space is %20 (a "+" would stay a "+" in a mail client).
    assert f"subject=VOTE%20{number}%20FOR&amp;body=VOTE%20{number}%20FOR" in page
    assert "+" not in mailto(ADDRESS, "VOTE 1 FOR").split("?", 1)[1]


def test_a_closed_proposal_offers_no_ballot_line(files: dict[str, bytes]) -> None:
    for number in (301, 302, 303):
        page = files[f"proposals/{number}.html"].decode()
        assert "mailto:" not in page and f"VOTE {number}" not in page


def test_an_open_proposals_page_is_the_same_whatever_the_ballots(game: Game) -> None:
    number = max(game.state.proposals)
    before = build(public_lines([("g-tool", game)]))[f"proposals/{number}.html"]
    voted = nomicam_game(3)
    for voter, choice in ((ALICE, Choice.FOR), (BOB, Choice.AGAINST), (CAROL, Choice.FOR)):
        voted.ok(c.CastBallot(voter, number, choice))
    assert voted.state.proposals[number].status.value == "open"
    assert build(public_lines([("g-tool", voted)]))[f"proposals/{number}.html"] == before


def test_the_home_page_offers_join_help_and_status_as_mails(files: dict[str, bytes]) -> None:
    home = files["index.html"].decode()
    written = {subject: (to, body) for to, subject, body in map(message, _HREFS.findall(home))}
    assert written == {"JOIN your name": (ADDRESS, "JOIN your name"), "HELP": (ADDRESS, "HELP"),
                       "STATUS": (ADDRESS, "STATUS")}


def test_without_an_address_the_lines_are_shown_as_text(game: Game) -> None:
    number = max(game.state.proposals)
    built = build(public_lines([("g-tool", game)]), address="")
    for path in ("index.html", f"proposals/{number}.html"):
        assert "mailto:" not in built[path].decode()
    assert f"<code>VOTE {number} ABSTAIN</code>" in built[f"proposals/{number}.html"].decode()


def test_a_mailto_link_encodes_what_a_url_would_read_apart() -> None:
    href = mailto("a&b?c@play.test", "VOTE 7 FOR & more #1 é")
    to, subject, body = message(href)
    assert (to, subject, body) == ("a&b?c@play.test", "VOTE 7 FOR & more #1 é",
                                   "VOTE 7 FOR & more #1 é")


def test_a_paragraph_changed_in_a_few_words_marks_those_words(files: dict[str, bytes]) -> None:
    old = "Players may sing on Tuesdays.\nKeep this.\nThis paragraph goes away entirely."
    new = "Players may dance on Tuesdays and Fridays.\nKeep this.\nA wholly new sentence here."
    lines = diff_lines(old, new)
    assert [line.mark for line in lines] == ["-", "+", " ", "-", "+"]
    assert lines[0].pieces == (("Players may ", False), ("sing", True), (" on Tuesdays.", False))
    assert lines[1].pieces == (("Players may ", False), ("dance", True), (" on Tuesdays ", False),
                               ("and Fridays", True), (".", False))
    # Unlike paragraphs are one removed and one added, whole.
    assert lines[3].pieces == (("This paragraph goes away entirely.", True),)
    assert lines[4].pieces == (("A wholly new sentence here.", True),)
    page = files["rules/202.html"].decode()
    assert "Points may <del>not</del> be <del>gained, lost, or</del> traded" in page


def test_a_long_paragraph_is_compared_in_bounded_work() -> None:
    words = [f"w{n}" for n in range(20 * WORDS_COMPARED)]
    changed = words[:5] + [f"x{n}" if n % 3 == 0 else word
                           for n, word in enumerate(words[5:-5])] + words[-5:]
    removed, added = diff_lines(" ".join(words), " ".join(changed))
    # The common start and end kept; the rest, past the bound, marked changed whole.
    assert [flag for _, flag in removed.pieces] == [False, True, False]
    assert removed.pieces[0][0] == " ".join(words[:5]) + " "
    assert removed.pieces[1][0].startswith("w5 w6 w7 w8 ")  # kept words, past the bound
    assert removed.pieces[2][0].endswith(" ".join(words[-5:]))
    assert "".join(text for text, _ in added.pieces) == " ".join(changed)
    assert DiffLine(" ", "kept").pieces == (("kept", False),)


def _axis(svg: str) -> list[str]:
    """Return the labels under the chart's plot, in order (times or days, then days)."""
    return re.findall(r'<text x="[\d.]+" y="2(?:58|72)" text-anchor="\w+">([^<]+)</text>', svg)


def test_the_chart_of_a_game_within_a_day_is_labelled_by_distinct_times(
        files: dict[str, bytes]) -> None:
    svg = files["scores.svg"].decode()
    assert _axis(svg) == ["12:00", "2026-01-05", "13:31", "15:03"]
    legend = re.findall(r'class="legend reactive activate-serie">.*?<text[^>]*>([^<]+)</text>',
                        svg)
    assert legend == ["Chuck", "Alice", "Bob", "Carol"]  # Chuck, the Speaker, with the rest


def test_the_chart_of_a_longer_game_is_labelled_by_days() -> None:
    game = nomicam_game(3)
    game.later(timedelta(days=3))
    game.ok(c.Join("dora@example.org", "Dora"))
    svg = build(public_lines([("g-long", game)]))["scores.svg"].decode()
    assert _axis(svg) == ["2026-01-05", "2026-01-07", "2026-01-08"]


def test_the_receipts_wrap_to_be_seen_whole() -> None:
    css = (TEMPLATES / "style.css").read_text()
    rule = re.search(r"pre\.receipts \{([^}]*)\}", css)
    assert rule is not None
    assert "white-space: pre-wrap" in rule.group(1) and "overflow-wrap: anywhere" in rule.group(1)
    assert "overflow-x" not in rule.group(1)
