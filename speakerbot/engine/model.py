"""The state of a game of Nomic: players, rules, proposals with their ballots, CFJs and turns.

The state is only ever changed by folding events into it (see ``evolve``); nothing here
decides anything.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any, Self

from speakerbot.addresses import canonical_address
from speakerbot.engine.condition import Condition
from speakerbot.engine.draw_events import RecordSoFar
from speakerbot.engine.mechanics import Mechanics
from speakerbot.engine.publicity import WITHHELD


class Choice(StrEnum):
    """A ballot's choice. ABSTAIN withdraws a ballot; it is never stored."""

    FOR = "FOR"
    AGAINST = "AGAINST"
    ABSTAIN = "ABSTAIN"


class Role(StrEnum):
    """A player's role in the presets that have a Speaker who plays."""

    PLAYER = "player"  # the turn-based presets: every player votes
    VOTER = "voter"
    SPEAKER = "speaker"


class ClauseKind(StrEnum):
    """What a clause of a proposal does when the proposal is adopted."""

    ENACT = "ENACT"
    AMEND = "AMEND"
    REPEAL = "REPEAL"
    TRANSMUTE = "TRANSMUTE"
    SET = "SET"
    REPLACE = "REPLACE"  # replace ``old`` with ``new`` in the rule ("" deletes it)
    APPEND = "APPEND"  # add ``text`` at the end of the rule
    INSERT = "INSERT"  # put ``text`` before or after ``anchor`` in the rule
    RETITLE = "RETITLE"  # give the rule the title ``text``


class ProposalStatus(StrEnum):
    """Where a proposal stands."""

    OPEN = "open"
    ADOPTED = "adopted"
    REJECTED = "rejected"
    VOID = "void"


class Judgement(StrEnum):
    """A legal judgement (nomicam 216)."""

    TRUE = "TRUE"
    FALSE = "FALSE"
    UNDECIDED = "UNDECIDED"


class _Shared:
    """A frozen record that the states copied from one another share: a deep copy is itself.

    Deep-copying a state (twice a message) would otherwise copy every clause, history
    entry and ballot it holds, though none of them can change.
    """

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self


@dataclass(frozen=True)
class Clause(_Shared):
    """One structured rule change inside a proposal (or a Speaker's direct edit).

    ``text`` is the rule text for ENACT and AMEND, the text added by APPEND and INSERT, and
    the written value for SET. REPLACE replaces ``old`` with ``new`` (every occurrence with
    ``every``, else ``old`` must stand in the rule exactly once); INSERT puts ``text``
    ``position`` (``"before"`` or ``"after"``) ``anchor``, which must stand in the rule once.
    TRANSMUTE's ``text`` is the state the rule is to have, ``"mutable"`` or ``"immutable"``,
    when the proposal says (a rule already in that state is refused); empty, it flips.
    """

    kind: ClauseKind
    rule: int | None = None
    text: str = ""
    immutable: bool = False
    parameter: str | None = None
    old: str = ""
    new: str = ""
    every: bool = False
    anchor: str = ""
    position: str = ""
    # A part of the rule an edit works on (edits.py): "" (the text ``old``/``anchor`` names),
    # or "paragraph", "sentence", "item" (a list item) or "line". The part is the one whose
    # text begins with ``anchor``, else the ``nth`` (1 the first, -1 the last).
    unit: str = ""
    nth: int = 0
    title: str = ""  # ENACT: the new rule's title
    # The part is the one whose whole text is ``anchor`` (the player quoted the part, not its
    # beginning): a longer part that merely begins with it is not the one meant.
    whole: bool = False
    # Carried out only if another proposal was (or was not) adopted: settled at adoption.
    condition: Condition | None = None

    def describe(self) -> str:
        """Say in a few words what the clause does (and under what condition, if any)."""
        what = self._what()
        return f"{self.condition.describe()}, {what}" if self.condition is not None else what

    def _what(self) -> str:
        if self.kind is ClauseKind.ENACT:
            titled = f" “{' '.join(self.title.split())}”" if self.title.strip() else ""
            return "enact a new " + ("immutable " if self.immutable else "") + "rule" + titled
        if self.kind is ClauseKind.SET:
            return f"set {self.parameter} = {self.text}"
        if self.kind is ClauseKind.RETITLE:
            return f"retitle rule {self.rule} “{' '.join(self.text.split())}”"
        if self.unit and self.kind in (ClauseKind.REPLACE, ClauseKind.APPEND, ClauseKind.INSERT):
            return _part_described(self)
        if self.kind is ClauseKind.REPLACE:
            verb = "delete" if not self.new else "replace"
            return f"{verb} {'every occurrence of ' if self.every else ''}text in rule {self.rule}"
        if self.kind is ClauseKind.APPEND:
            return f"append text to rule {self.rule}"
        if self.kind is ClauseKind.INSERT:
            return f"insert text {self.position} other text in rule {self.rule}"
        return f"{self.kind.value.lower()} rule {self.rule}"


