"""More of issue 26's wordings (see :mod:`tests.mail.natural_cases_more`): read, then made."""

from __future__ import annotations

import pytest

from speakerbot.engine.edits import edited_text
from speakerbot.engine.model import ClauseKind
from speakerbot.mail.inbound.language.results import Clause
from tests.mail.natural_cases_more import MORE_CASES, MORE_NEAR_MISSES, RULE
from tests.mail.test_natural_forms import read


@pytest.mark.parametrize(("text", "expected"), [c[1:3] for c in MORE_CASES],
                         ids=[c[0] for c in MORE_CASES])
def test_more_forms_are_read_as_their_clauses(text: str, expected: list[Clause]) -> None:
    """Each wording is read as exactly its clauses, and nothing of it is left over."""
    proposal = read(text)
    assert list(proposal.clauses) == expected
    assert proposal.not_understood == ()


def test_every_more_case_has_a_distinct_id_and_changes_the_rule() -> None:
    ids = [case[0] for case in MORE_CASES]
    assert len(ids) == len(set(ids))
    assert all(case[3] != RULE for case in MORE_CASES)


_EDITS = (ClauseKind.REPLACE, ClauseKind.APPEND, ClauseKind.INSERT)
MADE = [c for c in MORE_CASES if c[3] and all(x.rule == 5 and x.kind in _EDITS for x in c[2])]


@pytest.mark.parametrize(("clauses", "after"), [c[2:] for c in MADE], ids=[c[0] for c in MADE])
def test_the_engine_makes_each_more_case_as_its_after_text(clauses: list[Clause],
                                                           after: str) -> None:
    text = RULE
    for clause in clauses:
        text = edited_text(text, clause)
    assert text == after


@pytest.mark.parametrize("text", [n[1] for n in MORE_NEAR_MISSES],
                         ids=[n[0] for n in MORE_NEAR_MISSES])
def test_more_near_misses_stay_informal(text: str) -> None:
    """A wording that could mean two changes makes no clause; the reply quotes its line."""
    proposal = read(f"Preamble.\n{text}\nRationale.")
    assert proposal.clauses == ()
    assert proposal.not_understood[0] == (3, text.split("\n")[0])
