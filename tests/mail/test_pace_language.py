"""The pace lines: ABSENT UNTIL, BACK, ADMIN PAUSE / RESUME / ABSENT / SKIP, read and translated."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from speakerbot.engine import commands as c
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.translate import translate

ALICE = "alice@example.org"


@pytest.mark.parametrize(("line", "expected"), [
    ("ABSENT UNTIL 2026-12-01 on  holiday", {"verb": "ABSENT", "until": "2026-12-01",
                                            "reason": "on holiday"}),
    ("absent until 2026-12-01", {"verb": "ABSENT", "until": "2026-12-01", "reason": None}),
    ("BACK", {"verb": "BACK"}),
    ("Back.", {"verb": "BACK"}),
    ("ADMIN PAUSE the holidays", {"verb": "ADMIN", "action": "pause", "reason": "the holidays"}),
    ("ADMIN PAUSE", {"verb": "ADMIN", "action": "pause", "reason": None}),
    ("ADMIN RESUME", {"verb": "ADMIN", "action": "resume"}),
    ("ADMIN SKIP", {"verb": "ADMIN", "action": "skip"}),
    ("ADMIN ABSENT Alice Smith UNTIL 2026-12-01 sick",
     {"verb": "ADMIN", "action": "absent", "player": "Alice Smith", "until": "2026-12-01",
      "reason": "sick"}),
    ("ADMIN ABSENT <Alice@Example.org> until 2027-01-31",
     {"verb": "ADMIN", "action": "absent", "player": ALICE, "until": "2027-01-31",
      "reason": None}),
])
def test_pace_lines_are_read(line: str, expected: dict[str, object]) -> None:
    # An ADMIN line is read only with the PASSWORD line, like every ADMIN action.
    password = "PASSWORD kettle-42\n" if line.startswith("ADMIN") else ""
    result = lang.parse_commands("", password + line + "\n")
    assert not result.errors, result.errors
    (command,) = result.commands
    assert command.to_json() == {"line": 2 if password else 1, **expected}


@pytest.mark.parametrize(("line", "words"), [
    ("ABSENT UNTIL 2026-13-01", "date written YYYY-MM-DD, not 2026-13-01"),
    ("ABSENT UNTIL tomorrow", "date written YYYY-MM-DD, not tomorrow"),
    ("ABSENT 2026-12-01", "needs UNTIL"),
    ("ABSENT UNTIL", "needs UNTIL and a date"),
    ("ADMIN ABSENT UNTIL 2026-12-01", "needs a player"),
    ("ADMIN ABSENT alice UNTIL 1st", "YYYY-MM-DD after UNTIL"),
    ("ADMIN RESUME now", "takes nothing after it"),
    ("ADMIN SKIP alice", "takes nothing after it"),
    ("ADMIN PAUS", "did you mean PAUSE?"),
])
def test_near_misses_say_what_to_write(line: str, words: str) -> None:
    result = lang.parse_commands("", line + "\n")
    assert not result.commands and len(result.errors) == 1
    assert words in result.errors[0].reason, result.errors[0].reason


@pytest.mark.parametrize("line", ["Absent friends are missed.", "Back in the day we voted.",
                                  "BACK to the topic"])
def test_prose_is_ignored(line: str) -> None:
    result = lang.parse_commands("", line + "\n")
    assert not result.commands and not result.errors and len(result.ignored) == 1


def test_translation_gives_the_engine_commands_with_the_day_start_in_utc() -> None:
    until = datetime(2026, 12, 1, tzinfo=UTC)
    pairs = [
        ("ABSENT UNTIL 2026-12-01 away", c.DeclareAbsence(ALICE, until, "away")),
        ("BACK", c.EndAbsence(ALICE)),
        ("ADMIN PAUSE snow", c.PauseGame(ALICE, "snow")),
        ("ADMIN RESUME", c.ResumeGame(ALICE)),
        ("ADMIN SKIP", c.SkipTurn(ALICE)),
        ("ADMIN ABSENT bob UNTIL 2026-12-01", c.SetAbsence(ALICE, "bob", until, "")),
    ]
    for line, expected in pairs:
        password = "PASSWORD kettle-42\n" if line.startswith("ADMIN") else ""
        (command,) = lang.parse_commands("", password + line + "\n").commands
        assert translate(command, ALICE) == expected, line


def test_help_lists_the_pace_commands() -> None:
    text = lang.every_help()
    for words in ("ABSENT UNTIL <YYYY-MM-DD> [reason]", "BACK", "ADMIN PAUSE [reason]",
                  "ADMIN RESUME", "ADMIN ABSENT <player> UNTIL <YYYY-MM-DD> [reason]",
                  "ADMIN SKIP"):
        assert words in text, words
