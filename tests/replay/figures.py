"""The replay's figures, and the changes of one outcome with a short diff.

``python -m tests.replay.replay`` (or ``python -m tests.replay.figures``) prints how many
rule changes the replay counts, by outcome, with their share, and how long it took;
``--list OUTCOME`` (``exact``, ``wrong``, ``silent``, ``host``, ``failed``, ``refused``, or
``extra`` for the changes the record does not show) lists each change of that outcome: the
proposal, the rule, the flags, and the words that differ. A diff compares words, white space
aside: ``[-removed-]`` and ``{+added+}``, with a few words either side.
"""

from __future__ import annotations

import argparse
import difflib
import time
from collections.abc import Sequence

from tests.replay.replay import (
    LABELS,
    ChangeOutcome,
    Outcome,
    ProposalOutcome,
    counts,
    of_outcome,
    replay,
)

CONTEXT = 4
MAX_HUNKS = 4
MAX_WORDS = 30


def word_diff(old: str, new: str, *, context: int = CONTEXT, hunks: int = MAX_HUNKS) -> str:
    """Return the words that differ between ``old`` and ``new``, white space aside.

    At most ``hunks`` places are shown, each with ``context`` words either side; a line says
    how many more there were.
    """
    a, b = old.split(), new.split()
    shown: list[str] = []
    places = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
              if op[0] != "equal"]
    for tag, i1, i2, j1, j2 in places[:hunks]:
        removed = f"[-{_cut(a[i1:i2])}-]" if tag in ("replace", "delete") else ""
        added = f"{{+{_cut(b[j1:j2])}+}}" if tag in ("replace", "insert") else ""
        left = " ".join(a[max(0, i1 - context):i1])
        right = " ".join(a[i2:i2 + context])
        shown.append(f"    …{left} {removed}{added} {right}…")
    if len(places) > hunks:
        shown.append(f"    ... and {len(places) - hunks} more places")
    return "\n".join(shown)


def _cut(words: Sequence[str], most: int = MAX_WORDS) -> str:
    """Join ``words``, keeping the first and last few of a long run."""
    if len(words) <= most:
        return " ".join(words)
    return f"{' '.join(words[:most - 6])} … {' '.join(words[-6:])}"


def _text(made: tuple[str, str] | None) -> str:
    return made[0] if made is not None else ""


def describe(change: ChangeOutcome) -> str:
    """Say one change: its proposal, rule, kinds, flags, and a diff.

    For a text made (exact or wrong, or made in part): from the record's text after to the
    engine's. For a change not made: from the rule before to the record's text after (what
    the proposal was to do).
    """
    flags = f" ({'; '.join(change.flags)})" if change.flags else ""
    detail = f" [{change.detail}]" if change.detail else ""
    head = (f"{change.proposal} rule {change.rule} {'+'.join(change.types)}: "
            f"{LABELS[change.outcome]}{flags}{detail}")
    if change.outcome is Outcome.EXACT:
        return head
    if change.made is not None and change.made[1] != change.wanted.title and (
            "retitling" in change.types):
        head += f"\n    title: record “{change.wanted.title}”, engine “{change.made[1]}”"
    if change.made != change.before:
        what = "    record after → engine made:"
        diff = word_diff(change.wanted.text, _text(change.made))
    else:
        what = "    rule before → record after (not made):"
        diff = word_diff(_text(change.before), change.wanted.text)
    return "\n".join((head, what, diff)) if diff else head


def figures(outcomes: Sequence[ProposalOutcome], seconds: float) -> str:
    """Return the figures: changes counted by outcome, with their share, and the time."""
    counted = counts(outcomes)
    total = sum(counted.values())
    changes = sum(len(proposal.proposal.changes) for proposal in outcomes)
    lines = [f"proposals: {len(outcomes)}; rule changes recorded: {changes}, counted: {total} "
             f"(batched, reverted and power-only changes left aside)"]
    for kind in Outcome:
        share = 100 * counted[kind] / total if total else 0.0
        lines.append(f"  {LABELS[kind]:<20} {counted[kind]:>4}  {share:5.1f}%")
    settled = sum("as settled" in change.flags for change in of_outcome(outcomes, Outcome.EXACT))
    lines.append(f"  (exact as settled, after_commit: {settled})")
    informal = sum(proposal.reading.informal for proposal in outcomes)
    refused_for_text = sum(proposal.refused_for_text for proposal in outcomes)
    extra = sum(len(proposal.extra) for proposal in outcomes)
    lines += [
        f"proposals read with no clause (informal): {informal}",
        f"proposals a clause of which fails for the rule's text (refused at submission on "
        f"the same rules): {refused_for_text}",
        f"changes made that the record does not show: {extra}",
        f"replayed in {seconds:.1f} s",
    ]
    return "\n".join(lines)


def listing(outcomes: Sequence[ProposalOutcome], which: str) -> str:
    """Return every change of one outcome (or ``extra``) with a short diff."""
    if which == "extra":
        return "\n".join(f"{proposal.proposal.id}: {extra}" for proposal in outcomes
                         for extra in proposal.extra)
    return "\n".join(describe(change) for change in of_outcome(outcomes, Outcome(which)))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures, or with ``--list`` the changes of one outcome; return 0."""
    parser = argparse.ArgumentParser(prog="python -m tests.replay.replay",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--list", choices=[*(kind.value for kind in Outcome), "extra"],
                        help="list the changes of one outcome, with a short diff")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    outcomes = replay()
    seconds = time.perf_counter() - start
    print(listing(outcomes, args.list) if args.list else figures(outcomes, seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
