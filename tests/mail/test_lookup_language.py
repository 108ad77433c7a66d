"""The lookups in the command language: SHOW PROPOSAL|RULE|CFJ <n> and HISTORY [n]."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.mail.inbound.language import (
    HISTORY_DEFAULT,
    HISTORY_MAX,
    every_help,
    parse_commands,
)
from speakerbot.mail.inbound.translate import Query, translate


def show(line: int, what: str, number: int) -> dict[str, object]:
    return {"line": line, "verb": "SHOW", "what": what, what: number}


def history(line: int, count: int) -> dict[str, object]:
    return {"line": line, "verb": "HISTORY", "count": count}


# (id, body, commands, errors as (line, reason fragment), ignored line numbers)
CASES: list[tuple[str, str, list[dict[str, object]], list[tuple[int, str]], list[int]]] = [
    ("show-proposal", "SHOW PROPOSAL 301", [show(1, "proposal", 301)], [], []),
    ("show-rule", "show rule 105", [show(1, "rule", 105)], [], []),
    ("show-cfj", "Show CFJ 12", [show(1, "cfj", 12)], [], []),
    ("show-hash", "SHOW RULE #105", [show(1, "rule", 105)], [], []),
    ("show-full-stop", "SHOW RULE 105.", [show(1, "rule", 105)], [], []),
    ("show-question", "Show proposal 7?", [show(1, "proposal", 7)], [], []),
    ("show-plural", "SHOW RULES 105", [show(1, "rule", 105)], [], []),
    ("show-colon", "Show: cfj 3", [show(1, "cfj", 3)], [], []),
    ("show-leading-zero", "SHOW PROPOSAL 0301", [show(1, "proposal", 301)], [], []),
    ("show-zero", "SHOW RULE 0", [show(1, "rule", 0)], [], []),
    ("show-nine-digits", "SHOW PROPOSAL 999999999", [show(1, "proposal", 999999999)], [], []),
    ("history-alone", "HISTORY", [history(1, HISTORY_DEFAULT)], [], []),
    ("history-lower", "history", [history(1, HISTORY_DEFAULT)], [], []),
    ("history-question", "History?", [history(1, HISTORY_DEFAULT)], [], []),
    ("history-number", "HISTORY 50", [history(1, 50)], [], []),
    ("history-hash", "HISTORY #5", [history(1, 5)], [], []),
    ("history-one", "HISTORY 1", [history(1, 1)], [], []),
    # More than the cap is read as asked: the answer cuts it and says so.
    ("history-huge", "HISTORY 99999999", [history(1, 99999999)], [], []),
    # Lookups share a message with other commands.
    ("with-vote", "VOTE 301 FOR\nSHOW PROPOSAL 301\nHISTORY 3\nRULES",
     [{"line": 1, "verb": "VOTE", "proposal": 301, "choice": "FOR"}, show(2, "proposal", 301),
      history(3, 3), {"line": 4, "verb": "RULES"}], [], []),
    # Sentences that start with the everyday words are prose, not errors.
    ("show-prose", "Show me the money", [], [], [1]),
    ("show-prose-colon", "Show: it was a good game", [], [], [1]),
    ("history-prose", "History repeats itself.", [], [], [1]),
    ("history-prose-with-vote", "VOTE 301 FOR\nHistory will judge us",
     [{"line": 1, "verb": "VOTE", "proposal": 301, "choice": "FOR"}], [], [2]),
    ("shoe-prose", "Shoe shopping later", [], [], [1]),
    # Lookups written wrong: errors that say what to write.
    ("show-alone", "SHOW", [], [(1, "SHOW needs PROPOSAL, RULE or CFJ and a number")], []),
    ("show-number-only", "SHOW 301", [], [(1, "before the number, e.g. SHOW PROPOSAL 301")], []),
    ("show-rule-word", "SHOW RULE abc", [], [(1, "SHOW RULE needs a number")], []),
    ("show-rule-missing", "SHOW RULE", [], [(1, "RULES sends the whole ruleset")], []),
    ("show-proposal-missing", "SHOW PROPOSALS", [],
     [(1, "STATUS lists the open proposals")], []),
    ("show-negative", "SHOW CFJ -3", [], [(1, "SHOW CFJ needs a number")], []),
    ("show-ten-digits", "SHOW RULE 1234567890", [], [(1, "at most nine digits")], []),
    ("show-two-numbers", "SHOW RULE 105 106", [],
     [(1, "SHOW RULE takes one number, e.g. SHOW RULE 105")], []),
    ("history-zero", "HISTORY 0", [], [(1, f"from 1 to {HISTORY_MAX}")], []),
    ("history-negative", "HISTORY -5", [], [(1, f"from 1 to {HISTORY_MAX}")], []),
    ("history-minus-sign", "HISTORY \u22125", [], [(1, f"from 1 to {HISTORY_MAX}")], []),
    ("history-ten-digits", "HISTORY 9999999999", [], [(1, f"from 1 to {HISTORY_MAX}")], []),
    ("history-more-words", "HISTORY 5 please", [], [(1, "HISTORY takes only a number")], []),
    # Near misses of the keywords, when the rest fits.
    ("near-show", "SHWO RULE 5", [], [(1, "unknown command SHWO; did you mean SHOW?")], []),
    ("near-history", "HISTROY 5", [], [(1, "did you mean HISTORY?")], []),
    ("near-history-alone", "HISTORYY", [], [(1, "did you mean HISTORY?")], []),
    # An error elsewhere is reported beside the lookup (the service then answers nothing).
    ("error-beside-lookup", "SHOW RULE 105\nVOTE 301 MAYBE", [show(1, "rule", 105)],
     [(2, "VOTE needs FOR, AGAINST or ABSTAIN")], []),
    # Quoted lines are never read.
    ("quoted", "> SHOW RULE 105\n> HISTORY", [], [], []),
]


@pytest.mark.parametrize(("body", "commands", "errors", "ignored"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_lookup_lines(body: str, commands: list[dict[str, object]],
                      errors: list[tuple[int, str]], ignored: list[int]) -> None:
    result = parse_commands("", body).to_json()
    assert result["commands"] == commands
    got_errors = result["errors"]
    assert isinstance(got_errors, list)
    assert len(got_errors) == len(errors), got_errors
    for got, (line, fragment) in zip(got_errors, errors, strict=True):
        assert got["line"] == line
        assert fragment in got["reason"], got["reason"]
    got_ignored = result["ignored"]
    assert isinstance(got_ignored, list)
    assert [item["line"] for item in got_ignored] == ignored


def test_the_json_of_a_lookup_names_what_is_shown() -> None:
    result = parse_commands("", "SHOW CFJ 4\nHISTORY\n")
    assert json.loads(json.dumps(result.to_json()))["commands"] == [
        {"line": 1, "verb": "SHOW", "what": "cfj", "cfj": 4},
        {"line": 2, "verb": "HISTORY", "count": HISTORY_DEFAULT},
    ]


@pytest.mark.parametrize(("body", "verb", "number"), [
    ("SHOW PROPOSAL 301", "SHOW PROPOSAL", 301),
    ("SHOW RULE 105", "SHOW RULE", 105),
    ("SHOW CFJ 2", "SHOW CFJ", 2),
    ("HISTORY 7", "HISTORY", 7),
    ("HISTORY", "HISTORY", HISTORY_DEFAULT),
])
def test_a_lookup_translates_to_a_question(body: str, verb: str, number: int) -> None:
    command = parse_commands("", body).commands[0]
    assert translate(command, "alice@example.org") == Query(1, verb, number)


def test_help_lists_the_lookups() -> None:
    text = every_help()
    assert "SHOW PROPOSAL|RULE|CFJ <n>" in text
    assert "HISTORY [<n>]" in text
    assert f"at most {HISTORY_MAX}" in text


_WORDS = st.sampled_from(["SHOW", "show", "Show:", "HISTORY", "history", "PROPOSAL", "RULE",
                          "CFJ", "RULES", "#", "-", "0", "1", "301", "9999999999", "x" * 5000,
                          "9" * 5000, "?", ".", "me", "\u2212", "\u00a0", ""])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_WORDS, max_size=5).map(" ".join), max_size=8),
       st.text(max_size=200))
def test_lookup_lines_never_raise(lines: list[str], noise: str) -> None:
    for body in ("\n".join(lines), "\n".join([*lines, noise]), noise + " " + " ".join(lines)):
        result = parse_commands("", body)
        for command in result.commands:
            command.to_json()
            if command.verb == "HISTORY":
                assert getattr(command, "count", 0) >= 1
