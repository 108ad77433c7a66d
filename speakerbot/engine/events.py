"""Events: the game record. Folding a game's events from its start gives its state exactly.

Each event says who may see it: most are public; a ballot's confirmation is private to its
voter, a reminder to the player reminded, a refusal of consent to the Speaker until the vote
closes, and a rejected command to whoever sent it. Nothing public before a vote closes depends
on its ballots.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import ClassVar

from speakerbot.engine.mechanics import Mechanics
from speakerbot.engine.model import Choice, Clause, Judgement, Role, RuleSpec
from speakerbot.engine.refusals import NO_FACTS, Facts, Refusal


@dataclass(frozen=True)
class Event:
    """Something that happened in a game, at a time."""

    at: datetime
    public: ClassVar[bool] = True

    def recipients(self) -> tuple[str, ...]:
        """Return who may see a private event (empty for a public one)."""
        return ()


# --- The game and its players ---------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted(Event):
    """A game began from a preset, with its persons filled in."""

    preset: str
    title: str
    mechanics: Mechanics
    sources: tuple[tuple[str, int], ...]
    rules: tuple[RuleSpec, ...]
    host: str
    host_name: str
    named_judge: str
    named_judge_name: str
    open_registration: bool
    game_id: str = ""
    # How the public record names players (publicity.py): 1, by address, in every game
    # started before public ids; 2, by public id. Receipts follow it (receipts.py).
    record_version: int = 1


@dataclass(frozen=True)
class PlayerJoined(Event):
    """A player joined (or the Speaker added one)."""

    address: str
    name: str
    role: Role
    by_speaker: bool = False


@dataclass(frozen=True)
class PlayerLeft(Event):
    """A player forfeited or was removed; their sealed ballots go with them."""

    address: str
    reason: str  # forfeit | removed


@dataclass(frozen=True)
class TurnPassed(Event):
    """The turn passed to the next player (turn-based presets)."""

    number: int
    mover: str
    circuits_completed: int


@dataclass(frozen=True)
class TurnConsentGiven(Event):
    """A player agreed that the next turn may begin although a CFJ is undecided (suber 212)."""

    player: str
    turn: int


@dataclass(frozen=True)
class SpeakerChanged(Event):
    """The Speaker role passed to another player or address."""

    old: str
    new: str


# --- Proposals and votes --------------------------------------------------------------------


@dataclass(frozen=True)
class ProposalSubmitted(Event):
    """A proposal was numbered and distributed; its voting period began."""

    number: int
    title: str
    text: str
    clauses: tuple[Clause, ...]
    proposer: str
    closes_at: datetime | None
    quorum_base: int
    turn: int | None
    # Set where the proposal opens for debate (debate.py): the vote starts by itself then,
    # and ``closes_at`` is None until it starts. Left out of the record when None.
    debate_until: datetime | None = None


@dataclass(frozen=True)
class BallotCast(Event):
    """A ballot was received (private to its voter until the vote closes)."""

    public: ClassVar[bool] = False
    proposal: int
    voter: str
    choice: Choice
    salt: str = ""  # of its receipt; "" in records older than receipts

    def recipients(self) -> tuple[str, ...]:
        """Return the voter only."""
        return (self.voter,)


@dataclass(frozen=True)
class BallotWithdrawn(Event):
    """A voter withdrew their ballot with VOTE n ABSTAIN (private to the voter)."""

    public: ClassVar[bool] = False
    proposal: int
    voter: str

    def recipients(self) -> tuple[str, ...]:
        """Return the voter only."""
        return (self.voter,)


@dataclass(frozen=True)
class ConsentDeclared(Event):
    """The Speaker gave or refused consent (nomicam 208); private until the vote closes."""

    public: ClassVar[bool] = False
    proposal: int
    speaker: str
    consent: bool

    def recipients(self) -> tuple[str, ...]:
        """Return the Speaker only."""
        return (self.speaker,)


@dataclass(frozen=True)
class VoteReminder(Event):
    """A private reminder to a voter who has not voted."""

    public: ClassVar[bool] = False
    proposal: int
    voter: str
    closes_at: datetime

    def recipients(self) -> tuple[str, ...]:
        """Return the voter reminded."""
        return (self.voter,)


@dataclass(frozen=True)
class RemindersSent(Event):
    """The reminders for a vote have gone out (says nothing of who was reminded)."""

    proposal: int


@dataclass(frozen=True)
class VoteExtended(Event):
    """The Speaker moved a vote's deadline."""

    proposal: int
    closes_at: datetime


@dataclass(frozen=True)
class VoteClosed(Event):
    """A vote closed: every ballot revealed, the tally as the rules applied it."""

    proposal: int
    adopted: bool
    ballots: tuple[tuple[str, Choice], ...]
    non_voters: tuple[str, ...]
    for_votes: int
    against_votes: int
    eligible: int
    quorum_base: int
    quorum_needed: int
    quorum_reached: bool
    requirement: str
    consent_refused: bool
    reason: str
    # Each counted ballot's salt, (voter, salt) in the order of ``ballots``, so anyone can
    # recompute the receipts (see receipts.py). Empty in records older than receipts.
    salts: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ProposalVoided(Event):
    """The Speaker voided a proposal; its ballots stay sealed and count for nothing."""

    proposal: int
    reason: str


# --- Scores and winning ---------------------------------------------------------------------


@dataclass(frozen=True)
class DieThrown(Event):
    """A die was thrown (the draw is recorded so a game replays exactly)."""

    player: str
    sides: int
    value: int


