"""How mail, HISTORY and the archive say a provable draw and the game's seeds.

A draw is said by its label, its candidates in order and its outcome, so that a player can
find it in the public record and compute it again once its seed is revealed
(``docs/verifying.md``). Sealed means sealed: :func:`seed_revealed` is the only sentence
that ever shows a seed; a seed committed, a game begun and a draw show commitments only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from speakerbot.engine.draw_events import Draw, SeedCommitted, SeedRevealed

CHECK = "speakerbot record verify (docs/verifying.md)"
"""How anyone checks the draws once their seed is revealed."""


def _is_die(candidates: Sequence[str]) -> bool:
    """Tell whether a draw is among "1" to "n" in order, as a die's faces are."""
    return bool(candidates) and list(candidates) == [str(face)
                                                     for face in range(1, len(candidates) + 1)]


def draw_words(draw: Draw, names: Callable[[Sequence[str]], str], *,
               in_record: bool = False) -> str:
    """Say a draw: ``draw die:302, from 1 to 6`` or ``draw judge:cfj-4 among Bob and Carol``.

    ``names`` lists players as the sentence's place names them. The record adds the line the
    draw was anchored to: mail readers need not look it up, a checker does.
    """
    if _is_die(draw.candidates):
        among = f", from 1 to {len(draw.candidates)}"
    else:
        among = f" among {names(draw.candidates)}"
    anchored = f", after line {draw.after}" if in_record else ""
    return f"draw {draw.label}{among}{anchored}"


def seed_revealed(ev: SeedRevealed) -> str:
    """Say a seed revealed: the seed in full, its commitment, why now, the next, how to check."""
    following = (f"the next seed's commitment is {ev.next_commitment}" if ev.next_commitment
                 else "no next seed is needed: the game is over")
    return (f"The seed of the game's draws is revealed, because {ev.reason}: seed {ev.seed}, "
            f"which matches the commitment published before its draws, {ev.commitment}; "
            f"{following}. To check every draw made with it: {CHECK}")


def seed_committed(ev: SeedCommitted) -> str:
    """Say a seed committed: only its commitment, and the lost one it replaces if any."""
    lost = (f", replacing the seed of commitment {ev.replaces}, which the game no longer holds"
            if ev.replaces else "")
    return (f"A seed was drawn for the game's draws and kept secret until it is revealed; "
            f"its commitment is {ev.commitment}{lost}")


def news_subject(ev: SeedRevealed | SeedCommitted) -> str:
    """Return a short Subject for news that begins with a seed's event: no hex in a header."""
    if isinstance(ev, SeedRevealed):
        return "The seed of the game's draws is revealed"
    return "A new seed for the game's draws is committed"
