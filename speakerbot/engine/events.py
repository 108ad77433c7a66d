"""Events: the game record. Folding a game's events from its start gives its state exactly.

Each event says who may see it: most are public; a ballot's confirmation is private to its
voter, a reminder to the player reminded, a refusal of consent to the Speaker until the vote
closes, and a rejected command to whoever sent it. Nothing public before a vote closes depends
on its ballots.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar, TypeVar

from speakerbot.engine.mechanics import PARAMETERS, Adoption, Mechanics
from speakerbot.engine.model import (
    Ballot,
    Cfj,
    Choice,
    Clause,
    GameState,
    Judgement,
    Player,
    Proposal,
    ProposalStatus,
    Role,
    Rule,
    RuleChange,
    RuleSpec,
    Turn,
)


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


@dataclass(frozen=True)
class BallotCast(Event):
    """A ballot was received (private to its voter until the vote closes)."""

    public: ClassVar[bool] = False
    proposal: int
    voter: str
    choice: Choice

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
    reason: str


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
    """A command was refused: what was wrong and what to do instead. Changes nothing."""

    public: ClassVar[bool] = False
    actor: str
    command: str
    reason: str
    remedy: str

    def recipients(self) -> tuple[str, ...]:
        """Return the sender of the refused command."""
        return (self.actor,)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls for cls in Event.__subclasses__()  # every event is a direct subclass
}
"""Every kind of event by class name, for storage."""


# --- evolve: the only place where state changes ---------------------------------------------

E = TypeVar("E", bound=Event)
_EVOLVERS: dict[type[Event], Callable[[GameState, Any], None]] = {}


_Evolver = Callable[[GameState, E], None]


def _on(kind: type[E]) -> Callable[[_Evolver[E]], _Evolver[E]]:
    def register(function: _Evolver[E]) -> _Evolver[E]:
        _EVOLVERS[kind] = function
        return function

    return register


def evolve(state: GameState, event: Event) -> None:
    """Fold one event into the state, in place. Events without effect on state are no-ops."""
    evolver = _EVOLVERS.get(type(event))
    if evolver is not None:
        evolver(state, event)


def replay(events: list[Event]) -> GameState:
    """Rebuild a game's state from its whole record."""
    state = GameState()
    for event in events:
        evolve(state, event)
    return state


@_on(GameStarted)
def _game_started(state: GameState, e: GameStarted) -> None:
    state.started = True
    state.preset = e.preset
    state.title = e.title
    state.mechanics = e.mechanics
    state.sources = dict(e.sources)
    state.rules = {
        spec.number: Rule(spec.number, spec.text, spec.mutable, [RuleChange("initial", e.at)])
        for spec in sorted(e.rules, key=lambda spec: spec.number)
    }
    state.host, state.host_name = e.host, e.host_name
    state.speaker = e.host
    state.named_judge, state.named_judge_name = e.named_judge, e.named_judge_name
    state.open_registration = e.open_registration
    state.game_id = e.game_id
    state.next_proposal = e.mechanics.first_proposal_number


@_on(PlayerJoined)
def _player_joined(state: GameState, e: PlayerJoined) -> None:
    state.players[e.address] = Player(e.address, e.name, e.role)


@_on(PlayerLeft)
def _player_left(state: GameState, e: PlayerLeft) -> None:
    state.players[e.address].active = False
    for proposal in state.open_proposals():
        proposal.ballots.pop(e.address, None)


@_on(TurnPassed)
def _turn_passed(state: GameState, e: TurnPassed) -> None:
    state.turn = Turn(e.number, e.mover)
    state.circuits_completed = e.circuits_completed


@_on(TurnConsentGiven)
def _turn_consent(state: GameState, e: TurnConsentGiven) -> None:
    assert state.turn is not None
    state.turn.consenters.append(e.player)


@_on(SpeakerChanged)
def _speaker_changed(state: GameState, e: SpeakerChanged) -> None:
    _hand_speaker(state, e.old, e.new)


def _hand_speaker(state: GameState, old: str, new: str) -> None:
    state.speaker = new
    if state.rules_mechanics.speaker_role:
        if old in state.players:
            state.players[old].role = Role.VOTER
        state.players[new].role = Role.SPEAKER
        for proposal in state.open_proposals():  # the Speaker may not vote
            proposal.ballots.pop(new, None)


@_on(ProposalSubmitted)
def _proposal_submitted(state: GameState, e: ProposalSubmitted) -> None:
    state.proposals[e.number] = Proposal(
        e.number, e.title, e.text, e.clauses, e.proposer, e.at, e.closes_at, e.quorum_base, e.turn
    )
    state.next_proposal = e.number + 1
    if state.turn is not None and e.turn == state.turn.number:
        state.turn.proposal = e.number
        # A new turn has begun: judgements of earlier turns can no longer be overruled.
        for cfj in state.cfjs.values():
            cfj.overrule_open = False


@_on(BallotCast)
def _ballot_cast(state: GameState, e: BallotCast) -> None:
    state.proposals[e.proposal].ballots[e.voter] = Ballot(e.choice, e.at)


@_on(BallotWithdrawn)
def _ballot_withdrawn(state: GameState, e: BallotWithdrawn) -> None:
    state.proposals[e.proposal].ballots.pop(e.voter, None)


@_on(ConsentDeclared)
def _consent(state: GameState, e: ConsentDeclared) -> None:
    state.proposals[e.proposal].consent_refused = not e.consent


@_on(RemindersSent)
def _reminders_sent(state: GameState, e: RemindersSent) -> None:
    state.proposals[e.proposal].reminded = True


@_on(VoteExtended)
def _vote_extended(state: GameState, e: VoteExtended) -> None:
    proposal = state.proposals[e.proposal]
    proposal.closes_at = e.closes_at
    proposal.reminded = False