def _part_described(clause: Clause) -> str:
    """Say what an edit of a part of a rule does: "replace the paragraph beginning “X”"..."""
    word = "list item" if clause.unit == "item" else clause.unit
    anchor = " ".join(clause.anchor.split())
    if anchor:
        where = f"the {word} beginning “{anchor if len(anchor) <= 40 else anchor[:39] + '…'}”"
    elif clause.nth == -1:
        where = f"the last {word}"
    elif clause.nth < 0:
        where = f"{word} {-clause.nth} from the end"
    else:
        where = f"{word} {clause.nth}"
    if clause.kind is ClauseKind.INSERT:
        return f"insert a {word} {clause.position} {where} of rule {clause.rule}"
    if clause.kind is ClauseKind.APPEND:
        return f"append text to {where} of rule {clause.rule}"
    verb = "replace" if clause.new else "delete"
    return f"{verb} {where} of rule {clause.rule}"


@dataclass(frozen=True)
class RuleSpec:
    """A rule as a ruleset gives it: number, text and mutability; a title where it has one.

    ``history``: what an imported game's rule went through before the import, one line
    each as its players wrote it (``speakerbot import``); empty in a ruleset.
    """

    number: int
    text: str
    mutable: bool
    title: str = ""
    history: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuleChange(_Shared):
    """One entry in a rule's history."""

    # initial, enacted, amended, retitled (its note: the old title), transmuted, renumbered,
    # repealed, switched
    kind: str
    at: datetime
    proposal: int | None = None
    by_speaker: bool = False
    previous_number: int | None = None
    previous_text: str | None = None
    note: str = ""


@dataclass
class Rule:
    """A rule of the current ruleset (or a repealed one, kept for the record)."""

    number: int
    text: str
    mutable: bool
    history: list[RuleChange] = field(default_factory=list)
    title: str = ""  # as the ruleset, the import, an enactment or a retitling named it

    def __deepcopy__(self, memo: dict[int, Any]) -> Rule:
        # Its history entries are frozen and may be shared: only the list is new. (The
        # generic deepcopy walked every field of every rule, twice a message.)
        copied = Rule(self.number, self.text, self.mutable, list(self.history), self.title)
        memo[id(self)] = copied
        return copied


@dataclass
class Player:
    """A player, active or gone."""

    address: str
    name: str
    role: Role
    score: Decimal = Decimal(0)
    active: bool = True
    # When they (last) joined, and whether the Speaker added them: the service limits the
    # players who join by mail from one domain in a day ([limits] join_per_domain_per_day).
    joined_at: datetime | None = None
    by_speaker: bool = False

    def __deepcopy__(self, memo: dict[int, Any]) -> Player:
        # Every field is immutable: a shallow copy is a deep one.
        copied = Player(self.address, self.name, self.role, self.score, self.active,
                        self.joined_at, self.by_speaker)
        memo[id(self)] = copied
        return copied


@dataclass(frozen=True)
class Ballot(_Shared):
    """A ballot as received: sealed until its vote closes."""

    choice: Choice
    at: datetime
    salt: str = ""  # of its receipt (see receipts.py); "" in records older than receipts