@dataclass(frozen=True)
class ScoreChanged(Event):
    """A player's score changed, and why."""

    player: str
    delta: Decimal
    reason: str
    proposal: int | None = None
    cfj: int | None = None
    by_speaker: bool = False


@dataclass(frozen=True)
class GameWon(Event):
    """One or more players won; ``scores`` are everyone's scores at that moment."""

    winners: tuple[str, ...]
    reason: str
    scores: tuple[tuple[str, Decimal], ...] = ()


@dataclass(frozen=True)
class NewGameBegun(Event):
    """A win started a new game (nomicam 203): new Speaker, scores scaled, rules kept."""

    game_number: int
    new_speaker: str
    old_speaker: str
    drawn_from: tuple[str, ...]  # the winners, when the new Speaker was drawn among several
    score_percent: int


@dataclass(frozen=True)
class GameEnded(Event):
    """The game is over."""

    reason: str
    winners: tuple[str, ...]


# --- Rules and mechanics --------------------------------------------------------------------


@dataclass(frozen=True)
class RuleEnacted(Event):
    """A rule was enacted."""

    number: int
    text: str
    mutable: bool
    proposal: int | None
    by_speaker: bool = False


@dataclass(frozen=True)
class RuleAmended(Event):
    """A rule's text was replaced (and, where the preset says so, it took a new number)."""

    number: int
    new_number: int
    text: str
    proposal: int | None
    by_speaker: bool = False


@dataclass(frozen=True)
class RuleRepealed(Event):
    """A rule was repealed."""

    number: int
    proposal: int | None
    by_speaker: bool = False


@dataclass(frozen=True)
class RuleTransmuted(Event):
    """A rule changed between mutable and immutable (and maybe took a new number)."""

    number: int
    new_number: int
    mutable: bool
    proposal: int | None
    by_speaker: bool = False


@dataclass(frozen=True)
class MechanicSet(Event):
    """A mechanic was given a new value."""

    name: str
    value: str  # as written; parsed with the mechanic's own reader
    proposal: int | None
    by_speaker: bool = False


@dataclass(frozen=True)
class AdoptionSwitchedToMajority(Event):
    """Unanimity changed to simple majority by itself (locked-open 203)."""

    rule: int
    circuits: int


@dataclass(frozen=True)
class ClauseFailed(Event):
    """An adopted proposal's clause could not be carried out; the Speaker must look."""

    proposal: int
    clause: Clause
    refusal: Refusal
    facts: Facts = NO_FACTS


@dataclass(frozen=True)
class InformalProposalAdopted(Event):
    """An adopted proposal without clauses: the Speaker carries it out by hand."""

    proposal: int


@dataclass(frozen=True)
class MechanicsMayHaveChanged(Event):
    """A rule that mechanics come from changed, but no value was set for them."""

    rule: int
    mechanics: tuple[str, ...]
    proposal: int | None


# --- Judgement ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CfjCalled(Event):
    """Judgement was invoked on a statement."""

    number: int
    statement: str
    arguments: str
    caller: str
    paradox: bool
    turn: int | None
    mover: str | None


@dataclass(frozen=True)
class JudgeAssigned(Event):
    """A Judge was selected; ``drawn_from`` records the candidates of a random draw."""

    cfj: int
    judge: str
    how: str
    deadline: datetime | None
    drawn_from: tuple[str, ...] = ()


@dataclass(frozen=True)
class JudgementDelivered(Event):
    """A Judge delivered a judgement, with reasons that form no part of it."""

    cfj: int
    judge: str
    judgement: Judgement
    reasons: str
    overrule_possible: bool


@dataclass(frozen=True)
class OverruleSupported(Event):
    """A player voted to overrule a judgement (suber 212)."""

    cfj: int
    player: str


@dataclass(frozen=True)
class JudgementOverruled(Event):
    """A judgement was overruled by the unanimous vote of the other players."""

    cfj: int


@dataclass(frozen=True)
class JudgeDeadlineMissed(Event):
    """A Judge did not judge in time (nomicam 215)."""

    cfj: int
    judge: str


@dataclass(frozen=True)
class JudgeReminder(Event):
    """A private reminder to a Judge before their deadline."""

    public: ClassVar[bool] = False
    cfj: int
    judge: str
    deadline: datetime

    def recipients(self) -> tuple[str, ...]:
        """Return the Judge."""
        return (self.judge,)


# --- The Speaker's overrides and refusals ---------------------------------------------------


@dataclass(frozen=True)
class SpeakerOverride(Event):
    """The human Speaker overrode something; the events that follow carry it out."""

    speaker: str
    action: str
    summary: str


@dataclass(frozen=True)
class CommandRejected(Event):
    """A command was refused: the kind of refusal and its facts. Changes nothing.

    The mail layer says what was wrong and what to do instead (``refusal_text``).
    """

    public: ClassVar[bool] = False
    actor: str
    command: str
    refusal: Refusal
    facts: Facts = NO_FACTS

    def recipients(self) -> tuple[str, ...]:
        """Return the sender of the refused command."""
        return (self.actor,)


# The pace of play's events live in pace_events.py (this module's length); importing it here
# puts them in EVENT_TYPES below.
from speakerbot.engine import pace_events  # noqa: E402, F401
from speakerbot.engine.debate_events import (  # noqa: E402 (debate.py's, for the same reason)
    DebateContributed as DebateContributed,
)
from speakerbot.engine.debate_events import ProposalRevised as ProposalRevised  # noqa: E402
from speakerbot.engine.debate_events import VoteStarted as VoteStarted  # noqa: E402

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls for cls in Event.__subclasses__()  # every event is a direct subclass
}
"""Every kind of event by class name, for storage."""
