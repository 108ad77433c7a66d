"""SHOW MECHANICS by mail, and how a re-read mechanic is told.

The line is read into Show(what="mechanics") and its JSON; written wrong it is an error that
says what to write. The answer lists every mechanic with its value and where it comes from,
in 72 columns. A MechanicChanged is said in the results, naming the mechanic, the rule and
the words; a MechanicNotRead goes to the Speaker's notice alone, naming the mechanic and why.
A voting period read again sets the deadline the next distribution shows.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import replay
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.mail.inbound.language import every_help, parse_commands
from speakerbot.mail.inbound.language.commands import Show
from speakerbot.mail.inbound.translate import Query, translate
from speakerbot.mail.outbound import lookups
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer
from speakerbot.mail.outbound.sentences import news_line, record_line
from speakerbot.resources import templates_dir
from tests.engine import cast, harness
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, ERIN, SPEAKER
from tests.engine.conftest import replay_every_game  # noqa: F401  (autouse: games replay)
from tests.engine.harness import Game

RENDERER = Renderer(templates_dir())
CAMFORD = GameIdentity("Camford Nomic", "nomic@camford.example")
WIN_150 = "The winner is the first player to achieve 150 (positive) points."


def adopt(g: Game, *clauses: Clause) -> tuple[int, list[Outgoing]]:
    """Adopt ``clauses`` in a suber game; return the proposal and the mail its adoption sends."""
    assert g.state.turn is not None
    number = g.propose(g.state.turn.mover, *clauses)
    g.votes(number, alice="FOR", bob="FOR")
    before = replay(g.events)
    g.dice.load(1)
    events = g.vote(CAROL, number, "FOR")
    assert g.of(e.VoteClosed, events)[0].adopted
    return number, Announcer(CAMFORD, RENDERER).messages(events, g.state, "1", before)


def as_json(body: str) -> dict[str, Any]:
    """What ``speakerbot parse`` prints for a message of ``body``."""
    parsed: dict[str, Any] = json.loads(json.dumps(parse_commands("", body).to_json()))
    return parsed


def flat(text: str) -> str:
    return " ".join(text.split())


# --- Reading the line ------------------------------------------------------------------------


@pytest.mark.parametrize("body", ["SHOW MECHANICS", "show mechanics", "Show mechanic",
                                  "Show mechanics.", "Show: mechanics", "Show mechanics?"])
def test_show_mechanics_is_read_with_no_number(body: str) -> None:
    result = parse_commands("", body)
    assert result.commands == (Show(1, "mechanics", None),)
    assert as_json(body) == {
        "commands": [{"line": 1, "verb": "SHOW", "what": "mechanics"}],
        "errors": [], "ignored": []}
    assert translate(result.commands[0], ALICE) == Query(1, "SHOW MECHANICS", None)


@pytest.mark.parametrize("body", ["SHOW MECHANICS 5", "Show mechanics please"])
def test_show_mechanics_with_more_on_the_line_is_an_error(body: str) -> None:
    # Like HISTORY 5 please: the line is plainly the lookup, written wrong, so it is
    # answered with what to write rather than passed over as prose.
    result = as_json(body)
    assert result["commands"] == [] and result["ignored"] == []
    [error] = result["errors"]
    assert error["line"] == 1
    assert "SHOW MECHANICS takes nothing more" in error["reason"]
    assert "alone on its line" in error["reason"]


def test_show_the_mechanics_is_prose() -> None:
    result = as_json("VOTE 301 FOR\nshow the mechanics")
    assert result["errors"] == [] and [i["line"] for i in result["ignored"]] == [2]


def test_show_alone_says_mechanics_is_a_choice() -> None:
    [error] = as_json("SHOW")["errors"]
    assert "MECHANICS" in error["reason"]


def test_help_tells_of_show_mechanics() -> None:
    assert "SHOW MECHANICS gets every mechanic in force" in flat(every_help())


# --- The answer -------------------------------------------------------------------------------


def test_the_answer_lists_every_mechanic_with_its_origin_in_72_columns() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], phrases=True)
    g.ok(c.SetMechanic(SPEAKER, "die_sides", "8"))
    number, _ = adopt(g, harness.amend(208, WIN_150))
    text = lookups.show_mechanics(RENDERER, g.state)
    assert all(len(line) <= 72 for line in text.splitlines()), text
    listed = re.findall(r"^  ([a-z_]+) = ", text, re.MULTILINE)
    assert listed == list(PARAMETERS)
    words = flat(text)
    assert f"win_points = 150 rule {number}: “achieve 150 (positive) points”" in words
    assert "die_sides = 8 set by the host" in words
    assert "flow = turns rule 201" in words
    assert "voting_period = 7d preset default" in words
    assert "close_when_all_voted = true" in words  # a yes-or-no as the rulesets write it


# --- Telling what was read ----------------------------------------------------------------


def test_the_sentences_name_the_mechanic_the_rule_and_the_words() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], phrases=True)
    changed = e.MechanicChanged(cast.T0, "win_points", "100", "150", 301,
                                "achieve 150 (positive) points", 301)
    for line in (news_line(changed, g.state), record_line(changed, g.state.name_of)):
        assert line is not None
        for part in ("win_points", "150", "100", "rule 301", "“achieve 150 (positive) points”"):
            assert part in line, line
    moved = e.MechanicChanged(cast.T0, "win_points", "80", "80", 303, "achieve 80 points",
                              303)
    assert "now comes from rule 303" in news_line(moved, g.state)

    why = "two values: 150 and 200"
    not_read = e.MechanicNotRead(cast.T0, "win_points", 301, why, 301)
    mailed = news_line(not_read, g.state)
    recorded = record_line(not_read, g.state.name_of)
    assert recorded is not None
    for line in (mailed, recorded):
        assert "win_points" in line and "rule 301" in line.lower() and why in line, line
    assert "ADMIN SET win_points" in mailed and "ADMIN SET" not in recorded


def test_a_reading_is_in_the_results_and_nothing_goes_to_the_speaker() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], phrases=True)
    number, messages = adopt(g, harness.amend(208, WIN_150))
    [results] = [m for m in messages if m.topic == "results"]
    assert results.public
    words = flat(results.body)
    assert "Mechanic win_points is now 150 (it was 100)" in words
    assert f"rule {number} now says “achieve 150 (positive) points”" in words
    assert not [m for m in messages if m.subject == "Action needed by the Speaker"]


def test_what_cannot_be_read_goes_to_the_speaker_alone() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], phrases=True)
    text = "The winner is the first player to achieve 150 points, or 200 points."
    number, messages = adopt(g, harness.amend(208, text))
    [notice] = [m for m in messages if m.subject == "Action needed by the Speaker"]
    assert notice.recipients == (SPEAKER,) and not notice.public
    words = flat(notice.body)
    assert f"Rule {number} changed, and win_points could not be read from it" in words
    assert "two values: 150 and 200" in words and "ADMIN SET win_points" in words
    for public in (m for m in messages if m.public):
        assert "could not be read" not in flat(public.body), public.subject


def test_a_set_beside_the_reading_tells_the_speaker_which_won() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], phrases=True)
    clauses = (harness.amend(208, WIN_150),
               Clause(ClauseKind.SET, None, "200", parameter="win_points"))
    _, messages = adopt(g, *clauses)
    [notice] = [m for m in messages if m.subject == "Action needed by the Speaker"]
    words = flat(notice.body)
    assert "win_points = 150" in words and "sets it to 200, which wins" in words


def test_the_next_distribution_shows_the_deadline_of_a_re_read_voting_period() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE, ERIN], phrases=True)
    number = g.propose(ALICE, Clause(ClauseKind.REPLACE, 205, old="one week", new="three days"))
    g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR", erin="FOR")
    g.later(timedelta(days=7))
    assert g.now == datetime(2026, 1, 12, 12, 0, tzinfo=UTC)
    before = replay(g.events)
    events = g.ok(c.Propose(BOB, "Next", "Text."))
    [distribution] = Announcer(CAMFORD, RENDERER).messages(events, g.state, "2", before)
    assert "Voting is open until 2026-01-15 12:00 UTC." in distribution.body
