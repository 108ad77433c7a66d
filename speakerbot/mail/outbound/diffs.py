"""How a change to the rules is shown in mail: a rule's diff, and a proposal's clauses with theirs.

Used by the proposal's distribution, its revision and its vote's start, and by SHOW
PROPOSAL and SHOW RULE.
"""

from __future__ import annotations

import difflib
import itertools
import textwrap
from collections.abc import Sequence

from speakerbot.engine.edits import EDITS, edited_text
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.model import Clause, ClauseKind, GameState


def text_diff(old: str, new: str, width: int = 64) -> str:
    """Show how a rule's text changes: removed lines with "-", added ones with "+".

    Every physical line keeps its mark, so the diff survives wrapping at 72 columns.
    """
    out: list[str] = []
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1)
    # The first two lines name the files; a rule line may itself begin with "--" or "++".
    for line in itertools.islice(diff, 2, None):
        if line.startswith("@@"):
            continue
        mark, body = line[:1], line[1:]
        out += [f"{mark} {part}" for part in textwrap.wrap(body, width) or [""]]
    return "\n".join(out)


def clause_views(clauses: Sequence[Clause], before: GameState) -> list[dict[str, object]]:
    """Return what a proposal's mail shows of each clause, its diff made to ``before``'s rules.

    Several edits of one rule follow each other: each one's diff starts from the text the
    ones before it leave.
    """
    texts: dict[int, str] = {}
    views = []
    for clause in clauses:
        old = None
        if clause.kind in EDITS and clause.rule in before.rules:
            assert clause.rule is not None
            old = texts.get(clause.rule, before.rules[clause.rule].text)
            texts[clause.rule] = edited_text(old, clause)
        views.append(_clause_view(clause, before, old))
    return views


def _clause_view(clause: Clause, before: GameState,
                 edited_from: str | None = None) -> dict[str, object]:
    """Return what proposal.txt shows of a clause: what it does, its diff, its setting.

    ``edited_from``: for an edit, the rule's text it is made to.
    """
    diff = ""
    if clause.kind is ClauseKind.AMEND and clause.rule in before.rules:
        diff = text_diff(before.rules[clause.rule].text, clause.text.strip())
    elif clause.kind in EDITS and edited_from is not None:
        # The same diff as an amendment's: the rule's text as the edit will leave it.
        diff = text_diff(edited_from, edited_text(edited_from, clause).strip())
    setting = ""
    if clause.kind is ClauseKind.SET and clause.parameter in PARAMETERS:
        setting = PARAMETERS[clause.parameter].description
    return {"clause": clause, "what": clause.describe(), "diff": diff, "setting": setting}


def revision_diff(old: str | None, new: str) -> str:
    """Return the diff of a proposal's revised text, or "" when it was not revised."""
    return text_diff(old, new) if old is not None and old != new else ""
