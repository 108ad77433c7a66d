"""Events: the game record. Folding a game's events from its start gives its state exactly.

Each event says who may see it: most are public; a ballot's confirmation is private to its
voter, a reminder to the player reminded, a refusal of consent to the Speaker until the vote
closes, and a rejected command to whoever sent it. Nothing public before a vote closes depends
on its ballots.

:data:`EVENT_TYPES`, at the end, lists every kind of event the record holds: this module's,
the pace of play's (:mod:`.pace_events`), the debate's (:mod:`.debate_events`), the
changes of rules (:mod:`.rule_events`) and the host's hand work (:mod:`.handwork_events`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import ClassVar

from speakerbot.engine import debate_events as de
from speakerbot.engine import pace_events as pe
from speakerbot.engine.base_event import Event as Event
from speakerbot.engine.base_event import PrivateEvent
from speakerbot.engine.debate_events import DebateContributed as DebateContributed
from speakerbot.engine.debate_events import ProposalRevised as ProposalRevised
from speakerbot.engine.debate_events import VoteStarted as VoteStarted
from speakerbot.engine.draw_events import Draw
from speakerbot.engine.draw_events import SeedCommitted as SeedCommitted
from speakerbot.engine.draw_events import SeedRevealed as SeedRevealed
from speakerbot.engine.handwork_events import HandWorkDone as HandWorkDone
from speakerbot.engine.handwork_events import HandWorkOpened as HandWorkOpened
from speakerbot.engine.mechanics import Mechanics
from speakerbot.engine.model import Choice, Clause, Judgement, Role, RuleSpec
from speakerbot.engine.refusals import NO_FACTS, Facts, Refusal
from speakerbot.engine.rule_events import RuleAmended as RuleAmended
from speakerbot.engine.rule_events import RuleEnacted as RuleEnacted
from speakerbot.engine.rule_events import RuleRepealed as RuleRepealed
from speakerbot.engine.rule_events import RuleRetitled as RuleRetitled
from speakerbot.engine.rule_events import RuleTransmuted as RuleTransmuted

# The debate's three events and the changes of rules are re-exported (``e.VoteStarted``,
# ``e.RuleEnacted``): they are read with the kinds they follow.

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
    # A game imported from a hand-run one (importing.py): its source as the host named it,
    # and the number its next proposal takes. Empty and 0 in a game started afresh.
    imported_from: str = ""
    next_proposal: int = 0
    # Where in its source rule each mechanic's value is written (readings.py): read again
    # when its rule changes. Empty in games started before, which never re-read.
    phrases: tuple[tuple[str, str], ...] = ()
    # The mechanics the host's configuration set otherwise than the ruleset (SHOW MECHANICS
    # says "set by the host"). Empty in games started before.
    overridden: tuple[str, ...] = ()
    # The commitment of the game's first seed (draw_events.py). Empty in games started
    # before draws were provable.
    commitment: str = ""


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
    # The lines left to the host when it was proposed (the reader could not carry them
    # out): hand work once it is adopted. Left out of the record when there are none.
    unclear: tuple[str, ...] = ()


@dataclass(frozen=True)
class BallotCast(PrivateEvent):
    """A ballot was received (private to its voter until the vote closes)."""

    seen_by: ClassVar[str] = "voter"
    proposal: int
    voter: str
    choice: Choice
    salt: str = ""  # of its receipt; "" in records older than receipts


@dataclass(frozen=True)
class BallotWithdrawn(PrivateEvent):
    """A voter withdrew their ballot with VOTE n ABSTAIN (private to the voter)."""

    seen_by: ClassVar[str] = "voter"
    proposal: int
    voter: str


@dataclass(frozen=True)
class ConsentDeclared(PrivateEvent):
    """The Speaker gave or refused consent (nomicam 208); private until the vote closes."""

    seen_by: ClassVar[str] = "speaker"
    proposal: int
    speaker: str
    consent: bool


@dataclass(frozen=True)
class VoteReminder(PrivateEvent):
    """A private reminder to a voter who has not voted."""

    seen_by: ClassVar[str] = "voter"
    proposal: int
    voter: str
    closes_at: datetime


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
    draw: Draw | None = None  # its proof; None in games recorded before draws were provable


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
    draw: Draw | None = None  # the proof of that draw, when it was provable


@dataclass(frozen=True)
class GameEnded(Event):
    """The game is over."""

    reason: str
    winners: tuple[str, ...]


# --- Rules and mechanics --------------------------------------------------------------------


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
class ClauseWithheld(Event):
    """An adopted proposal's clause not carried out, as its condition says.

    The condition named another proposal's fate (model.Condition); ``decided_by`` is that
    proposal and ``fate`` its status when the clause's proposal was carried out.
    """

    proposal: int
    clause: Clause
    decided_by: int
    fate: str


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


@dataclass(frozen=True)
class MechanicChanged(Event):
    """An adopted change rewrote the rule a mechanic comes from: the game plays by its words.

    ``words``: the words of rule ``rule`` the new value was read from (readings.py).
    """

    mechanic: str
    old: str  # both written as SET writes them
    new: str
    rule: int
    words: str
    proposal: int | None


@dataclass(frozen=True)
class MechanicNotRead(Event):
    """A rule a mechanic comes from changed and its value could not be read: the host decides.

    ``why`` says what stood in the way (the words gone, two values, the rule repealed, a SET
    of the same proposal that says otherwise); the mechanic keeps its value.
    """

    mechanic: str
    rule: int
    why: str
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
    draw: Draw | None = None  # the proof of a random draw, when it was provable


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
class JudgeReminder(PrivateEvent):
    """A private reminder to a Judge before their deadline."""

    seen_by: ClassVar[str] = "judge"
    cfj: int
    judge: str
    deadline: datetime


# --- The Speaker's overrides and refusals ---------------------------------------------------


@dataclass(frozen=True)
class SpeakerOverride(Event):
    """The human Speaker overrode something; the events that follow carry it out."""

    speaker: str
    action: str
    summary: str


@dataclass(frozen=True)
class CommandRejected(PrivateEvent):
    """A command was refused: the kind of refusal and its facts. Changes nothing.

    The mail layer says what was wrong and what to do instead (``refusal_text``).
    """

    seen_by: ClassVar[str] = "actor"
    actor: str
    command: str
    refusal: Refusal
    facts: Facts = NO_FACTS


# Every kind of event the record may hold, declared here once: the codec reads a stored
# event's "type" against it, and a kind left out could not be read back.
EVENT_TYPES: dict[str, type[Event]] = {kind.__name__: kind for kind in (
    GameStarted, PlayerJoined, PlayerLeft, TurnPassed, TurnConsentGiven, SpeakerChanged,
    ProposalSubmitted, BallotCast, BallotWithdrawn, ConsentDeclared, VoteReminder,
    RemindersSent, VoteExtended, VoteClosed, ProposalVoided, DieThrown, ScoreChanged,
    GameWon, NewGameBegun, GameEnded, RuleEnacted, RuleAmended, RuleRetitled, RuleRepealed,
    RuleTransmuted, MechanicSet, AdoptionSwitchedToMajority, ClauseFailed,
    ClauseWithheld,
    InformalProposalAdopted, MechanicsMayHaveChanged, MechanicChanged, MechanicNotRead,
    CfjCalled, JudgeAssigned,
    JudgementDelivered, OverruleSupported, JudgementOverruled, JudgeDeadlineMissed,
    JudgeReminder, SpeakerOverride, CommandRejected,
    pe.GamePaused, pe.GameResumed, pe.AbsenceDeclared, pe.AbsenceEnded, pe.TurnReminder,
    pe.TurnOverdue, pe.Reminded,
    de.ProposalRevised, de.VoteStarted, de.DebateContributed,
    SeedCommitted, SeedRevealed, HandWorkOpened, HandWorkDone,
)}
"""Every kind of event by class name, for storage."""
