"""Conditions on another proposal's fate, settled from the record when a proposal is carried out.

A player may make a change hang on another proposal: "If Proposal 301 passed, amend Rule
202 ...", "Upon the adoption of Proposal 301: ...", "If the proposal titled "Tea" was not
adopted, this proposal has no effect". The reader keeps such a condition on the clauses it
governs (:class:`~speakerbot.engine.model.Condition`); when the proposal bearing them is
carried out, the record settles each: the proposal named was adopted, or it was rejected or
voided. A clause whose condition holds is carried out as any other; one whose condition
does not is withheld (``ClauseWithheld``, in the record and the results); one the record
cannot settle (the proposal named is still open, or the game has no such proposal, or a
title names none or several) is left to the host, as a clause that failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from speakerbot.engine import events as e
from speakerbot.engine.condition import Condition
from speakerbot.engine.model import Clause, Proposal, ProposalStatus
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import Facts, Refusal

__all__ = ["settle_conditions"]


def settle_conditions(play: Play, proposal: int, clauses: Sequence[Clause]) -> list[Clause]:
    """Return the clauses of ``proposal`` to carry out, having settled each one's condition.

    A clause withheld by its condition, or whose condition cannot be settled, is recorded
    (``ClauseWithheld``, ``ClauseFailed``) and left out.
    """
    kept: list[Clause] = []
    for clause in clauses:
        condition = clause.condition
        if condition is None:
            kept.append(clause)
            continue
        named = _named(play, proposal, condition)
        if isinstance(named, str):
            play.emit(e.ClauseFailed(play.now, proposal, clause, Refusal.CONDITION_UNSETTLED,
                                     Facts(number=condition.proposal, text=named)))
        elif (named.status is ProposalStatus.ADOPTED) is condition.adopted:
            kept.append(clause)
        else:
            play.emit(e.ClauseWithheld(play.now, proposal, clause, named.number,
                                       named.status.value))
    return kept


def _named(play: Play, proposal: int, condition: Condition) -> Proposal | str:
    """Return the closed proposal a condition names, or say why the record cannot tell."""
    if condition.proposal is not None:
        found = play.state.proposals.get(condition.proposal)
        if found is None or found.number == proposal:
            return "not in the game's record"
    else:
        wanted = _folded(condition.title)
        titled = [other for other in play.state.proposals.values()
                  if _folded(other.title) == wanted and other.number != proposal]
        if len(titled) != 1:
            return "not one proposal by that title" if titled else "not in the game's record"
        found = titled[0]
    return "still open" if found.status is ProposalStatus.OPEN else found


def _folded(title: str) -> str:
    return " ".join(title.casefold().split())
