"""Commands: what players and the Speaker ask the engine to do. Plain typed data.

Every command names its ``actor``, the address it came from. Commands whose class name starts
with nothing special are players' moves; the ``SPEAKER_COMMANDS`` are the human Speaker's
overrides, accepted only from the current Speaker and announced to everyone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from speakerbot.engine.model import Choice, Clause, Judgement, RuleSpec


@dataclass(frozen=True)
class Preset:
    """An initial ruleset with its mechanics: what a game starts from."""

    name: str
    title: str
    rules: tuple[RuleSpec, ...]
    mechanics: dict[str, str]  # every mechanic, written as SET reads it
    sources: dict[str, int]  # mechanic -> the rule it comes from
    persons: dict[str, tuple[int, str]]  # "speaker"/"judge" -> (rule, name as the seed has it)
    notes: str = ""
    # mechanic -> where its value is written in its source rule (readings.py): read again
    # when an adopted change rewrites that rule.
    phrases: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Command:
    """A request to the engine from an address."""

    actor: str


@dataclass(frozen=True)
class StartGame(Command):
    """Start a game from a preset; ``actor`` is the human Speaker (host)."""

    preset: Preset
    host_name: str
    named_judge: str = ""  # address of the named Judge (rurru); defaults to the host
    named_judge_name: str = ""
    mechanics: dict[str, str] = field(default_factory=dict)  # overrides, written values
    open_registration: bool = True
    game_id: str = ""  # unique to this game (the caller draws it), so its mail is told apart
    # Players in the game from its start (address, name): a game after another keeps them.
    players: tuple[tuple[str, str], ...] = ()
    # The public record's version (publicity.py): the service starts every game at the
    # latest; 1, the default, is a game recorded as before public ids.
    record_version: int = 1
    # The commitment of the game's first seed (luck.py): the caller draws the seed and
    # keeps it. Empty: the game's draws are not provable (a scripted game in tests).
    commitment: str = ""


@dataclass(frozen=True)
class ImportedPlayer:
    """A player of a hand-run game, as its snapshot gives them."""

    address: str
    name: str
    score: Decimal


@dataclass(frozen=True)
class ImportedProposal:
    """A proposal open in a hand-run game: it goes on to its vote, its ballots empty.

    ``proposal``: as its proposer would have sent it (``actor``: the proposer).
    """

    number: int
    proposal: Propose
    closes_at: datetime | None


@dataclass(frozen=True)
class ImportGame(Command):
    """Start a game where a hand-run one stands (``speakerbot import``).

    ``start`` says what a new game would: the host, the game id, and the ruleset, whose
    rules are the imported game's rules as they are now. The players come in turn order;
    ``mover`` is whose turn it is in a turn-based ruleset (the first player when empty).
    """

    start: StartGame
    source: str  # where the game was played before, as the host names it
    title: str  # the game's name
    next_proposal: int
    players: tuple[ImportedPlayer, ...]
    mover: str = ""
    proposals: tuple[ImportedProposal, ...] = ()


@dataclass(frozen=True)
class Join(Command):
    """Join the game under a display name (where registration is open)."""

    name: str


@dataclass(frozen=True)
class Forfeit(Command):
    """Leave the game (000 113)."""


@dataclass(frozen=True)
class Propose(Command):
    """Submit a proposal, with optional structured clauses."""

    title: str
    text: str
    clauses: tuple[Clause, ...] = ()
    # Lines the reader could not carry out: the host's hand work if it is adopted.
    unclear: tuple[str, ...] = ()


@dataclass(frozen=True)
class CastBallot(Command):
    """Vote on a proposal; ABSTAIN withdraws an earlier ballot.

    ``salt`` (32 hex digits, drawn afresh by the caller for every ballot) makes the
    ballot's receipt; empty, the ballot has none (see receipts.py).
    """

    proposal: int
    choice: Choice
    salt: str = ""


@dataclass(frozen=True)
class DeclareConsent(Command):
    """The Speaker consents to (or refuses) a proposal (nomicam 208)."""

    proposal: int
    consent: bool


@dataclass(frozen=True)
class CallForJudgement(Command):
    """Invoke judgement on a statement; a paradox CFJ judged TRUE ends the game."""

    statement: str
    arguments: str = ""
    paradox: bool = False


@dataclass(frozen=True)
class DeliverJudgement(Command):
    """The Judge delivers a judgement with optional reasons."""

    cfj: int
    judgement: Judgement
    reasons: str = ""


@dataclass(frozen=True)
class Overrule(Command):
    """Vote to overrule a judgement (suber 212)."""

    cfj: int


@dataclass(frozen=True)
class AgreeToNextTurn(Command):
    """Agree that the next turn may begin although a CFJ is undecided (suber 212)."""


@dataclass(frozen=True)
class DeclareAbsence(Command):
    """Say one will be away until ``until`` (``longest``: the longest absence allowed).

    ``longest`` comes from the settings (``[limits] max_absence``); None allows any length.
    """

    until: datetime
    reason: str = ""
    longest: timedelta | None = None


@dataclass(frozen=True)
class EndAbsence(Command):
    """Say one is back before the declared date."""


@dataclass(frozen=True)
class ReviseProposal(Command):
    """The proposer replaces a proposal in debate with its whole new text (suber 111)."""

    proposal: int
    text: str
    clauses: tuple[Clause, ...] = ()
    unclear: tuple[str, ...] = ()  # as a Propose's: the host's hand work if adopted


@dataclass(frozen=True)
class CallVote(Command):
    """The proposer ends a proposal's debate: its vote starts now."""

    proposal: int


