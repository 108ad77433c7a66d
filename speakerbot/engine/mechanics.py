"""The mechanics a ruleset sets: one typed record, filled in by each preset, changed by SET clauses.

Every mechanic has a row in ``PARAMETERS``: its name, how its value is written and read,
its range, and whether a proposal (``SET name = value``) or the Speaker may change it.
The same table validates preset files, SET clauses, admin overrides and config overrides.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from fractions import Fraction
from typing import Any

from speakerbot.engine.durations import format_duration, parse_duration


class Flow(StrEnum):
    """How proposals come: one per turn in a fixed order, or from anyone at any time."""

    TURNS = "turns"
    OPEN = "open"


class Adoption(StrEnum):
    """What an ordinary proposal needs to be adopted."""

    UNANIMOUS = "unanimous"
    MAJORITY = "majority"


class Numbering(StrEnum):
    """The number a rule enacted by proposal takes."""

    PROPOSAL = "proposal"  # the proposal's own: one new rule per proposal (suber 108)
    NEXT = "next"  # one more than the highest rule number ever used, as Agora numbers them


class CountBasis(StrEnum):
    """What a vote threshold is counted against."""

    ELIGIBLE = "eligible"  # every eligible voter; a missing ballot is not FOR
    CAST = "cast"  # the ballots legally cast; a missing ballot is an abstention


class TurnAward(StrEnum):
    """The second part of a turn in the turn-based presets."""

    NONE = "none"
    DIE = "die"
    HEAVENS = "heavens"


class JudgePolicy(StrEnum):
    """Who judges a call for judgement."""

    PRECEDING = "preceding"  # the player preceding the mover (suber 212)
    NAMED = "named"  # one named Judge judges everything (rurru 210)
    SPEAKER = "speaker"  # the game's human host
    RANDOM = "random"  # the Speaker first, then random Voters (nomicam 214)


class OnWin(StrEnum):
    """What a win does to the game."""

    END = "end"
    NEW_GAME = "new-game"


class Debate(StrEnum):
    """What comes between a proposal's distribution and its vote."""

    NONE = "none"  # the vote starts at once
    PROPONENT = "proponent"  # the proposer revises it and calls the vote (suber 111, rurru 109)
    PERIOD = "period"  # the vote starts once the debate period is over (locked-open 111)


class TransmuteUnanimity(StrEnum):
    """Which transmutations need a unanimous vote."""

    NONE = "none"
    TO_MUTABLE = "to-mutable"
    TO_IMMUTABLE = "to-immutable"
    BOTH = "both"


class ParadoxWinner(StrEnum):
    """Who wins when a paradox CFJ is judged TRUE."""

    MOVER = "mover"  # the first player unable to complete a turn (000 213, 001 210, 003 215)
    CALLER = "caller"  # the player who invoked judgement (004 219)


@dataclass(frozen=True)
class Mechanics:
    """Every mechanic the engine enforces, as one immutable record."""

    # Structure of play (not settable: a running game cannot change its shape).
    flow: Flow
    speaker_role: bool  # the Speaker is a player who may propose but neither vote nor win
    first_proposal_number: int
    # Numbering and rule changes.
    renumber_on_amend: bool  # an amended or transmuted rule takes the proposal's number
    numbering: Numbering  # the number an enacted rule takes (clauses.py: enacted_number)
    max_mutable_rules: int | None
    immutability: bool  # False where the ruleset knows no immutable rules (rurru)
    # Voting.
    voting_period: timedelta | None
    close_when_all_voted: bool
    adoption: Adoption
    count_basis: CountBasis
    majority_after_circuits: int | None  # locked-open 203: unanimity turns to majority
    quorum_percent: int
    speaker_consent: bool
    refused_consent_threshold: Fraction
    transmute_unanimity: TransmuteUnanimity
    transmute_basis: CountBasis
    # Scoring.
    turn_award: TurnAward
    die_sides: int
    heavens_offset: int
    proposer_adopted_points: int
    proposer_rejected_points: int  # lost by the proposer of a defeated proposal
    dissent_points: int  # gained by each player who voted against an adopted proposal
    dissent_needs_majority_rule: bool  # dissent points only once unanimity is not required
    for_rejected_points: int  # gained by each Voter who voted for a rejected proposal
    # Winning.
    win_points: int
    on_win: OnWin
    new_game_score_percent: int
    paradox_winner: ParadoxWinner
    # Judgement.
    judge_policy: JudgePolicy
    judge_period: timedelta | None
    judge_penalty: int
    overrule: bool  # a unanimous vote of the other players overrules a judgement (suber 212)
    cfj_blocks_turn: bool  # an undecided CFJ holds back the next turn (suber 212, rurru 211)
    turn_consent_overrides_cfj: bool  # ...unless a majority of the other players agree (suber)
    # Reminders.
    reminder_before: timedelta | None
    # The pace of play: how long the mover has to propose before everyone is told (pace.py).
    turn_period: timedelta | None
    # Debate before the vote (debate.py): who ends it, how long it lasts at most, and
    # whether the players vote in their usual turn order (locked-open 203).
    debate: Debate
    debate_period: timedelta
    vote_in_turn_order: bool

    def __deepcopy__(self, memo: dict[int, Any]) -> Mechanics:
        return self  # frozen: states may share it

    def with_value(self, name: str, value: Any) -> Mechanics:
        """Return a copy with one mechanic changed (the value must already be validated)."""
        return dataclasses.replace(self, **{name: value})

    def formatted(self, name: str) -> str:
        """Return one mechanic's value written as SET would read it."""
        return PARAMETERS[name].format(getattr(self, name))

    def as_strings(self) -> dict[str, str]:
        """Return every mechanic written as SET would read it."""
        return {name: self.formatted(name) for name in PARAMETERS}

    @classmethod
    def from_strings(cls, values: Mapping[str, object], *,
                     recorded: bool = False) -> Mechanics:
        """Build mechanics from written values (a preset file); every mechanic must be given.

        ``recorded``: the values come from a game's record, where a game started before a
        mechanic existed does not name it; it then has the value that keeps the game's old
        meaning (:data:`ADDED_LATER`). A preset file must name every mechanic.
        """
        if recorded:
            values = {**ADDED_LATER, **values}
        missing = sorted(set(PARAMETERS) - set(values))
        unknown = sorted(set(values) - set(PARAMETERS))
        if missing or unknown:
            raise ValueError(f"mechanics: missing {missing}, unknown {unknown}")
        parsed = {name: PARAMETERS[name].parse(_written(raw)) for name, raw in values.items()}
        return cls(**parsed)


