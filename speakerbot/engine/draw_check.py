"""The check of every draw in a public record: made from its committed seed, as it says.

``check_draws`` reads the lines of the public record in order, as ``record export
--public`` writes them (``chain.lines``), and checks each seed revealed and each draw
(``luck.py``, ``draw_events.py``):

- a revealed seed must hash to its commitment, and that commitment must have been committed
  at an earlier line;
- a draw must be anchored to an earlier line that exists, with a seed committed by then;
  its outcome must be one of its distinct candidates and agree with the event it decided;
- once its seed is revealed (anywhere in the lines), the draw must precede the reveal and
  the seed must give its outcome from the anchor's hash and its label.

A draw whose seed is not revealed yet is *awaiting*; a die, Judge or new Speaker drawn
before draws were provable carries no draw and is counted *unprovable*. The check works
on the public form (ids for addresses) as on the full record: the index a seed gives does
not depend on the candidates' text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from speakerbot.engine.luck import derive_index

SEED_HEX = 64
"""How many hex digits a revealed seed is written in."""

# The events that carry a draw, and the field of each that names what was drawn.
_OUTCOME_FIELD = {"DieThrown": "value", "JudgeAssigned": "judge", "NewGameBegun": "new_speaker"}
# Where a commitment is made public, by the kind of line and the field holding it.
_COMMITTING = {"GameStarted": "commitment", "SeedCommitted": "commitment",
               "SeedRevealed": "next_commitment"}


@dataclass(frozen=True)
class DrawFailure:
    """A draw (or a revealed seed) that does not verify: its label, line and what is wrong."""

    label: str
    seq: int
    problem: str


@dataclass
class DrawReport:
    """What the check found: draws verified, awaiting their seed, unprovable, failed."""

    verified: int = 0
    awaiting: int = 0
    unprovable: int = 0
    failures: list[DrawFailure] = field(default_factory=list)


@dataclass(frozen=True)
class _Reveal:
    seq: int
    seed: bytes


@dataclass
class _Record:
    """What the draws are checked against: lines by number, commitments, valid reveals."""

    by_seq: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    committed: dict[str, int] = field(default_factory=dict)
    revealed: dict[str, _Reveal] = field(default_factory=dict)


def check_draws(lines: Iterable[Mapping[str, Any]]) -> DrawReport:
    """Check every revealed seed and every draw of a public record's lines, in order."""
    given = [line for line in lines if isinstance(line.get("seq"), int)]
    report = DrawReport()
    record = _Record()
    for line in given:
        record.by_seq.setdefault(line["seq"], line)
        _note_commitment(record, line)
    for line in given:
        if line.get("type") == "SeedRevealed":
            _check_reveal(record, line, report)
    for line in given:
        draw = line.get("draw")
        if draw is not None:
            _count_draw(record, line, draw, report)
        elif _drawn_unproved(line):
            report.unprovable += 1
    return report


def report_lines(report: DrawReport) -> list[str]:
    """Say the report as ``record verify`` prints it: the totals, then one line a failure."""
    said = [f"{report.verified} draws verified, {report.awaiting} awaiting reveal"]
    if report.unprovable:
        said.append(f"{report.unprovable} draws recorded before draws were provable "
                    "(not checkable)")
    said.extend(f"draw {failure.label} (event {failure.seq}) does not verify: "
                f"{failure.problem}" for failure in report.failures)
    return said


def _note_commitment(record: _Record, line: Mapping[str, Any]) -> None:
    key = _COMMITTING.get(str(line.get("type")))
    commitment = line.get(key) if key else None
    if isinstance(commitment, str) and commitment:
        seq = line["seq"]
        record.committed[commitment] = min(seq, record.committed.get(commitment, seq))


def _seed_bytes(text: Any) -> bytes | None:
    if not isinstance(text, str) or len(text) != SEED_HEX:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def _check_reveal(record: _Record, line: Mapping[str, Any], report: DrawReport) -> None:
    """Keep a reveal whose seed hashes to its commitment; report any that does not hold."""
    seq, commitment = line["seq"], str(line.get("commitment", ""))
    label = f"seed {commitment[:12]}"
    seed = _seed_bytes(line.get("seed"))
    if seed is None:
        report.failures.append(DrawFailure(label, seq, "the seed revealed is not 64 hex digits"))
        return
    if hashlib.sha256(seed).hexdigest() != commitment:
        report.failures.append(DrawFailure(label, seq, "the seed revealed does not hash to "
                                           "its commitment"))
        return
    if record.committed.get(commitment, seq) >= seq:
        report.failures.append(DrawFailure(label, seq, "its commitment was never committed "
                                           "before it"))
    if commitment not in record.revealed:  # the first reveal is the one draws must precede
        record.revealed[commitment] = _Reveal(seq, seed)