@dataclass
class Proposal:
    """A numbered proposal and, while it is open, its sealed ballots."""

    number: int
    title: str
    text: str
    clauses: tuple[Clause, ...]
    proposer: str
    submitted_at: datetime
    closes_at: datetime | None
    quorum_base: int  # Voters at the start of the voting period (nomicam 201)
    turn: int | None
    ballots: dict[str, Ballot] = field(default_factory=dict)
    consent_refused: bool = False
    status: ProposalStatus = ProposalStatus.OPEN
    closed_at: datetime | None = None
    reminded: bool = False
    # Debate before the vote (debate.py): while ``debate_until`` is set the proposal is in
    # debate and takes no ballots; the text as distributed is kept once it is revised; and
    # each argument forwarded, (player, when), for the players' daily limits. All immutable,
    # so the copy below may share them.
    debate_until: datetime | None = None
    first_text: str | None = None
    first_clauses: tuple[Clause, ...] | None = None
    debated: tuple[tuple[str, datetime], ...] = ()
    revisions: int = 0  # how often its proposer revised it ([limits] revise_per_proposal)
    unclear: tuple[str, ...] = ()  # lines left to the host when it was proposed

    @property
    def in_debate(self) -> bool:
        """Tell whether the proposal is being debated: distributed, its vote not begun."""
        return self.debate_until is not None and self.status is ProposalStatus.OPEN

    def __deepcopy__(self, memo: dict[int, Any]) -> Proposal:
        # A closed proposal never changes again, so every later state may share it; this
        # keeps apply's copy of the state from growing with the game's history.
        if self.status is not ProposalStatus.OPEN:
            return self
        copied = object.__new__(Proposal)
        copied.__dict__.update(self.__dict__)
        copied.ballots = dict(self.ballots)
        return copied


@dataclass
class Cfj:
    """A call for judgement."""

    number: int
    statement: str
    arguments: str
    caller: str
    called_at: datetime
    paradox: bool
    turn: int | None
    mover: str | None  # whose turn it was when judgement was invoked
    judges: list[str] = field(default_factory=list)  # every Judge so far, the current one last
    deadline: datetime | None = None
    assigned_at: datetime | None = None  # when the current Judge was selected
    judgement: Judgement | None = None
    reasons: str = ""
    judged_at: datetime | None = None
    overrule_open: bool = False
    overrulers: list[str] = field(default_factory=list)
    reminded: bool = False

    @property
    def judge(self) -> str | None:
        """Return the current Judge, if any."""
        return self.judges[-1] if self.judges else None


@dataclass
class Turn:
    """The current turn in the turn-based presets."""

    number: int
    mover: str
    proposal: int | None = None  # set when the turn begins with its proposal
    consenters: list[str] = field(default_factory=list)  # agreed to begin despite a CFJ
    # The pace of play (pace.py): when the mover's time began, how far pauses moved it on,
    # and whether the mover was reminded and everyone told that the turn is overdue.
    began_at: datetime | None = None
    moved_by: timedelta = timedelta(0)
    reminded: bool = False
    overdue_told: bool = False


@dataclass(frozen=True)
class Absence:
    """A player's declared absence (absence.py): until when, and why."""

    until: datetime
    reason: str
    by_speaker: bool = False


@dataclass(frozen=True)
class HandItem:
    """An open item of the host's hand work: words an adopted proposal left undone."""

    item: int
    proposal: int
    words: str
    rules: tuple[int, ...]
    since: datetime