def _written(raw: object) -> str:
    if isinstance(raw, bool):
        return "true" if raw else "false"
    return str(raw)


@dataclass(frozen=True)
class Parameter:
    """One mechanic: how it is written, read and described, and who may change it."""

    name: str
    description: str
    parse_value: Callable[[str], Any]
    format_value: Callable[[Any], str] = str
    settable: bool = True
    optional: bool = False  # "none" is a value

    def parse(self, text: str) -> Any:
        """Read a written value; raise ValueError saying what is accepted."""
        cleaned = text.strip()
        if self.optional and cleaned.lower() in ("none", "off", "never"):
            return None
        try:
            return self.parse_value(cleaned)
        except ValueError as error:
            extra = " (or none)" if self.optional else ""
            raise ValueError(f"{self.name}: {error}{extra}") from None

    def as_set(self, text: str) -> str:
        """Return a written value as SET writes it (``7 days`` is ``7d``); ValueError if bad.

        So that two written values are compared by what they mean, not by how they are written.
        """
        return self.format(self.parse(text))

    def format(self, value: Any) -> str:
        """Write a value the way parse reads it."""
        if value is None:
            return "none"
        return self.format_value(value)


def _integer(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text.lstrip("+"))
        except ValueError:
            wanted = f"expected a whole number from {low} to {high}"
            raise ValueError(f"{wanted}, not {text!r}") from None
        if not low <= value <= high:
            raise ValueError(f"expected a whole number from {low} to {high}, not {value}")
        return value

    return parse


def _duration(low: timedelta, high: timedelta) -> Callable[[str], timedelta]:
    def parse(text: str) -> timedelta:
        value = parse_duration(text)
        if not low <= value <= high:
            raise ValueError(
                f"expected a duration from {format_duration(low)} to {format_duration(high)}"
            )
        return value

    return parse


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, not {text!r}")


def _fraction(text: str) -> Fraction:
    try:
        value = Fraction(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"expected a fraction such as 2/3 or 67%, not {text!r}") from None
    if not Fraction(1, 2) <= value <= 1:
        raise ValueError("expected a fraction from 1/2 to 1")
    return value


