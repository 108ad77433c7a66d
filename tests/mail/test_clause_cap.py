"""A proposal may make at most MAX_CLAUSES rule changes: each is checked against its rule at
submission, adoption and in the diff, so thousands would cost the Speaker seconds a pass."""

from __future__ import annotations

from speakerbot.mail.inbound.language import Propose, parse_commands
from speakerbot.mail.inbound.language.clauses import MAX_CLAUSES, clauses_of


def _proposal(changes: int) -> str:
    lines = "\n".join(f'Amend Rule 5 by replacing "a{i}" with "b{i}".' for i in range(changes))
    return f"PROPOSE Many\n{lines}\nEND PROPOSE\n"


def test_a_proposal_of_the_most_changes_is_read_whole() -> None:
    result = parse_commands("changes", _proposal(MAX_CLAUSES))
    assert not result.errors
    [proposal] = result.commands
    assert isinstance(proposal, Propose)
    assert len(proposal.clauses) == MAX_CLAUSES


def test_one_change_more_is_an_error_that_says_how_many_and_what_to_do() -> None:
    result = parse_commands("changes", _proposal(MAX_CLAUSES + 1))
    assert result.commands == ()
    [error] = result.errors
    assert f"{MAX_CLAUSES + 1} rule changes" in error.reason
    assert f"at most {MAX_CLAUSES}; split it into several" in error.reason


def test_edits_chained_in_one_sentence_count_one_each() -> None:
    chained = "Amend Rule 5 by " + " and ".join(
        f'replacing "a{i}" with "b{i}"' for i in range(MAX_CLAUSES + 1)) + "."
    clauses, errors = clauses_of(chained, "in the snapshot's proposal 456")
    assert clauses == [] and len(errors) == 1
