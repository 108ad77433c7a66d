"""A rule an open item of the host's hand work names is marked on its page until it closes."""

from __future__ import annotations

from typing import Any

from speakerbot.engine import commands as c
from speakerbot.engine.model import Choice, Clause, ClauseKind
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import Game
from tests.site.records import public_lines
from tests.site.test_incremental import keep

MARK = "Awaiting the Speaker's edit since"


def _page(lines: list[dict[str, Any]], path: str) -> str:
    files = build_site(lines, templates_dir() / "site", name="Hand Nomic")
    return files[path].decode("utf-8")


def _game() -> Game:
    g = Game("nomicam", [ALICE, BOB, CAROL])
    g.ok(c.Propose(ALICE, "Shorter", "Rule 205 is to say three days.",
                   unclear=("Rule 205 is to say three days.",)))
    for voter in (ALICE, BOB, CAROL):
        g.ok(c.CastBallot(voter, 301, Choice.FOR))
    g.ok(c.CloseVote(SPEAKER, 301))
    return g


def test_the_rule_page_says_it_awaits_the_speakers_edit_until_the_item_closes() -> None:
    g = _game()
    adopted = public_lines([("g", g)])
    page = _page(adopted, "rules/205.html")
    assert MARK in page and "proposal 301</a> (item 1 of the hand work)" in page
    assert MARK not in _page(adopted, "rules/206.html")
    g.ok(c.EditRule(SPEAKER, Clause(ClauseKind.AMEND, 205, "Voting lasts three days.")))
    edited = public_lines([("g", g)])
    assert MARK not in _page(edited, "rules/205.html")
    keep(edited, [1] * len(edited))  # the kept site marks and unmarks as a full build
