"""The check of every draw in a public record: made from its committed seed, as it says.

``check_draws`` reads the lines of the public record in order, as ``record export
--public`` writes them (``chain.lines``), game by game (a ``GameStarted`` begins one), and
checks each seed revealed and each draw (``luck.py``, ``draw_events.py``). A game's
*current commitment* is the last one its lines made: ``GameStarted.commitment``,
``SeedCommitted.commitment``, ``SeedRevealed.next_commitment``.

- A revealed seed must be 64 lowercase hex digits that hash to its commitment, and that
  commitment must be the game's current one at the reveal.
- A draw may only be carried by the event it decided (a die thrown, a Judge assigned, a new
  Speaker among winners), as an object with a string label, candidates and outcome, an int
  ``after`` and its seed's commitment, which must be the game's current one at its line.
  It must be anchored where the record says, not where it says itself: to the last line
  before its *moment*, the first line that bears the draw's time (``at``), or to the start
  of the record (``after`` 0, 64 zeros) if that line is the first (``anchors.py``). It must
  bear the one label the record gives that draw (``die:301`` after the vote on proposal
  301 closed, ``judge:cfj-4/2`` for CFJ 4's second Judge, ``speaker:game-2``), never
  drawn before in its game, and draw among exactly the candidates the event names (a
  die's faces, the event's ``drawn_from``).
- Once its seed is revealed, the draw must precede the reveal and the seed must give its
  outcome from the anchor's hash and its label.

A draw whose seed is not revealed yet is *awaiting*. A die, Judge or new Speaker drawn
without a draw is counted *unprovable* in a game that never committed a seed (recorded
before draws were provable), and is a failure in one that did: it was drawn by chance, or
by choice. The check works on the public form (ids for addresses) as on the full record:
the index a seed gives does not depend on the candidates' text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from speakerbot.engine.draw_events import RecordLine
from speakerbot.engine.luck import derive_index

SEED = re.compile(r"[0-9a-f]{64}")
"""A revealed seed as the record writes it: 32 bytes, 64 lowercase hex digits, no more."""

MAX_SIDES = 10**6
"""The most sides a die of the record may have: more is no die (its faces are not listed)."""

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
class _Game:
    """What a game's lines have said before the line being checked."""

    commitment: str = ""
    committed: bool = False  # a seed committed at any line of the game so far
    closed: int | None = None  # the proposal of the latest VoteClosed
    labels: set[str] = field(default_factory=set)
    judges: dict[int, int] = field(default_factory=dict)  # JudgeAssigned lines by CFJ

    def see(self, line: Mapping[str, Any]) -> None:
        """Fold a line in, once it has been checked."""
        kind = _kind(line)
        key = _COMMITTING.get(kind)
        if key is not None:
            self.commitment = _text(line.get(key))
            self.committed = self.committed or bool(self.commitment)
        if kind == "VoteClosed":
            self.closed = _whole(line.get("proposal"))
        cfj = _whole(line.get("cfj"))
        if kind == "JudgeAssigned" and cfj is not None:
            self.judges[cfj] = self.judges.get(cfj, 0) + 1

    def label_due(self, line: Mapping[str, Any]) -> str | None:
        """Return the label the record gives a draw decided at ``line`` (None: it has none)."""
        kind = _kind(line)
        if kind == "DieThrown":
            return None if self.closed is None else f"die:{self.closed}"
        if kind == "JudgeAssigned":
            cfj = _whole(line.get("cfj"))
            if cfj is None:
                return None
            earlier = self.judges.get(cfj, 0)
            return f"judge:cfj-{cfj}" + (f"/{earlier + 1}" if earlier else "")
        number = _whole(line.get("game_number"))
        return None if kind != "NewGameBegun" or number is None else f"speaker:game-{number}"


@dataclass
class _Record:
    """What the draws are checked against: lines by number, valid reveals by commitment."""

    by_seq: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    revealed: dict[str, _Reveal] = field(default_factory=dict)


