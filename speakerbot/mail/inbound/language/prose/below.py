"""The edits of one rule written below its head: ``Amend Rule 5 by:`` or ``as follows:``.

Read by :mod:`~speakerbot.mail.inbound.language.prose.reading` for a head that names the rule and
ends in a colon, each edit read by
:mod:`~speakerbot.mail.inbound.language.prose.edits`:

- the edits as the items of an indented list, one edit or more an item (``* replacing "a"
  with "b"; and`` ``* deleting "c".``);
- after ``as follows:``, the edits as indented paragraphs apart with blank lines, each a command
  (``Delete the text "X".``, ``Replace the text`` <block> ``with the text`` <block>,
  ``Replace the sentence beginning "X" with the sentence`` <block>, ``Amend the list item
  beginning "X" to read:`` <block>).

All of it is read, or none: a paragraph that is no edit understood (``Renumber the list
items``, a comment in brackets) leaves the whole change to the host, as does an edit that
reads past its paragraph or its list item.
"""

from __future__ import annotations

from speakerbot.mail.inbound.language.prose.edits import read_edits
from speakerbot.mail.inbound.language.prose.names import RuleCursor
from speakerbot.mail.inbound.language.prose.text import (
    MARKER,
    Lines,
    indent,
    starts_clause,
    unmarked,
)
from speakerbot.mail.inbound.language.results import Clause, ClauseKind

__all__ = ["complete", "edits_below"]

_MAX_LINES = 300
"""The most lines the edits written as paragraphs below one head may take, texts and all."""
_MAX_PARAGRAPH_LINES = 8
"""How many wrapped lines an edit written as a paragraph may run over (its texts aside)."""


def complete(clause: Clause) -> bool:
    """Tell whether a clause read has all it needs: a text, an old text, a place."""
    placed = bool(clause.anchor or clause.nth)
    if clause.kind in (ClauseKind.AMEND, ClauseKind.ENACT, ClauseKind.APPEND, ClauseKind.INSERT,
                       ClauseKind.RETITLE):
        return bool(clause.text) and (clause.kind is not ClauseKind.INSERT or placed)
    if clause.kind is ClauseKind.REPLACE:
        return bool(clause.old) or (bool(clause.unit) and placed)
    return True


def edits_below(cursor: RuleCursor, rule: int, *, paragraphs: bool) -> list[Clause] | None:
    """Read the edits of ``rule`` below a head's colon: as list items, or as paragraphs.

    As paragraphs only after ``as follows:`` (``paragraphs``); after ``by:`` the edits are
    a list's items.
    """
    start = cursor.index
    listed = _listed(cursor, rule)
    if listed is not None or not paragraphs:
        return listed
    cursor.index = start
    return _paragraphs(cursor, rule)


def _listed(cursor: RuleCursor, rule: int) -> list[Clause] | None:
    """Read ``by:`` followed by the edits as an indented list, one edit or more an item.

    Each item is read on its own (a text after an item's colon ends with its item, its full
    stop kept); an item that takes a block of its own is too much to guess at, so none may
    read past the list.
    """
    items: list[str] = []
    for line in cursor.listed().split("\n"):
        if MARKER.match(line):
            items.append(unmarked(line))
        elif items and line.strip():
            items[-1] += " " + line.strip()  # an item wrapped over lines
        elif line.strip():
            return None
    if not items or any(item.endswith(":") for item in items):
        return None  # an item whose text would be the next item is a guess
    after = cursor.index
    clauses: list[Clause] = []
    for item in items:
        edits = read_edits(cursor, rule, item)
        if edits is None or cursor.index != after:
            return None
        clauses.extend(edits)
    return clauses


def _paragraphs(cursor: RuleCursor, rule: int) -> list[Clause] | None:
    """Read the edits as indented paragraphs below the head, each a command, all of them.

    The paragraphs are the lines indented past the head's, up to the first line that is
    not; each starts at the least indentation among them (a deeper line is a text's).
    """
    lines = cursor.lines
    first = cursor.index
    while first < len(lines) and not lines[first][1].strip():
        first += 1
    if first >= len(lines) or MARKER.match(lines[first][1]) or starts_clause(lines[first][1]):
        return None  # no paragraph, a list (read as items, or not at all), or a change
    end, limit = first, min(len(lines), first + _MAX_LINES)
    while end < limit and (not lines[end][1].strip() or indent(lines[end][1]) > cursor.indent):
        end += 1
    if end == limit < len(lines):
        return None  # longer than any list of edits: each head below would scan it again
    written = [indent(text) for _, text in lines[first:end] if text.strip()]
    if not written:
        return None
    column = min(written)
    region: Lines = tuple((number, text[column:] if text.strip() else "")
                          for number, text in lines[first:end])
    clauses: list[Clause] = []
    index = 0
    while index < len(region):
        if not region[index][1].strip():
            index += 1
            continue
        if indent(region[index][1]):
            return None  # a text standing alone, no edit's
        read = _paragraph(RuleCursor(region, index, cursor.titles), rule)
        if read is None:
            return None
        edits, index = read
        clauses.extend(edits)
    cursor.index = end
    return clauses or None


def _paragraph(cursor: RuleCursor, rule: int) -> tuple[list[Clause], int] | None:
    """Read the edit of one paragraph: its clauses and the index after it, or None.

    The edit must end where its paragraph does (a blank line, or the end): one read from the
    paragraph's first lines alone, with more of its sentence below, would be half read.
    """
    start, lines = cursor.index, cursor.lines
    for wrapped in range(_MAX_PARAGRAPH_LINES + 1):
        cursor.index = start
        head = cursor.head(wrapped)
        if head is None:
            return None
        edits = read_edits(cursor, rule, head)
        at = cursor.index  # a text below its edit ends with the blank lines after it
        ends = at >= len(lines) or not lines[at][1].strip() or not lines[at - 1][1].strip()
        if edits and ends and all(complete(clause) for clause in edits):
            return edits, cursor.index
    return None