def _drawn_unproved(line: Mapping[str, Any]) -> bool:
    """Tell whether a line decided a draw recorded before draws were provable."""
    kind = line.get("type")
    if kind == "DieThrown":
        return True
    return kind in ("JudgeAssigned", "NewGameBegun") and bool(line.get("drawn_from"))


def _count_draw(record: _Record, line: Mapping[str, Any], draw: Any,
                report: DrawReport) -> None:
    seq = line["seq"]
    label = draw.get("label") if isinstance(draw, Mapping) else None
    name = label if isinstance(label, str) and label else f"at event {seq}"
    problem = _malformed(draw) or _misplaced(record, seq, draw) or _disagrees(line, draw)
    if problem is None:
        reveal = record.revealed.get(draw["commitment"])
        if reveal is None:
            report.awaiting += 1
            return
        problem = _not_derived(record, seq, draw, reveal)
    if problem is None:
        report.verified += 1
    else:
        report.failures.append(DrawFailure(name, seq, problem))


def _malformed(draw: Any) -> str | None:
    """Say what is missing from a draw's fields, if anything."""
    if not isinstance(draw, Mapping):
        return "its draw is not an object"
    candidates = draw.get("candidates")
    if not (isinstance(draw.get("label"), str) and isinstance(draw.get("outcome"), str)
            and isinstance(draw.get("commitment"), str) and isinstance(candidates, list)
            and all(isinstance(item, str) for item in candidates)
            and isinstance(draw.get("after"), int) and not isinstance(draw["after"], bool)):
        return "its draw lacks a label, candidates, outcome, after or commitment"
    if not candidates:
        return "it has no candidates"
    if len(set(candidates)) != len(candidates):
        return "its candidates are not distinct"
    if draw["outcome"] not in candidates:
        return f"its outcome {draw['outcome']!r} is not among its candidates"
    return None


def _misplaced(record: _Record, seq: int, draw: Mapping[str, Any]) -> str | None:
    """Say what is wrong with a draw's anchor and its seed's commitment, if anything."""
    after, commitment = draw["after"], draw["commitment"]
    if not 0 < after < seq:
        return f"it is anchored to event {after}, which is not before its own"
    if after not in record.by_seq:
        return f"the event it is anchored to ({after}) is not in the record"
    committed = record.committed.get(commitment)
    if committed is None:
        return f"its seed's commitment {commitment[:12]} was never committed"
    if committed > after:
        return (f"its seed's commitment was made at event {committed}, after its anchor "
                f"{after}")
    return None


def _disagrees(line: Mapping[str, Any], draw: Mapping[str, Any]) -> str | None:
    """Say how the event disagrees with the draw it carries, if it does."""
    kind = str(line.get("type"))
    key = _OUTCOME_FIELD.get(kind)
    if key is None:
        return None
    own = line.get(key)
    if kind == "DieThrown":
        sides = line.get("sides")
        if not isinstance(sides, int) or draw["candidates"] != \
                [str(face) for face in range(1, sides + 1)]:
            return f"its candidates are not the faces 1 to {sides} of its die"
        # An int written as it was drawn; a value "3" in quotes is not the die's value 3.
        own = str(own) if isinstance(own, int) and not isinstance(own, bool) else own
    if own != draw["outcome"]:
        return f"the event says {own!r} where its draw says {draw['outcome']!r}"
    return None


def _not_derived(record: _Record, seq: int, draw: Mapping[str, Any],
                 reveal: _Reveal) -> str | None:
    """Say how a draw fails against its revealed seed, if it does."""
    if seq >= reveal.seq:
        return f"it was made after its seed was revealed (event {reveal.seq})"
    anchor = str(record.by_seq[draw["after"]].get("hash", ""))
    candidates = draw["candidates"]
    index = derive_index(reveal.seed, anchor, draw["label"], len(candidates))
    if candidates[index] != draw["outcome"]:
        return (f"its seed gives {candidates[index]!r} from event {draw['after']}, "
                f"not {draw['outcome']!r}")
    return None
