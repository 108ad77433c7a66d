"""The debate's lines: REVISE <n> ... END REVISE, CALL VOTE <n>, DEBATE <n> ... END DEBATE.

Table-driven: what each line reads into, its near misses (errors that say what to write),
and the prose that merely starts with CALL, REVISE or DEBATE (ignored, never an error).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speakerbot.engine import commands as c
from speakerbot.engine.model import ClauseKind
from speakerbot.mail.inbound.language import CallVote, Debate, Revise, every_help, parse_commands
from speakerbot.mail.inbound.translate import translate


def test_revise_reads_the_whole_new_text_and_its_clauses() -> None:
    result = parse_commands("", "REVISE 301\nAmend Rule 105 to read: Dice are fair.\n"
                            "Why: fairness.\nEND REVISE\n")
    assert result.ok and len(result.commands) == 1
    command = result.commands[0]
    assert isinstance(command, Revise) and (command.line, command.proposal) == (1, 301)
    assert command.text == "Amend Rule 105 to read: Dice are fair.\nWhy: fairness."
    assert [(k.kind, k.rule, k.text) for k in command.clauses] == [
        (ClauseKind.AMEND, 105, "Dice are fair.")]
    assert translate(command, "a@x.org") == c.ReviseProposal(
        "a@x.org", 301, command.text, command.clauses)


def test_a_revision_with_a_bad_clause_is_an_error_and_nothing_is_done() -> None:
    result = parse_commands("", "REVISE 301\nREPEAL RULE abc\nEND REVISE\n")
    assert not result.ok and result.commands == ()
    assert "revision of proposal 301" in result.errors[0].reason


def test_call_vote_and_debate() -> None:
    result = parse_commands("", "CALL VOTE 301\nDEBATE #302:\nIt is unclear.\n\nVery.\n"
                            "END DEBATE\n")
    assert result.ok
    assert result.commands == (CallVote(1, 301), Debate(2, 302, "It is unclear.\n\nVery."))
    assert translate(result.commands[0], "b@x.org") == c.CallVote("b@x.org", 301)
    assert translate(result.commands[1], "b@x.org") == c.DebateProposal(
        "b@x.org", 302, "It is unclear.\n\nVery.")
    assert [cmd.to_json()["verb"] for cmd in result.commands] == ["CALL VOTE", "DEBATE"]


@pytest.mark.parametrize(("body", "reason"), [
    ("CALL VOTE\n", "CALL VOTE needs the proposal's number"),
    ("CALL VOTE 301 now\n", "CALL VOTE takes only the proposal's number"),
    ("call vote abc\n", "CALL VOTE needs the proposal's number"),
    ("DEBATE 301 I disagree\nEND DEBATE\n", "DEBATE takes only the proposal's number"),
    ("DEBATE 301\nno end\n", "DEBATE is never closed"),
    ("DEBATE 301\nEND DEBATE\n", "holds no argument"),
    ("REVISE 301\nEND REVISE\n", "has no text"),
    ("REVISE 301\nNew text.\n", "REVISE is never closed"),
    ("END DEBATE\n", "closes nothing here"),
    ("END REVISE\n", "closes nothing here"),
    ("DEBTAE 301\nx\nEND DEBATE\n", "did you mean DEBATE"),
    ("REVIES 301\nx\nEND REVISE\n", "did you mean REVISE"),
])
def test_near_misses_say_what_to_write(body: str, reason: str) -> None:
    result = parse_commands("", body)
    assert not result.ok and result.commands == ()
    assert reason in result.errors[0].reason, result.errors


@pytest.mark.parametrize("line", [
    "Call me tomorrow.", "Call", "Called it!", "Revised as you asked.", "Revise?",
    "Debate is healthy.", "Debate:", "DEBATE", "Calling all players",
])
def test_prose_that_starts_with_the_keywords_is_ignored(line: str) -> None:
    result = parse_commands("", f"{line}\nVOTE 301 FOR\n")
    assert result.ok, result.errors
    assert [cmd.verb for cmd in result.commands] == ["VOTE"]
    assert [item.text for item in result.ignored] == [line]


def test_an_argument_keeps_its_lines_but_never_a_quoted_one_or_the_password() -> None:
    body = "DEBATE 301\nFirst.\n> quoted\nPASSWORD hunter2\nLast.\nEND DEBATE\n"
    result = parse_commands("", body)
    assert result.commands == (Debate(1, 301, "First.\nLast."),)
    assert "hunter2" not in repr(result.to_json())


def test_help_lists_the_debate_lines() -> None:
    text = every_help()
    for fragment in ("DEBATE <n>", "REVISE <n>", "CALL VOTE <n>", "END DEBATE", "END REVISE"):
        assert fragment in text


@given(st.text(max_size=200))
def test_parsing_lines_that_start_with_the_keywords_never_raises(rest: str) -> None:
    for keyword in ("CALL", "CALL VOTE", "REVISE", "DEBATE"):
        parse_commands("", f"{keyword} {rest}\nEND REVISE\nEND DEBATE\n")
