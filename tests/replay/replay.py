"""A replay of Agora's adopted proposals: read as the daemon reads them, carried out by the engine.

Each proposal of ``data/agora-replay-dev.jsonl.gz`` (434 adopted proposals of Agora Nomic,
8188-8939; the data's README cites the sources) is read by the mail language as a PROPOSE
block (:mod:`tests.replay.adoption`), its clauses carried out by the engine's
``carry_out`` on the rules in force just before it, and each rule the record says it
changed is compared with the rule's text just after it.

What is compared
    The text the engine made with the record's ``after`` text, white space aside (every
    run of white space, line breaks included, is one space; the ends are stripped). Where it
    differs, ``after_commit`` (the text as it settled, after silent fixes) is tried too; a
    match there is exact, flagged ``as settled``. A repeal is exact when the engine repealed
    the rule. A rule's title is compared only where the record says it was retitled. An
    enacted rule is matched to the record's enactment whatever its number: the engine numbers
    it as Agora does, by the next free number (``numbering = "next"``), but the replay's
    state knows only the rules in force, not every number Agora ever used, so a few differ
    from Agora's (4 of 49 when numbering came); its title is not compared.

What is left aside
    Changes the data marks ``batched`` (another change applied to the same rule in the same
    commit) or ``reverted`` (it failed), and changes of a rule's power alone (Agora's own
    mechanic). They are not counted, and the rules they touch are never "changes the record
    does not show".

Each counted change has one :class:`Outcome`: exact; wrong (a text made that differs);
silently unchanged (read, nothing left to the host for the rule, no clause failed, yet not
changed); left to the host (the proposal was read with no clause, so the host carries it out
by hand, or a line naming the rule, or no rule at all, was quoted back); failed (a clause for
the rule failed at adoption, e.g. its text to replace not found: the engine records
``ClauseFailed`` for the Speaker); refused (the reader refused the proposal, or the engine's
check at submission refused it as a whole; see :func:`~tests.replay.adoption.submission_refusal`).
A rule the engine changed that the record does not show changed is listed as an extra change.

``python -m tests.replay.replay`` prints the figures; ``--list OUTCOME`` (exact, wrong,
silent, host, failed, refused, or extra) lists the changes of one outcome with a short diff.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from speakerbot.engine.model import ClauseKind
from tests.replay.adoption import (
    TEXT_REFUSALS,
    Adoption,
    Reading,
    adopt,
    agora_state,
    read,
    submission_refusal,
)
from tests.replay.corpus import AgoraProposal, Corpus, RecordedChange, Version, load


class Outcome(StrEnum):
    """What became of one rule change the record shows."""

    EXACT = "exact"
    WRONG = "wrong"
    SILENT = "silent"
    HOST = "host"
    FAILED = "failed"
    REFUSED = "refused"


LABELS = {
    Outcome.EXACT: "exact",
    Outcome.WRONG: "wrong",
    Outcome.SILENT: "silently unchanged",
    Outcome.HOST: "left to the host",
    Outcome.FAILED: "failed",
    Outcome.REFUSED: "refused",
}

Made = tuple[str, str] | None
"""A rule as the engine left it, ``(text, title)``; None where it is not in effect."""


@dataclass(frozen=True)
class ChangeOutcome:
    """The outcome of one counted change: its rule, kinds, outcome and why.

    ``made`` is the rule as the engine left it (None: repealed, or no rule enacted);
    ``before`` as it stood; ``flags`` say more (``as settled``, ``informal``, ``quoted
    back``, ``partly made``, ``refused at submission``...); ``detail`` the refusal of a
    failed clause, or the reason a proposal was refused.
    """

    proposal: str
    rule: int
    types: tuple[str, ...]
    outcome: Outcome
    made: Made
    before: Made
    wanted: Version
    flags: tuple[str, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class ProposalOutcome:
    """One proposal replayed: how it was read, its counted changes, and extra changes.

    ``refusal``: why it was refused outright ("" if it was not); ``refused_for_text``: a
    clause failed at adoption for the rule's text, which the same check at submission, on
    the same rules, would have refused the whole proposal for.
    """

    proposal: AgoraProposal
    reading: Reading
    refusal: str
    changes: tuple[ChangeOutcome, ...]
    extra: tuple[str, ...]
    refused_for_text: bool = False


def normal(text: str) -> str:
    """Return ``text`` with white space aside: each run one space, the ends stripped."""
    return " ".join(text.split())


def _matches(made: Made, version: Version, change: RecordedChange) -> bool:
    """Whether the engine's rule is the record's version, white space aside."""
    if change.repeals:
        return made is None
    if made is None or normal(made[0]) != normal(version.text):
        return False
    return not change.retitles or normal(made[1]) == normal(version.title)


_NUMBER = re.compile(r"[0-9]+")
_ENACTING = re.compile(r"\b(?:enact|create|new\s+rule)", re.IGNORECASE)


def _named(line: str, numbers: set[int], titles: Sequence[str]) -> bool:
    """Whether a quoted-back line names one of these rules, by number or by title."""
    if {int(found) for found in _NUMBER.findall(line)} & numbers:
        return True
    lowered = line.lower()
    return any(len(title) > 3 and title.lower() in lowered for title in titles)


def host_reason(change: RecordedChange, reading: Reading, corpus: Corpus,
                proposal: AgoraProposal) -> str:
    """Say why the host would carry ``change`` out by hand ("" when nothing tells them).

    ``informal``: the proposal was read with no clause. ``quoted back``: a line quoted back
    names the rule (number or title); ``quoted back, no rule named``: a line quoted back
    names no rule in effect (or, for an enactment, speaks of enacting).
    """
    if reading.informal:
        return "informal"
    titles = [corpus.versions[key].title for key in proposal.ruleset.values()]
    own = [corpus.versions[change.after].title]
    if change.before is not None:
        own.append(corpus.versions[change.before].title)
    for line in reading.unclear:
        if not change.enacts and _named(line, {change.rule}, own):
            return "quoted back"
    for line in reading.unclear:
        if not _named(line, set(proposal.ruleset), titles) or (
                change.enacts and _ENACTING.search(line)):
            return "quoted back, no rule named"
    return ""


def _failures(change: RecordedChange, adoption: Adoption) -> list[str]:
    """Return the refusals of the clauses for this change that failed at adoption."""
    if change.enacts:
        return [refusal.value for clause, refusal in adoption.failed
                if clause.kind is ClauseKind.ENACT]
    return [refusal.value for clause, refusal in adoption.failed if clause.rule == change.rule]


def classify(change: RecordedChange, made: Made, reading: Reading, adoption: Adoption,
             corpus: Corpus, proposal: AgoraProposal) -> ChangeOutcome:
    """Say what became of one counted change, given the rule the engine left (``made``).

    In this order: exact (the record's text after, else as it settled); failed (a clause
    for the rule failed, whatever the rest made); left to the host (:func:`host_reason`,
    ``partly made`` where clauses changed the rule too); wrong (changed otherwise); else
    silently unchanged.
    """
    wanted = corpus.versions[change.after]
    before = None if change.enacts else adoption.before.get(change.rule)
    touched = made != before

    def outcome(kind: Outcome, *flags: str, detail: str = "") -> ChangeOutcome:
        return ChangeOutcome(proposal.id, change.rule, change.types, kind, made, before,
                             wanted, tuple(flag for flag in flags if flag), detail)

    if _matches(made, wanted, change):
        return outcome(Outcome.EXACT)
    if change.after_commit != change.after and _matches(
            made, corpus.versions[change.after_commit], change):
        return outcome(Outcome.EXACT, "as settled")
    failures = _failures(change, adoption)
    if failures:
        return outcome(Outcome.FAILED, "partly made" if touched else "",
                       detail=", ".join(failures))
    host = host_reason(change, reading, corpus, proposal)
    if host:
        return outcome(Outcome.HOST, host, "partly made" if touched else "")
    if touched:
        return outcome(Outcome.WRONG, "repealed" if made is None else "")
    return outcome(Outcome.SILENT)


def pair_enactments(proposal: AgoraProposal, adoption: Adoption,
                    corpus: Corpus) -> tuple[dict[int, int], list[int]]:
    """Match the rules the engine enacted to the record's enactments.

    Returns, by index of a change in ``proposal.changes``, the number of the enacted rule it
    is matched to (by text, white space aside, else in order), and the enacted rules left over.
    """
    enactments = [index for index, change in enumerate(proposal.changes) if change.enacts]
    left = adoption.enacted()
    paired: dict[int, int] = {}
    for index in enactments:
        change = proposal.changes[index]
        texts = {normal(corpus.versions[key].text) for key in (change.after, change.after_commit)}
        same = [number for number in left if normal(adoption.after[number][0]) in texts]
        if same:
            paired[index] = same[0]
            left.remove(same[0])
    for index in enactments:
        if index not in paired and left:
            paired[index] = left.pop(0)
    return paired, left


def _extra(proposal: AgoraProposal, adoption: Adoption, unpaired: list[int]) -> tuple[str, ...]:
    """Describe the changes the engine made to rules the record shows no change of."""
    recorded = {change.rule for change in proposal.changes}
    extra = [f"rule {number} repealed" for number in adoption.before
             if number not in adoption.after and number not in recorded]
    extra += [f"rule {number} changed" for number, rule in adoption.after.items()
              if number in adoption.before and rule != adoption.before[number]
              and number not in recorded]
    extra += [f"a rule enacted: {normal(adoption.after[number][0])[:60]}" for number in unpaired]
    return tuple(extra)


def _refused(proposal: AgoraProposal, reading: Reading, reason: str,
             corpus: Corpus) -> ProposalOutcome:
    """Return a proposal refused outright: every counted change refused."""
    changes = tuple(
        ChangeOutcome(proposal.id, change.rule, change.types, Outcome.REFUSED, None, None,
                      corpus.versions[change.after], detail=reason)
        for change in proposal.changes if change.counted)
    return ProposalOutcome(proposal, reading, reason, changes, ())


def replay_proposal(proposal: AgoraProposal, corpus: Corpus) -> ProposalOutcome:
    """Read one proposal, carry it out on the rules before it, and classify its changes."""
    state = agora_state(corpus, proposal)
    reading = read(proposal, state)
    if reading.refused:
        return _refused(proposal, reading, reading.refused, corpus)
    checked = agora_state(corpus, proposal)
    adoption = adopt(state, proposal.number, reading.clauses)
    refusal = submission_refusal(checked, proposal, reading.clauses, adoption.failed)
    if refusal:
        return _refused(proposal, reading, refusal, corpus)
    paired, unpaired = pair_enactments(proposal, adoption, corpus)
    outcomes = []
    for index, change in enumerate(proposal.changes):
        if not change.counted:
            continue
        number = paired.get(index) if change.enacts else change.rule
        made = adoption.after.get(number) if number is not None else None
        outcomes.append(classify(change, made, reading, adoption, corpus, proposal))
    text_failed = any(refusal in TEXT_REFUSALS for _, refusal in adoption.failed)
    return ProposalOutcome(proposal, reading, "", tuple(outcomes),
                           _extra(proposal, adoption, unpaired), text_failed)


def replay(corpus: Corpus | None = None) -> list[ProposalOutcome]:
    """Replay every proposal of the corpus (by default the project's test data), in order."""
    corpus = corpus or load()
    return [replay_proposal(proposal, corpus) for proposal in corpus.proposals]


def counts(outcomes: Sequence[ProposalOutcome]) -> dict[Outcome, int]:
    """Count the counted changes by outcome (every outcome present, zero or not)."""
    counted = dict.fromkeys(Outcome, 0)
    for proposal in outcomes:
        for change in proposal.changes:
            counted[change.outcome] += 1
    return counted


def of_outcome(outcomes: Sequence[ProposalOutcome], kind: Outcome) -> list[ChangeOutcome]:
    """Return every counted change of one outcome, in the order of the proposals."""
    return [change for proposal in outcomes for change in proposal.changes
            if change.outcome is kind]


def keyed(changes: Sequence[ChangeOutcome]) -> Mapping[str, Outcome]:
    """Key changes as ``"8188/2201"`` (proposal/rule), the way the test pins them."""
    return {f"{change.proposal}/{change.rule}": change.outcome for change in changes}


if __name__ == "__main__":
    from tests.replay.figures import main

    raise SystemExit(main())
