"""Plain words that say what a command does are answered with the exact command (issue 39).

Never applied: the reply gives the lines to send (tests/integration/test_commands_stand_alone
shows it through the daemon).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speakerbot.mail.inbound.language import parse_commands
from speakerbot.mail.inbound.language.plain import Suggestion, suggestion
from tests.support.cpu_time import cpu_seconds

# Each: (plain words, the exact lines suggested).
SUGGESTED: list[tuple[str, tuple[str, ...]]] = [
    ("I vote against 303.", ("VOTE 303 AGAINST",)),
    ("I vote against 303", ("VOTE 303 AGAINST",)),
    ("vote yes on 301 and no on 302", ("VOTE 301 FOR", "VOTE 302 AGAINST")),
    ("I vote for proposal 301, against 302 and abstain on P303",
     ("VOTE 301 FOR", "VOTE 302 AGAINST", "VOTE 303 ABSTAIN")),
    ("vote 301 yes", ("VOTE 301 FOR",)),
    ("Vote AGAINST #12!", ("VOTE 12 AGAINST",)),
    ("I will vote in favour of 301", ("VOTE 301 FOR",)),
    ("I'd like to join as Dora", ("JOIN Dora",)),
    ("I’d like to join the game as Dora Smith.", ("JOIN Dora Smith",)),
    ("Can I join?", ("JOIN <your name>",)),
    ("Please withdraw my vote on 301", ("VOTE 301 ABSTAIN",)),
    ("I want to leave the game", ("FORFEIT",)),
    ("how do I vote?", ("HELP",)),
    ("What is open now?", ("STATUS",)),
]


@pytest.mark.parametrize(("words", "lines"), SUGGESTED, ids=[case[0] for case in SUGGESTED])
def test_plain_words_get_the_exact_lines(words: str, lines: tuple[str, ...]) -> None:
    assert suggestion(words) == Suggestion(lines)
    for line in lines:  # what is suggested is a command as the parser reads it
        if "<" not in line:
            parsed = parse_commands("", line + "\n")
            assert parsed.errors == () and len(parsed.commands) == 1, line


def test_withdrawing_a_proposal_is_answered_with_what_can_be_done() -> None:
    found = suggestion("please withdraw my proposal 303")
    assert found is not None and found.lines == ()
    assert "ADMIN VOID 303" in found.note


@pytest.mark.parametrize("words", [
    "I vote against 303 because it is slow",  # more than a vote: a letter's sentence
    "Cheers, Alice",
    "I voted against 303 last week",
    "The vote on 303 was close.",
    "Join us for tea",
    "vote",
])
def test_other_words_suggest_nothing(words: str) -> None:
    assert suggestion(words) is None


@given(st.text(max_size=300))
def test_any_line_is_read_without_error(words: str) -> None:
    found = suggestion(words)
    assert found is None or found.lines or found.note


@pytest.mark.parametrize("line", [
    "I vote " + "for 301 and " * 16,
    "I vote " + "against " * 24,
    "I'd like to join as " + "Dora " * 35,
    "please withdraw my " + " " * 180,
])
def test_the_worst_lines_are_read_at_once(line: str) -> None:
    # Lines past 200 characters are a letter's, never read; below, no regex backtracks.
    assert len(line) <= 200 or suggestion(line + "x" * 10_000) is None

    def reading() -> object:
        return [suggestion(line) for _ in range(200)]

    assert cpu_seconds(reading, enough=1.0) < 1.0
