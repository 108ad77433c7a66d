"""The language carries the engine's own values: one Choice, ClauseKind, verdict and Clause."""

from __future__ import annotations

from speakerbot.engine import model
from speakerbot.mail.inbound import language as lang


def test_the_enums_and_the_clause_are_the_engines() -> None:
    assert lang.Choice is model.Choice
    assert lang.ClauseKind is model.ClauseKind
    assert lang.JudgementValue is model.Judgement
    assert lang.Clause is model.Clause


def test_a_set_clause_keeps_its_value_as_text_and_shows_the_line_in_json() -> None:
    result = lang.parse_commands("s", "PROPOSE Quorum\nSET quorum = 5\nEND PROPOSE\n")
    (proposal,) = result.commands
    assert isinstance(proposal, lang.Propose)
    assert proposal.clauses == (model.Clause(model.ClauseKind.SET, None, "5", parameter="quorum"),)
    assert lang.clause_json(proposal.clauses[0]) == {
        "kind": "SET", "rule": None, "text": "quorum = 5", "immutable": False,
        "parameter": "quorum", "value": "5",
    }


def test_a_vote_and_a_judgement_carry_engine_values() -> None:
    result = lang.parse_commands("s", "VOTE 301 yes\nJUDGEMENT 12 FALSE\n")
    vote, judgement = result.commands
    assert isinstance(vote, lang.Vote) and vote.choice is model.Choice.FOR
    assert isinstance(judgement, lang.Judgement) and judgement.value is model.Judgement.FALSE
