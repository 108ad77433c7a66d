"""A condition on another proposal's fate that a clause of a proposal is carried out under.

Read from a player's words by the mail language (``If Proposal 301 passed, ...``), kept on
the clause (:class:`~speakerbot.engine.model.Clause`), and settled from the record when the
proposal bearing it is carried out (:mod:`~speakerbot.engine.fates`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Condition"]


@dataclass(frozen=True)
class Condition:
    """A condition on another proposal's fate that a clause is carried out under.

    The proposal is named by number (``proposal``) or, where the player named it by its
    title, by ``title`` (the one proposal of the game with that title, case and white space
    aside). The clause is carried out when that proposal was adopted (``adopted``), or when
    it was not (``adopted`` false: it was rejected or void); settled from the record when the
    proposal bearing the clause is carried out. ``words``: the condition as the player wrote it.
    """

    proposal: int | None
    adopted: bool
    words: str
    title: str = ""

    def describe(self) -> str:
        """Say the condition in a few words: "if proposal 301 was adopted"."""
        named = (f"proposal {self.proposal}" if self.proposal is not None
                 else f"the proposal “{' '.join(self.title.split())}”")
        return f"if {named} was {'adopted' if self.adopted else 'not adopted'}"
