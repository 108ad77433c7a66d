"""One decision in progress (``Play``), and the lookups and checks many moves share.

Every topic of play (players and turns, proposals and votes, clauses, judgement, time) is a
module of functions taking a ``Play``; a refusal is raised as a ``GameError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.anchors import anchor_for
from speakerbot.engine.draw_events import Draw
from speakerbot.engine.edits import MAX_RULE_BYTES
from speakerbot.engine.evolve import evolve
from speakerbot.engine.luck import NO_RANDOMNESS as NO_RANDOMNESS
from speakerbot.engine.luck import RandomSource as RandomSource
from speakerbot.engine.mechanics import Mechanics
from speakerbot.engine.model import Cfj, GameState, Player, Proposal, ProposalStatus
from speakerbot.engine.refusals import Facts, GameError, Refusal

MAX_TITLE = 200
MAX_NAME = 64
MAX_TEXT = 100_000


class Play:
    """One decision in progress: the state as it evolves, and the events emitted so far."""

    def __init__(self, state: GameState, now: datetime, rng: RandomSource, *,
                 max_rule_bytes: int = MAX_RULE_BYTES) -> None:
        self.state = state
        self.now = now
        self.rng = rng
        # The host's bound on a rule's text: no record of it, it only refuses.
        self.max_rule_bytes = max_rule_bytes
        self.events: list[e.Event] = []

    @property
    def mechanics(self) -> Mechanics:
        """Return the mechanics in force at this moment of the decision."""
        return self.state.rules_mechanics

    def emit(self, event: e.Event) -> None:
        """Record an event and fold it into the state at once."""
        evolve(self.state, event)
        self.events.append(event)

    def draw(self, label: str, candidates: Sequence[str]) -> tuple[str, Draw | None]:
        """Draw one of the candidates; return it, and the draw's proof if it can be proved.

        A draw is provable when the source holds the seed the game has committed (luck.py);
        it is anchored where the record says (anchors.py); ``label`` names it, once in a game.
        """
        commitment = self.state.commitment
        anchor = anchor_for(self.state, self.now)
        provable = bool(commitment) and self.rng.holds(commitment)
        outcome = candidates[self.rng.pick(label, len(candidates), commitment, anchor)]
        if not provable:
            return outcome, None
        return outcome, Draw(label, tuple(candidates), outcome, anchor.seq, commitment)

    def source(self, mechanic: str) -> int | None:
        """Return the rule a mechanic comes from, if any."""
        return self.state.sources.get(mechanic)

    def per(self, mechanic: str) -> str:
        """Name the rule a mechanic comes from, for the record: " (rule 206)"."""
        number = self.source(mechanic)
        return f" (rule {number})" if number is not None else ""

    # --- checks shared by many commands ---

    def require_running(self) -> None:
        """Refuse every move before the game starts and after it ends."""
        if not self.state.started:
            raise GameError(Refusal.NOT_STARTED)
        if self.state.ended:
            raise GameError(Refusal.GAME_ENDED, Facts(text=self.state.end_reason))

    def require_speaker(self, command: c.Command) -> None:
        """Refuse an override from anyone but the Speaker (or the host)."""
        # The host keeps the Speaker's authority across games: rule 203 moves the in-game
        # Speaker role, not the power to correct the game.
        if command.actor not in (self.state.speaker, self.state.host):
            speaker = self.state.speaker
            raise GameError(Refusal.NOT_SPEAKER,
                            Facts(address=speaker, name=self.state.name_of(speaker)))

    def player(self, address: str) -> Player:
        """Return the active player at an address, or refuse."""
        player = self.state.players.get(address)
        if player is None or not player.active:
            raise GameError(Refusal.NOT_A_PLAYER,
                            Facts(address=address, allowed=self.state.open_registration))
        return player

    def find(self, reference: str) -> Player:
        """Return the active player named by address or display name, or refuse."""
        player = self.state.find_player(reference)
        if player is None:
            raise GameError(Refusal.NO_SUCH_PLAYER, Facts(text=reference))
        return player

    def proposal(self, number: int, *, open_only: bool = True) -> Proposal:
        """Return a proposal (by default only one still open to votes), or refuse."""
        proposal = self.state.proposals.get(number)
        if proposal is None:
            raise GameError(Refusal.NO_SUCH_PROPOSAL, Facts(number=number))
        if open_only and proposal.status is not ProposalStatus.OPEN:
            raise GameError(Refusal.VOTE_OVER, Facts(number=number, text=proposal.status.value))
        return proposal

    def cfj(self, number: int) -> Cfj:
        """Return a CFJ, or refuse."""
        cfj = self.state.cfjs.get(number)
        if cfj is None:
            raise GameError(Refusal.NO_SUCH_CFJ, Facts(number=number))
        return cfj

    def score(self, player: str, points: int | Decimal, reason: str, *,
              proposal: int | None = None, cfj: int | None = None,
              by_speaker: bool = False) -> None:
        """Change a player's score, saying why (nothing is recorded for zero points)."""
        if points:
            self.emit(e.ScoreChanged(self.now, player, Decimal(points), reason, proposal, cfj,
                                     by_speaker))

    def scores_now(self) -> tuple[tuple[str, Decimal], ...]:
        """Return every active player's score, in joining order."""
        return tuple((p.address, p.score) for p in self.state.active_players())


def require_aware(now: datetime) -> None:
    """Refuse a naive time: the engine's deadlines are instants."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("the engine needs timezone-aware times")
