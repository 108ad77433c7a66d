"""Small wrongs of a first week's wording: each is said once, plainly, and points the right way.

A mechanic written under [game] is pointed to [mechanics]; a refusal that ends in a question
gets no full stop after it; ``player add --help`` names the mail command as it is written;
a Judge's reason nests no brackets; every time is written to the minute.
"""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from speakerbot.config import ConfigError, parse_games, parse_settings
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.mail.outbound.compose import format_time
from speakerbot.mail.outbound.naming import judge_reason
from speakerbot.mail.outbound.replies import outcome_of
from speakerbot.mail.outbound.sentences import news_line
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, SPEAKER
from tests.engine.harness import Game

PATH = Path("/etc/speakerbot/speakerbot.toml")
GAME = {"name": "Loopback Nomic", "ruleset": "nomicam", "address": "game@example.org",
        "speaker": "host@example.org", "speaker_name": "Host"}


def _refused(data: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_settings(data, path=PATH, environ={})
    return caught.value


# --- A mechanic in the wrong section --------------------------------------------------------


def test_a_mechanic_under_game_is_pointed_to_mechanics() -> None:
    error = str(_refused({"game": {**GAME, "win_points": 150}}))
    assert "[game] win_points" in error
    assert "win_points is a mechanic of the game: write it under [mechanics]" in error


def test_a_mechanic_at_the_top_level_is_pointed_to_mechanics() -> None:
    error = str(_refused({"game": GAME, "voting_period": "3d"}))
    assert "write it under [mechanics]" in error


def test_a_mechanic_in_a_games_table_is_pointed_to_games_mechanics() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_games({"games": [{**GAME, "id": "main", "voting_period": "3d"}]}, PATH, {})
    assert "write it under [games.mechanics]" in str(caught.value)


def test_a_key_that_is_no_mechanic_still_gets_the_section_s_keys() -> None:
    error = str(_refused({"game": {**GAME, "nmae": "x"}}))
    assert "did you mean name?" in error and "[mechanics]" not in error


# --- Punctuation ------------------------------------------------------------------------------


def test_a_refusal_that_ends_in_a_question_gets_no_full_stop_after_it() -> None:
    g = Game("nomicam", [ALICE, BOB])
    events = g.send(c.SetMechanic(SPEAKER, "quorum", "5"))
    assert g.of(e.CommandRejected, events)
    said = outcome_of(events, g.state, SPEAKER)
    assert said.endswith("did you mean quorum_percent?"), said
    assert "?." not in said


# --- player add --help ------------------------------------------------------------------------


def test_player_add_help_names_the_mail_command_as_written() -> None:
    shown = subprocess.run([sys.executable, "-m", "speakerbot", "player", "add", "--help"],
                           capture_output=True, text=True, check=True).stdout
    flat = " ".join(shown.split())
    assert "ADMIN ADD <email> <name>" in flat
    assert "ADMIN ADD PLAYER" not in flat


# --- How a Judge was chosen -------------------------------------------------------------------


def test_the_judge_s_reason_nests_no_brackets() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    events = g.ok(c.CallForJudgement(ALICE, "Alice may sing.", "", False))
    [assigned] = g.of(e.JudgeAssigned, events)
    line = news_line(assigned, g.state)
    assert line == ("CFJ 1: Chuck is the Judge (the Speaker, because a Voter called this CFJ, "
                    "as rule 214 says)"), line
    inside = line[line.index("(") + 1:-1]
    assert "(" not in inside and ")" not in inside


def test_a_reason_recorded_before_is_written_without_nested_brackets() -> None:
    assert judge_reason("the Speaker, as a Voter invoked judgement (rule 214)") == (
        "the Speaker, because a Voter called this CFJ, as rule 214 says")
    assert judge_reason("the named Judge") == "the named Judge"


# --- Times ------------------------------------------------------------------------------------


def test_every_time_is_written_to_the_minute_with_or_without_seconds() -> None:
    on_the_minute = datetime(2026, 1, 12, 21, 6, tzinfo=UTC)
    written = [format_time(on_the_minute), format_time(on_the_minute - timedelta(seconds=1))]
    assert written == ["2026-01-12 21:06 UTC", "2026-01-12 21:05 UTC"]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", text) for text in written)