@_on(VoteClosed)
def _vote_closed(state: GameState, e: VoteClosed) -> None:
    proposal = state.proposals[e.proposal]
    proposal.status = ProposalStatus.ADOPTED if e.adopted else ProposalStatus.REJECTED
    proposal.closed_at = e.at


@_on(ProposalVoided)
def _proposal_voided(state: GameState, e: ProposalVoided) -> None:
    proposal = state.proposals[e.proposal]
    proposal.status = ProposalStatus.VOID
    proposal.closed_at = e.at
    if state.turn is not None and state.turn.proposal == e.proposal:
        state.turn.proposal = None  # the mover's turn is not done: they propose again


@_on(ScoreChanged)
def _score_changed(state: GameState, e: ScoreChanged) -> None:
    state.players[e.player].score += e.delta


@_on(NewGameBegun)
def _new_game(state: GameState, e: NewGameBegun) -> None:
    state.game_number = e.game_number
    state.winners = []
    for player in state.players.values():
        player.score = player.score * e.score_percent / Decimal(100)
    _hand_speaker(state, e.old_speaker, e.new_speaker)


@_on(GameWon)
def _game_won(state: GameState, e: GameWon) -> None:
    state.winners = list(e.winners)


@_on(GameEnded)
def _game_ended(state: GameState, e: GameEnded) -> None:
    state.ended = True
    state.end_reason = e.reason
    if e.winners:
        state.winners = list(e.winners)


@_on(RuleEnacted)
def _rule_enacted(state: GameState, e: RuleEnacted) -> None:
    change = RuleChange("enacted", e.at, e.proposal, e.by_speaker)
    state.rules[e.number] = Rule(e.number, e.text, e.mutable, [change])
    state.rules = dict(sorted(state.rules.items()))


def _renumber(state: GameState, rule: Rule, new_number: int) -> None:
    if new_number == rule.number:
        return
    old = rule.number
    del state.rules[old]
    rule.number = new_number
    state.rules[new_number] = rule
    state.rules = dict(sorted(state.rules.items()))
    state.sources = {name: new_number if n == old else n for name, n in state.sources.items()}


@_on(RuleAmended)
def _rule_amended(state: GameState, e: RuleAmended) -> None:
    rule = state.rules[e.number]
    rule.history.append(
        RuleChange("amended", e.at, e.proposal, e.by_speaker, e.number, previous_text=rule.text)
    )
    rule.text = e.text
    if state.sources.get("adoption") == e.number:
        state.adoption_rule_amended = True
    _renumber(state, rule, e.new_number)


@_on(RuleRepealed)
def _rule_repealed(state: GameState, e: RuleRepealed) -> None:
    rule = state.rules.pop(e.number)
    rule.history.append(RuleChange("repealed", e.at, e.proposal, e.by_speaker))
    state.repealed.append(rule)
    if state.sources.get("adoption") == e.number:
        state.adoption_rule_amended = True
    state.sources = {name: n for name, n in state.sources.items() if n != e.number}


@_on(RuleTransmuted)
def _rule_transmuted(state: GameState, e: RuleTransmuted) -> None:
    rule = state.rules[e.number]
    rule.history.append(RuleChange("transmuted", e.at, e.proposal, e.by_speaker, e.number))
    rule.mutable = e.mutable
    _renumber(state, rule, e.new_number)


@_on(MechanicSet)
def _mechanic_set(state: GameState, e: MechanicSet) -> None:
    value = PARAMETERS[e.name].parse(e.value)
    state.mechanics = state.rules_mechanics.with_value(e.name, value)
    if e.name == "adoption":
        state.adoption_rule_amended = True


@_on(AdoptionSwitchedToMajority)
def _switched(state: GameState, e: AdoptionSwitchedToMajority) -> None:
    state.mechanics = state.rules_mechanics.with_value("adoption", Adoption.MAJORITY)
    if e.rule in state.rules:
        state.rules[e.rule].history.append(
            RuleChange("switched", e.at, note=f"changed to simple majority after {e.circuits} "
                       "complete circuits, as the rule itself provides")
        )


@_on(CfjCalled)
def _cfj_called(state: GameState, e: CfjCalled) -> None:
    state.cfjs[e.number] = Cfj(
        e.number, e.statement, e.arguments, e.caller, e.at, e.paradox, e.turn, e.mover
    )
    state.next_cfj = e.number + 1


@_on(JudgeAssigned)
def _judge_assigned(state: GameState, e: JudgeAssigned) -> None:
    cfj = state.cfjs[e.cfj]
    cfj.judges.append(e.judge)
    cfj.deadline = e.deadline
    cfj.assigned_at = e.at
    cfj.reminded = False


@_on(JudgementDelivered)
def _judgement(state: GameState, e: JudgementDelivered) -> None:
    cfj = state.cfjs[e.cfj]
    cfj.judgement = e.judgement
    cfj.reasons = e.reasons
    cfj.judged_at = e.at
    cfj.deadline = None
    cfj.overrule_open = e.overrule_possible
    cfj.overrulers = []


@_on(OverruleSupported)
def _overrule_supported(state: GameState, e: OverruleSupported) -> None:
    state.cfjs[e.cfj].overrulers.append(e.player)


@_on(JudgementOverruled)
def _overruled(state: GameState, e: JudgementOverruled) -> None:
    cfj = state.cfjs[e.cfj]
    cfj.judgement = None
    cfj.reasons = ""
    cfj.judged_at = None
    cfj.overrule_open = False
    cfj.overrulers = []


@_on(JudgeReminder)
def _judge_reminder(state: GameState, e: JudgeReminder) -> None:
    state.cfjs[e.cfj].reminded = True