def check_draws(lines: Iterable[Mapping[str, Any]]) -> DrawReport:
    """Check every revealed seed and every draw of a public record's lines, in order."""
    given = [line for line in lines if _whole(line.get("seq")) is not None]
    report = DrawReport()
    record = _Record()
    for line in given:
        record.by_seq.setdefault(line["seq"], line)
    for line, game in _games(given):
        if _kind(line) == "SeedRevealed":
            _check_reveal(record, game, line, report)
    for (line, game), anchor in zip(_games(given), _moment_anchors(given), strict=True):
        draw = line.get("draw")
        if draw is not None:
            _count_draw(record, game, line, anchor, report)
        elif _drawn_unproved(line):
            if game.committed:
                report.failures.append(DrawFailure(
                    _name(game, line), line["seq"], "it carries no draw: drawn by chance in "
                    "a game that had committed a seed"))
            else:
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


def _moment_anchors(lines: Iterable[Mapping[str, Any]]) -> list[RecordLine]:
    """Return the anchor the record gives a draw on each line: the last before its moment.

    A line's moment begins at the first of the lines just before it (itself included) that
    bear its ``at``; its anchor is the line before that one (number 0, 64 zeros: none).
    Lines are taken in the order given, as the record lists them, whatever their numbers.
    """
    anchors: list[RecordLine] = []
    anchor, last = RecordLine(), None
    for line in lines:
        if last is not None and line.get("at") != last.get("at"):  # a moment begins
            anchor = RecordLine(last["seq"], str(last.get("hash", "")))
        anchors.append(anchor)
        last = line
    return anchors


def _games(lines: list[Mapping[str, Any]]) -> Iterator[tuple[Mapping[str, Any], _Game]]:
    """Yield each line with what its game had said before it."""
    game = _Game()
    for line in lines:
        if _kind(line) == "GameStarted":
            game = _Game()
        yield line, game
        game.see(line)


def _kind(line: Mapping[str, Any]) -> str:
    kind = line.get("type")
    return kind if isinstance(kind, str) else ""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _whole(value: Any) -> int | None:
    """Return ``value`` if it is an int written as one (not a bool, not a float)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _name(game: _Game, line: Mapping[str, Any]) -> str:
    """Name a draw in a failure: by its label, or the one due, or its line."""
    draw = line.get("draw")
    label = draw.get("label") if isinstance(draw, Mapping) else None
    if isinstance(label, str) and label:
        return label
    return game.label_due(line) or f"at event {line['seq']}"


def _check_reveal(record: _Record, game: _Game, line: Mapping[str, Any],
                  report: DrawReport) -> None:
    """Keep a reveal whose seed is the game's current one; report any that is not."""
    seq, commitment, seed = line["seq"], _text(line.get("commitment")), line.get("seed")
    label = f"seed {commitment[:12]}"
    if not isinstance(seed, str) or SEED.fullmatch(seed) is None:
        report.failures.append(DrawFailure(label, seq, "the seed revealed is not 64 "
                                           "lowercase hex digits"))
        return
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
        report.failures.append(DrawFailure(label, seq, "the seed revealed does not hash to "
                                           "its commitment"))
        return
    if not commitment or commitment != game.commitment:
        report.failures.append(DrawFailure(label, seq, "its commitment is not the one the "
                                           "game had committed before it"))
        return
    if commitment not in record.revealed:  # the first reveal is the one draws must precede
        record.revealed[commitment] = _Reveal(seq, bytes.fromhex(seed))


def _drawn_unproved(line: Mapping[str, Any]) -> bool:
    """Tell whether a line decided a draw without carrying one."""
    kind = _kind(line)
    if kind == "DieThrown":
        return True
    return kind in ("JudgeAssigned", "NewGameBegun") and bool(line.get("drawn_from"))


def _count_draw(record: _Record, game: _Game, line: Mapping[str, Any], anchor: RecordLine,
                report: DrawReport) -> None:
    seq, draw = line["seq"], line["draw"]
    problem = (_malformed(line, draw) or _misplaced(record, game, seq, draw, anchor)
               or _mislabelled(game, line, draw) or _disagrees(line, draw))
    if isinstance(draw, Mapping) and isinstance(draw.get("label"), str):
        game.labels.add(draw["label"])
    if problem is None:
        reveal = record.revealed.get(draw["commitment"])
        if reveal is None:
            report.awaiting += 1
            return
        problem = _not_derived(seq, draw, reveal, anchor)
    if problem is None:
        report.verified += 1
    else:
        report.failures.append(DrawFailure(_name(game, line), seq, problem))