def _choice(enum: type[StrEnum]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return enum(text.lower())
        except ValueError:
            allowed = ", ".join(member.value for member in enum)
            raise ValueError(f"expected one of {allowed}, not {text!r}") from None

    return parse


def _fmt_fraction(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


_SECOND = timedelta(seconds=1)
_YEAR = timedelta(days=365)

_ROWS = [
    Parameter("flow", "turns in a fixed order, or open proposals from anyone",
              _choice(Flow), settable=False),
    Parameter("speaker_role", "the Speaker is a player who may propose but not vote or win",
              _boolean, settable=False),
    Parameter("first_proposal_number", "the number of the first proposal",
              _integer(1, 100000), settable=False),
    Parameter("renumber_on_amend", "an amended or transmuted rule takes the proposal's number",
              _boolean),
    Parameter("numbering", "the number a new rule takes: the proposal's, or the next free one",
              _choice(Numbering)),
    Parameter("max_mutable_rules", "the most mutable rules there may be",
              _integer(1, 10000), optional=True),
    Parameter("immutability", "the ruleset has immutable rules at all",
              _boolean, settable=False),
    Parameter("voting_period", "how long a vote stays open after distribution",
              _duration(_SECOND, _YEAR), format_duration, optional=True),
    Parameter("close_when_all_voted", "a vote closes as soon as every eligible voter has voted",
              _boolean),
    Parameter("adoption", "unanimous or majority adoption of ordinary proposals",
              _choice(Adoption)),
    Parameter("count_basis", "thresholds count eligible voters or ballots cast",
              _choice(CountBasis)),
    Parameter("majority_after_circuits", "unanimity becomes majority after this many circuits",
              _integer(1, 1000), optional=True),
    Parameter("quorum_percent", "the share of Voters (at the start of the period) who must vote",
              _integer(0, 100)),
    Parameter("speaker_consent", "the Speaker may refuse consent, raising the threshold",
              _boolean),
    Parameter("refused_consent_threshold", "the share of ballots needed without consent",
              _fraction, _fmt_fraction),
    Parameter("transmute_unanimity", "which transmutations need a unanimous vote",
              _choice(TransmuteUnanimity)),
    Parameter("transmute_basis", "unanimity for transmutation among eligible voters or cast",
              _choice(CountBasis)),
    Parameter("turn_award", "the second part of a turn: none, die or heavens",
              _choice(TurnAward)),
    Parameter("die_sides", "the faces of the die", _integer(2, 1000)),
    Parameter("heavens_offset", "Heavens are (proposal number - this) x the favourable share",
              _integer(-100000, 100000)),
    Parameter("proposer_adopted_points", "points to a proposer whose proposal is adopted",
              _integer(0, 100000)),
    Parameter("proposer_rejected_points", "points lost by a proposer whose proposal is defeated",
              _integer(0, 100000)),
    Parameter("dissent_points", "points to each voter against an adopted proposal",
              _integer(0, 100000)),
    Parameter("dissent_needs_majority_rule", "dissent points only once unanimity is not required",
              _boolean),
    Parameter("for_rejected_points", "points to each voter for a rejected proposal",
              _integer(0, 100000)),
    Parameter("win_points", "the score that wins", _integer(1, 10_000_000)),
    Parameter("on_win", "what a win does: end the game or start a new one",
              _choice(OnWin)),
    Parameter("new_game_score_percent", "the share of each score kept into a new game",
              _integer(0, 100)),
    Parameter("paradox_winner", "who wins on a paradox judged TRUE: the mover or the caller",
              _choice(ParadoxWinner)),
    Parameter("judge_policy", "who judges: preceding, named, speaker or random",
              _choice(JudgePolicy)),
    Parameter("judge_period", "how long a Judge has to deliver a judgement",
              _duration(_SECOND, _YEAR), format_duration, optional=True),
    Parameter("judge_penalty", "points lost by a Judge who misses the deadline",
              _integer(0, 100000)),
    Parameter("overrule", "a unanimous vote of the other players overrules a judgement",
              _boolean),
    Parameter("cfj_blocks_turn", "an undecided CFJ holds back the next turn", _boolean),
    Parameter("turn_consent_overrides_cfj", "a majority of the other players may let it begin",
              _boolean),
    Parameter("reminder_before", "how long before a deadline reminders go out",
              _duration(_SECOND, _YEAR), format_duration, optional=True),
    Parameter("turn_period", "how long the mover has to propose before everyone is told",
              _duration(_SECOND, _YEAR), format_duration, optional=True),
    Parameter("debate", "debate before the vote: none, proponent (who revises and calls the "
              "vote) or period", _choice(Debate)),
    Parameter("debate_period", "how long a debate lasts at most before the vote starts",
              _duration(_SECOND, _YEAR), format_duration),
    Parameter("vote_in_turn_order", "the players vote in their usual turn order",
              _boolean),
]

PARAMETERS: dict[str, Parameter] = {row.name: row for row in _ROWS}

ADDED_LATER: dict[str, str] = {
    "turn_period": "none",
    "debate": "none",
    "debate_period": "2d",
    "vote_in_turn_order": "false",
    "numbering": "proposal",
}
"""Mechanics added after games were first recorded, with the written value each has in a
game whose record does not name it: the value under which that game was played (a pause,
a debate or a turn's deadline it never had must not appear when its record is replayed)."""
"""Every mechanic by name, in the order of the Mechanics record."""

assert list(PARAMETERS) == [field.name for field in dataclasses.fields(Mechanics)]


def parse_setting(name: str, text: str) -> tuple[str, Any]:
    """Validate ``SET name = text`` for a settable mechanic; return the name and the typed value.

    Raises ValueError with a message a player can act on.
    """
    key = name.strip().lower().replace("-", "_")
    parameter = PARAMETERS.get(key)
    if parameter is None:
        settable = sorted(p.name for p in _ROWS if p.settable)
        # The nearest name alone when there is one (quorum: quorum_percent); the whole list,
        # long as it is, only when nothing is near.
        near = difflib.get_close_matches(key, settable, n=1)
        if near:
            raise ValueError(f"there is no mechanic called {name!r}; did you mean {near[0]}?")
        raise ValueError(f"there is no mechanic called {name!r}; the settable ones are: "
                         f"{', '.join(settable)}")
    if not parameter.settable:
        raise ValueError(f"{key} is the shape of the game and cannot be set while it runs")
    return key, parameter.parse(text)
