"""The texts the archive's pages show: file names from players' words, a rule's diffs, clauses.

Pure functions of the record's values, shared by the fold (``folding.py``) and its readers.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence

from speakerbot.engine.edits import EDITS, edited_text
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.model import Clause, ClauseKind, GameState
from speakerbot.site.archive import ClauseView, DiffLine

__all__ = ["clause_views", "diff_lines", "slug"]


def slug(text: str, taken: set[str], fallback: str) -> str:
    """Return a file name made of ``text`` (lower-case ASCII letters, digits, hyphens).

    Unique among ``taken`` (which it joins); ``fallback`` when nothing of ``text`` is left.
    Names are the players' own words: nothing of them but letters and digits reaches a path.
    """
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    base = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:40].strip("-") or fallback
    candidate, count = base, 1
    while candidate in taken:
        count += 1
        candidate = f"{base}-{count}"
    taken.add(candidate)
    return candidate


def diff_lines(old: str, new: str) -> tuple[DiffLine, ...]:
    """Show how a rule's text changes, line by line: "-" removed, "+" added, " " kept.

    Separate stretches of change are parted by a line marked "@" (the text between is
    unchanged and left out).
    """
    found = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1))
    out: list[DiffLine] = []
    for line in found[2:]:  # the first two name the files
        if line.startswith("@@"):
            if out:
                out.append(DiffLine("@", "…"))
            continue
        out.append(DiffLine(line[:1], line[1:]))
    return tuple(out)


def clause_views(clauses: Sequence[Clause], before: GameState) -> tuple[ClauseView, ...]:
    """Return what each clause would do, each edit's diff from the text the ones before leave.

    The diffs are taken against the ruleset as it stood when the proposal was distributed,
    as the distribution mail showed them.
    """
    texts: dict[int, str] = {}
    views = []
    for clause in clauses:
        diff: tuple[DiffLine, ...] = ()
        rule = before.rules.get(clause.rule) if clause.rule is not None else None
        if rule is not None and (clause.kind is ClauseKind.AMEND or clause.kind in EDITS):
            old = texts.get(rule.number, rule.text)
            new = clause.text.strip() if clause.kind is ClauseKind.AMEND else edited_text(
                old, clause)
            texts[rule.number] = new
            diff = diff_lines(old, new)
        elif clause.kind is ClauseKind.ENACT:
            diff = diff_lines("", clause.text.strip())
        setting = ""
        if clause.kind is ClauseKind.SET and clause.parameter in PARAMETERS:
            setting = PARAMETERS[clause.parameter].description
        views.append(ClauseView(clause, clause.describe(), setting, diff))
    return tuple(views)
