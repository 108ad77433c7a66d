"""Counting a vote: quorum, threshold and Speaker consent, as one pure function."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction

from speakerbot.engine.mechanics import Adoption, CountBasis, Mechanics, TransmuteUnanimity
from speakerbot.engine.model import Choice


@dataclass(frozen=True)
class Tally:
    """The outcome of a vote and the numbers behind it."""

    adopted: bool
    for_votes: int
    against_votes: int
    eligible: int
    quorum_base: int
    quorum_needed: int
    quorum_reached: bool
    requirement: str
    reason: str


def transmutation_needs_unanimity(mechanics: Mechanics, to_mutable: bool) -> bool:
    """Tell whether a transmutation in this direction needs a unanimous vote."""
    wanted = TransmuteUnanimity.TO_MUTABLE if to_mutable else TransmuteUnanimity.TO_IMMUTABLE
    return mechanics.transmute_unanimity in (wanted, TransmuteUnanimity.BOTH)


def count_vote(
    ballots: Mapping[str, Choice],
    eligible: Collection[str],
    quorum_base: int,
    mechanics: Mechanics,
    *,
    unanimity_for_transmutation: bool = False,
    consent_refused: bool = False,
) -> Tally:
    """Count a closed vote.

    ``ballots`` are the ballots legally cast (FOR or AGAINST) by ``eligible`` voters;
    ``quorum_base`` is the number of Voters at the start of the voting period.
    """
    counted = {voter: choice for voter, choice in ballots.items() if voter in eligible}
    yes = sum(1 for choice in counted.values() if choice is Choice.FOR)
    no = sum(1 for choice in counted.values() if choice is Choice.AGAINST)
    cast = yes + no
    quorum_needed = -(-quorum_base * mechanics.quorum_percent // 100)  # ceiling
    quorum_reached = cast >= quorum_needed

    def basis_size(basis: CountBasis) -> int:
        return len(eligible) if basis is CountBasis.ELIGIBLE else cast

    def among(basis: CountBasis) -> str:
        return "eligible voters" if basis is CountBasis.ELIGIBLE else "votes cast"

    if unanimity_for_transmutation:
        size = basis_size(mechanics.transmute_basis)
        passed = size > 0 and yes == size
        requirement = f"unanimity among {among(mechanics.transmute_basis)} (transmutation)"
    elif mechanics.adoption is Adoption.UNANIMOUS:
        size = basis_size(mechanics.count_basis)
        passed = size > 0 and yes == size
        requirement = f"unanimity among {among(mechanics.count_basis)}"
    else:
        size = basis_size(mechanics.count_basis)
        if consent_refused and mechanics.speaker_consent:
            share = mechanics.refused_consent_threshold
            passed = yes > 0 and yes * share.denominator >= share.numerator * size
            requirement = (
                f"{fraction_words(share)} of {among(mechanics.count_basis)} "
                "(the Speaker refused consent)"
            )
        else:
            passed = 2 * yes > size
            requirement = f"a simple majority of {among(mechanics.count_basis)}"

    adopted = quorum_reached and passed
    if not quorum_reached:
        reason = f"quorum not reached: {cast} voted, {quorum_needed} needed"
    elif passed:
        reason = f"{yes} for, {no} against: {requirement} reached"
    else:
        reason = f"{yes} for, {no} against: {requirement} not reached"
    return Tally(
        adopted, yes, no, len(eligible), quorum_base, quorum_needed, quorum_reached,
        requirement, reason,
    )


def fraction_words(share: Fraction) -> str:
    """Say a threshold in words: two-thirds, or n/d."""
    if share == Fraction(2, 3):
        return "two-thirds"
    return f"{share.numerator}/{share.denominator}"