@dataclass
class GameState:
    """Everything the engine knows about one game."""

    started: bool = False
    game_id: str = ""
    preset: str = ""
    title: str = ""
    game_number: int = 1
    mechanics: Mechanics | None = None
    sources: dict[str, int] = field(default_factory=dict)  # mechanic -> the rule it comes from
    phrases: dict[str, str] = field(default_factory=dict)  # mechanic -> where its rule says it
    # mechanic -> who last set it, where no rule gave it: "host", or "proposal N"
    set_by: dict[str, str] = field(default_factory=dict)
    rules: dict[int, Rule] = field(default_factory=dict)
    repealed: list[Rule] = field(default_factory=list)
    players: dict[str, Player] = field(default_factory=dict)  # by address, in joining order
    host: str = ""
    host_name: str = ""
    speaker: str = ""  # the address whose admin commands count
    named_judge: str = ""
    named_judge_name: str = ""
    open_registration: bool = True
    proposals: dict[int, Proposal] = field(default_factory=dict)
    next_proposal: int = 1
    cfjs: dict[int, Cfj] = field(default_factory=dict)
    next_cfj: int = 1
    turn: Turn | None = None
    circuits_completed: int = 0
    adoption_rule_amended: bool = False
    ended: bool = False
    end_reason: str = ""
    winners: list[str] = field(default_factory=list)
    paused_at: datetime | None = None  # while the host has paused the game (pace.py)
    pause_reason: str = ""
    absences: dict[str, Absence] = field(default_factory=dict)  # by player's address
    record_version: int = 1  # how the public record names players (publicity.py)
    public_ids: dict[str, str] = field(default_factory=dict)  # address -> public id
    # The commitment of the seed the game draws with now (draw_events.py), and how many
    # draws it has made since it was committed. Empty in a game recorded before seeds, and
    # once the game's last seed is revealed.
    commitment: str = ""
    seed_draws: int = 0
    # The public record as the events so far make it, across every game of the record: a
    # draw's anchor is the record's to say (draw_events.py), so the engine must know it.
    record: RecordSoFar = field(default_factory=RecordSoFar)
    # The host's open items of hand work (handwork_events.py), by number; and the next's.
    handwork: dict[int, HandItem] = field(default_factory=dict)
    next_handwork: int = 1

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        # Written out, for speed: ``apply`` copies the state for every command, and the
        # generic deepcopy walked every field of everything. The mechanics and every frozen
        # record are immutable and shared; each container is new.
        copied = object.__new__(GameState)
        copied.__dict__.update(self.__dict__)
        memo[id(self)] = copied
        copied.sources = dict(self.sources)
        copied.phrases = dict(self.phrases)
        copied.set_by = dict(self.set_by)
        copied.rules = {number: rule.__deepcopy__(memo) for number, rule in self.rules.items()}
        copied.repealed = [rule.__deepcopy__(memo) for rule in self.repealed]
        copied.players = {address: player.__deepcopy__(memo)
                          for address, player in self.players.items()}
        copied.proposals = {number: proposal.__deepcopy__(memo)
                            for number, proposal in self.proposals.items()}
        copied.cfjs = copy.deepcopy(self.cfjs, memo)
        copied.turn = copy.deepcopy(self.turn, memo)
        copied.winners = list(self.winners)
        copied.absences = dict(self.absences)
        copied.public_ids = dict(self.public_ids)
        copied.handwork = dict(self.handwork)
        return copied

    @property
    def rules_mechanics(self) -> Mechanics:
        """Return the mechanics, which exist once the game has started."""
        if self.mechanics is None:
            raise RuntimeError("the game has not started")
        return self.mechanics

    def active_players(self) -> list[Player]:
        """Return the players still in the game, in joining (turn) order."""
        return [player for player in self.players.values() if player.active]

    def scoreboard(self) -> list[Player]:
        """Return the players still in the game, best score first, then by name (any case)."""
        return sorted(self.active_players(), key=lambda p: (-p.score, p.name.lower()))

    def voters(self) -> list[str]:
        """Return the addresses of everyone who may vote now, in joining order."""
        return [p.address for p in self.active_players() if p.role is not Role.SPEAKER]

    def find_player(self, reference: str) -> Player | None:
        """Find an active player by address (as addresses are compared) or display name.

        A name's case does not matter; an address is compared in its canonical form only
        (:mod:`speakerbot.addresses`), never lower-cased.
        """
        wanted = reference.strip()
        address = canonical_address(wanted)
        for player in self.active_players():
            if player.address == address or player.name.lower() == wanted.lower():
                return player
        return None

    def public_id(self, address: str) -> str:
        """Return how the public record names an address (itself in a game of version 1)."""
        if self.record_version < 2:
            return address
        return self.public_ids.get(address, address if "@" not in address else WITHHELD)

    def name_of(self, address: str) -> str:
        """Return a display name for an address (the address itself if unknown)."""
        player = self.players.get(address)
        if player is not None:
            return player.name
        if address == self.host:
            return self.host_name
        if address == self.named_judge:
            return self.named_judge_name
        return address

    def open_proposals(self) -> list[Proposal]:
        """Return the proposals whose votes are open, by number."""
        return [p for p in self.proposals.values() if p.status is ProposalStatus.OPEN]

    def open_cfjs(self) -> list[Cfj]:
        """Return the CFJs awaiting a judgement, by number."""
        return [c for c in self.cfjs.values() if c.judgement is None]

    def mutable_rule_count(self) -> int:
        """Count the mutable rules in effect."""
        return sum(1 for rule in self.rules.values() if rule.mutable)