def _malformed(line: Mapping[str, Any], draw: Any) -> str | None:
    """Say what is wrong with a draw's place and fields, if anything."""
    if not isinstance(draw, Mapping):
        return "its draw is not an object"
    if _kind(line) not in _OUTCOME_FIELD:
        return f"a {_kind(line) or 'line'} decides no draw"
    candidates = draw.get("candidates")
    if not (isinstance(draw.get("label"), str) and isinstance(draw.get("outcome"), str)
            and isinstance(draw.get("commitment"), str) and isinstance(candidates, list)
            and all(isinstance(item, str) for item in candidates)
            and _whole(draw.get("after")) is not None):
        return "its draw lacks a label, candidates, outcome, after or commitment"
    if not candidates:
        return "it has no candidates"
    if len(set(candidates)) != len(candidates):
        return "its candidates are not distinct"
    if draw["outcome"] not in candidates:
        return f"its outcome {draw['outcome']!r} is not among its candidates"
    return None


def _misplaced(record: _Record, game: _Game, seq: int, draw: Mapping[str, Any],
               anchor: RecordLine) -> str | None:
    """Say what is wrong with a draw's anchor and its seed's commitment, if anything."""
    after, commitment = draw["after"], draw["commitment"]
    if not 0 <= after < seq:
        return f"it is anchored to event {after}, which is not before its own"
    if after and after not in record.by_seq:
        return f"the event it is anchored to ({after}) is not in the record"
    if after != anchor.seq:
        # Any earlier line would do for a draw that chose its own: the one a forger liked.
        return (f"it is anchored to event {after}, not to event {anchor.seq}, the last line "
                "recorded before its moment (the first line at its time)")
    if not game.commitment:
        return "its game had no seed committed at its line"
    if commitment != game.commitment:
        return (f"its seed's commitment {commitment[:12]} is not the game's current one "
                f"({game.commitment[:12]})")
    return None


def _mislabelled(game: _Game, line: Mapping[str, Any], draw: Mapping[str, Any]) -> str | None:
    """Say how a draw's label is not the one the record gives it, if it is not."""
    due = game.label_due(line)
    if due is None:
        return "the record gives it no label (no vote closed before a die, or no number)"
    if draw["label"] != due:
        return f"its label is not {due!r}"
    if due in game.labels:
        return f"{due} was drawn before in this game"
    return None


def _disagrees(line: Mapping[str, Any], draw: Mapping[str, Any]) -> str | None:
    """Say how the event disagrees with the draw it carries, if it does."""
    kind = _kind(line)
    candidates, own = draw["candidates"], line.get(_OUTCOME_FIELD[kind])
    if kind == "DieThrown":
        sides = _whole(line.get("sides"))
        if sides is None or not 0 < sides <= MAX_SIDES:
            return (f"its die has {line.get('sides')!r} sides, not a whole number from 1 "
                    f"to {MAX_SIDES}")
        # The length first: a die of 10**12 sides must not list its faces to say so.
        if len(candidates) != sides or candidates != [str(face) for face in range(1, sides + 1)]:
            return f"its candidates are not the faces 1 to {sides} of its die"
        # An int written as it was drawn; a value "3" in quotes, or 3.0, is not the die's 3.
        own = str(own) if _whole(own) is not None else own
    elif candidates != line.get("drawn_from"):
        return "its candidates are not the event's drawn_from, in order"
    if own != draw["outcome"]:
        return f"the event says {own!r} where its draw says {draw['outcome']!r}"
    return None


def _not_derived(seq: int, draw: Mapping[str, Any], reveal: _Reveal,
                 anchor: RecordLine) -> str | None:
    """Say how a draw fails against its revealed seed, if it does."""
    if seq >= reveal.seq:
        return f"it was made after its seed was revealed (event {reveal.seq})"
    candidates = draw["candidates"]
    index = derive_index(reveal.seed, anchor.hash, draw["label"], len(candidates))
    if candidates[index] != draw["outcome"]:
        return (f"its seed gives {candidates[index]!r} from event {draw['after']}, "
                f"not {draw['outcome']!r}")
    return None