@dataclass(frozen=True)
class DebateProposal(Command):
    """A player argues about a proposal in debate; the argument goes to every player."""

    proposal: int
    text: str


# --- The Speaker's overrides ---------------------------------------------------------------


@dataclass(frozen=True)
class AddPlayer(Command):
    """Register a player (the order of registration is the turn order)."""

    address: str
    name: str


@dataclass(frozen=True)
class RemovePlayer(Command):
    """Remove a player from the game."""

    player: str
    reason: str = ""


@dataclass(frozen=True)
class AdjustScore(Command):
    """Change a player's score, with a reason."""

    player: str
    delta: Decimal
    reason: str = ""


@dataclass(frozen=True)
class SetMechanic(Command):
    """Set a mechanic directly."""

    name: str
    value: str


@dataclass(frozen=True)
class ExtendVote(Command):
    """Move a vote's deadline later."""

    proposal: int
    by: timedelta


@dataclass(frozen=True)
class CloseVote(Command):
    """Close a vote now."""

    proposal: int


@dataclass(frozen=True)
class VoidProposal(Command):
    """Void a proposal: it keeps its number and counts for nothing."""

    proposal: int
    reason: str = ""


@dataclass(frozen=True)
class EditRule(Command):
    """Enact, amend, repeal or transmute a rule directly."""

    clause: Clause


@dataclass(frozen=True)
class CloseHandWork(Command):
    """Close an open item of the host's hand work: it is done, or not to be done."""

    item: int
    reason: str = ""


@dataclass(frozen=True)
class AssignJudge(Command):
    """Make a player the Judge of a CFJ."""

    cfj: int
    player: str


@dataclass(frozen=True)
class HandSpeaker(Command):
    """Hand the Speaker role to another player."""

    player: str


@dataclass(frozen=True)
class EndGame(Command):
    """End the game."""

    reason: str = ""


@dataclass(frozen=True)
class RevealSeed(Command):
    """Reveal the seed the game draws with now, and commit the next (ADMIN REVEAL)."""


@dataclass(frozen=True)
class PauseGame(Command):
    """Pause the game: no vote closes, no deadline runs, no reminder goes out."""

    reason: str = ""


@dataclass(frozen=True)
class ResumeGame(Command):
    """Resume a paused game; every running deadline moves on by the time it was paused."""


@dataclass(frozen=True)
class SetAbsence(Command):
    """Declare a player absent until ``until`` (any length: the host decides)."""

    player: str
    until: datetime
    reason: str = ""


@dataclass(frozen=True)
class SkipTurn(Command):
    """Pass the turn of a mover who has not proposed to the next player."""


SPEAKER_COMMANDS: tuple[type[Command], ...] = (
    AddPlayer,
    RemovePlayer,
    AdjustScore,
    SetMechanic,
    ExtendVote,
    CloseVote,
    VoidProposal,
    EditRule,
    CloseHandWork,
    AssignJudge,
    HandSpeaker,
    EndGame,
    RevealSeed,
    PauseGame,
    ResumeGame,
    SetAbsence,
    SkipTurn,
)
"""The overrides: accepted only from the current Speaker, recorded and announced."""
