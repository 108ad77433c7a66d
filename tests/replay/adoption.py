"""A proposal read as the daemon reads it, and carried out as the engine adopts it.

The reader is the mail language's :func:`~speakerbot.mail.inbound.language.parse_commands`,
given the body a player would send (``PROPOSE <title>``, the text, ``END PROPOSE``) and, as
the service gives it when it applies a proposal, the title of each rule in effect just
before it (so that a rule named by its title alone is found); the clauses it reads are the
engine's own (``translate`` hands them to ``Propose`` unchanged).
The engine's narrowest pure step at adoption is
:func:`~speakerbot.engine.clauses.carry_out`, on a :class:`~speakerbot.engine.play.Play`
over a game state that holds only the rules; at submission it is
:func:`~speakerbot.engine.clauses.check_proposal`. The mechanics are the nomicam preset's:
an amended rule keeps its number, as Agora's do, and no rule is immutable (Agora has powers,
which are left aside). Every rule is mutable. But rules are numbered as Agora numbers them
(``numbering = "next"``): a new rule takes the next free number, so a proposal may enact
several.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache

from speakerbot.engine import events as e
from speakerbot.engine.clauses import carry_out, check_proposal
from speakerbot.engine.luck import NO_RANDOMNESS
from speakerbot.engine.mechanics import Mechanics
from speakerbot.engine.model import Clause, GameState, Proposal, ProposalStatus, Rule
from speakerbot.engine.play import MAX_TEXT, MAX_TITLE, Play
from speakerbot.engine.refusals import GameError, Refusal
from speakerbot.mail.inbound import language as lang
from speakerbot.presets import load_preset
from tests.replay.corpus import AgoraProposal, Corpus

NOW = datetime(2021, 1, 1, tzinfo=UTC)
PRESET = "nomicam"
AGORA = {"numbering": "next"}
"""Where the replay's mechanics differ from the preset's: Agora numbers a new rule by the
next free number, not by its proposal."""

TEXT_REFUSALS = frozenset({
    Refusal.NO_SUCH_RULE, Refusal.AMEND_NO_CHANGE, Refusal.TRANSMUTED_ALREADY,
    Refusal.TEXT_NOT_FOUND, Refusal.TEXT_NOT_UNIQUE, Refusal.ANCHOR_NOT_FOUND,
    Refusal.ANCHOR_NOT_UNIQUE, Refusal.EDIT_NO_CHANGE, Refusal.RULE_LEFT_EMPTY,
    Refusal.UNIT_NOT_FOUND, Refusal.UNIT_NOT_UNIQUE, Refusal.UNIT_AFTER_EDIT,
})
"""Refusals of a clause that depend on the rules as they stand (a text not in the rule, a
rule not in effect). At submission they refuse the proposal, but the replay knows the rules
just before adoption, not at submission: such a clause is counted where adoption puts it,
failed, and its proposal flagged."""


@dataclass(frozen=True)
class Reading:
    """What the reader made of one proposal: its clauses, the lines quoted back, errors.

    ``refused`` is the reader's first error ("" when the proposal is read); ``unclear`` the
    lines that speak of changing a rule in no form understood (quoted back).
    """

    clauses: tuple[Clause, ...]
    unclear: tuple[str, ...]
    refused: str

    @property
    def informal(self) -> bool:
        """Whether the proposal was read with no clause: the host carries it out by hand."""
        return not self.refused and not self.clauses


@dataclass(frozen=True)
class Adoption:
    """The rules before and after the engine carried a proposal's clauses out.

    Each rule is ``(text, title)`` by number; ``failed`` holds each clause recorded as failed
    (``ClauseFailed``) with its refusal.
    """

    before: Mapping[int, tuple[str, str]]
    after: Mapping[int, tuple[str, str]]
    failed: tuple[tuple[Clause, Refusal], ...]

    def enacted(self) -> list[int]:
        """Return the numbers of the rules the adoption brought in, in order."""
        return sorted(set(self.after) - set(self.before))


def message(proposal: AgoraProposal) -> str:
    """Return the body a player would send to propose ``proposal``.

    Two proposals of the record have no title; PROPOSE needs one, so they are given
    ``Proposal N`` (the title is not compared).
    """
    title = " ".join(proposal.title.split()) or f"Proposal {proposal.id}"
    return f"PROPOSE {title}\n{proposal.text.rstrip()}\nEND PROPOSE\n"


def read(proposal: AgoraProposal, state: GameState | None = None) -> Reading:
    """Read one proposal as the daemon reads a message's body, with ``state``'s rules in hand.

    Without a state, as at intake, a rule named by its title alone is quoted back.
    """
    titles = None if state is None else {n: rule.title for n, rule in state.rules.items()}
    result = lang.parse_commands("", message(proposal), titles=titles)
    found = [command for command in result.commands if isinstance(command, lang.Propose)]
    if result.errors or len(found) != 1:
        reason = result.errors[0].reason if result.errors else f"{len(found)} proposals read"
        return Reading((), (), reason)
    propose = found[0]
    return Reading(tuple(propose.clauses), tuple(text for _, text in propose.not_understood), "")


@cache
def agora_mechanics() -> Mechanics:
    """Return the mechanics the replay plays by: the nomicam preset's, numbered as Agora's.

    Agora gives a new rule the next free number, so its proposals enact several rules at
    once: ``numbering = "next"``, where the preset numbers a rule by its proposal.
    """
    return Mechanics.from_strings({**load_preset(PRESET).mechanics, **AGORA})


def rules_before(corpus: Corpus, proposal: AgoraProposal) -> dict[int, int]:
    """Return the version of each rule in force just before ``proposal``, by number.

    The proposal's ``ruleset``, but where a change's ``before`` is a text in effect that the
    ruleset does not give (rule 2557's entry in the ruleset stays at one old text for a
    year), the change's ``before``: what the record says the proposal changed.
    """
    versions = dict(proposal.ruleset)
    for change in proposal.changes:
        if change.before is not None and corpus.versions[change.before].in_effect:
            versions[change.rule] = change.before
    return versions


def agora_state(corpus: Corpus, proposal: AgoraProposal) -> GameState:
    """Return a started game whose rules are those in force just before ``proposal``.

    Its proposals are the adopted ones of the record before it (by number and title, for a
    condition on another proposal's fate to be settled): the record holds no other, so a
    condition on one it does not hold is left to the host, as the game leaves one on a
    proposal it does not know.
    """
    rules: dict[int, Rule] = {}
    for number, key in rules_before(corpus, proposal).items():
        version = corpus.versions[key]
        rules[number] = Rule(number, version.text, True, title=version.title)
    return GameState(started=True, mechanics=agora_mechanics(), rules=rules,
                     proposals=_adopted_before(corpus, proposal.number))


def _adopted_before(corpus: Corpus, number: int) -> dict[int, Proposal]:
    """Return the record's adopted proposals numbered below ``number``, as the game holds them."""
    return {earlier.number: Proposal(earlier.number, earlier.title, "", (), "", NOW, None, 0,
                                     None, status=ProposalStatus.ADOPTED)
            for earlier in corpus.proposals if earlier.number < number}


def _texts(state: GameState) -> dict[int, tuple[str, str]]:
    return {number: (rule.text, rule.title) for number, rule in state.rules.items()}


def adopt(state: GameState, number: int, clauses: Sequence[Clause]) -> Adoption:
    """Carry out ``clauses`` of proposal ``number`` on ``state`` (changed in place)."""
    before = _texts(state)
    play = Play(state, NOW, NO_RANDOMNESS)
    carry_out(play, number, clauses)
    failed = tuple((event.clause, event.refusal) for event in play.events
                   if isinstance(event, e.ClauseFailed))
    return Adoption(before, _texts(state), failed)


def submission_refusal(state: GameState, proposal: AgoraProposal,
                       clauses: Sequence[Clause],
                       failed: Sequence[tuple[Clause, Refusal]]) -> str:
    """Say why the engine would refuse the proposal at submission as a whole ("" if not).

    The engine's own checks of ``propose`` (title, text) and ``check_proposal``, on the
    rules before the proposal, leaving out the clauses that failed at adoption for the rules'
    texts (:data:`TEXT_REFUSALS`): what is left is refused for the proposal's own shape (two
    rules enacted under one number, one rule changed twice). ``state`` is not changed.
    """
    title = " ".join(proposal.title.split()) or f"Proposal {proposal.id}"
    if len(title) > MAX_TITLE:
        return Refusal.BAD_TITLE.value
    if len(proposal.text) > MAX_TEXT:
        return Refusal.TEXT_TOO_LONG.value
    gone = [clause for clause, refusal in failed if refusal in TEXT_REFUSALS]
    kept = [clause for clause in clauses if not any(clause is one for one in gone)]
    try:
        check_proposal(Play(copy.deepcopy(state), NOW, NO_RANDOMNESS), kept, proposal.number)
    except GameError as error:
        if error.refusal not in TEXT_REFUSALS:
            return error.refusal.value
    return ""
