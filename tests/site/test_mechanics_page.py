"""The archive's rules page says where each mechanic comes from, as SHOW MECHANICS does.

A nomicam game reads its voting period again when rule 205 is amended to three days: the
page shows the new value with rule 205 and the words it was read from. A mechanic the host
set says so; one no rule states is the preset's default.
"""

from __future__ import annotations

import html
import re
from datetime import timedelta

from speakerbot.engine import commands as c
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import Game, amend
from tests.site.records import public_lines


def _row(page: str, mechanic: str) -> tuple[str, str]:
    """The value and the source cell of a mechanic's row, as text."""
    described = re.escape(html.escape(PARAMETERS[mechanic].description, quote=True))
    found = re.search(rf"<tr><td>{described}</td><td>([^<]*)</td><td>(.*?)</td></tr>", page)
    assert found is not None, mechanic
    return found.group(1), html.unescape(re.sub(r"<[^>]+>", "", found.group(2)))


def test_the_rules_page_names_the_rule_and_words_of_each_mechanic() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL], phrases=True)
    number = game.propose(ALICE, amend(205, "The prescribed voting period for a proposal "
                                            "shall be three days."))
    game.votes(number, alice="FOR", bob="FOR", carol="FOR")
    game.later(timedelta(days=8))
    game.ok(c.SetMechanic(SPEAKER, "judge_penalty", "15"))
    lines = public_lines([("g1", game)])
    page = build_site(lines, templates_dir() / "site", name="Test Nomic",
                      address="nomic@game.test")["rules/index.html"].decode()
    assert _row(page, "voting_period") == ("3d", "Rule 205: “three days”")
    assert _row(page, "win_points") == ("100", "Rule 203: “achieve 100 (positive) points”")
    assert _row(page, "judge_penalty") == ("15", "Set by the host")
    assert _row(page, "die_sides") == ("6", "Preset default")
    assert _row(page, "adoption")[1] == "Rule 209"  # a rule the game reads no words of
