"""The debate's events: a proposal revised in debate, its vote started, an argument made.

They are listed with every other kind of event in :data:`speakerbot.engine.events.EVENT_TYPES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from speakerbot.engine.base_event import Event
from speakerbot.engine.model import Clause


@dataclass(frozen=True)
class ProposalRevised(Event):
    """The proposer revised a proposal in debate: its whole new text and clauses."""

    proposal: int
    text: str
    clauses: tuple[Clause, ...]
    # The new text's lines left to the host (as ProposalSubmitted's): left out when none.
    unclear: tuple[str, ...] = ()


@dataclass(frozen=True)
class VoteStarted(Event):
    """A proposal's debate ended and its voting period began.

    ``how``: ``called`` (its proposer called the vote) or ``debate-over`` (the debate
    period ran out).
    """

    proposal: int
    closes_at: datetime | None
    quorum_base: int
    how: str


@dataclass(frozen=True)
class DebateContributed(Event):
    """A player's argument on a proposal in debate, forwarded to every player."""

    proposal: int
    player: str
    text: str
