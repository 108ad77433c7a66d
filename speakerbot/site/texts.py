"""The texts the archive's pages show: file names, a rule's diffs, clauses, mail links.

Pure functions of the record's values, shared by the fold (``folding.py``) and its readers.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from itertools import groupby
from operator import itemgetter
from urllib.parse import quote

from speakerbot.engine.edits import EDITS, edited_text
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.model import Clause, ClauseKind, GameState
from speakerbot.site.archive import ClauseView, DiffLine

__all__ = ["clause_views", "diff_lines", "mailto", "slug"]


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


WORDS_COMPARED = 600
"""The most words of a changed paragraph compared word by word, past its common ends.

Past them (a paragraph rewritten at length), what lies between the words the old and the
new paragraph begin and end with is marked changed as a whole: the work is bounded.
"""

PAIRING_WINDOW = 8
"""How many added paragraphs a removed one is compared with to find its new version."""

SIMILAR = 0.5
"""The share of words in common that makes two paragraphs the old and new of one."""

_WORD = re.compile(r"^\s+|(?:\w+|[^\w\s]+)\s*")


def mailto(address: str, line: str) -> str:
    """Return a ``mailto:`` link to ``address`` of a message whose subject and body are ``line``.

    Encoded as RFC 6068 asks: every character of the subject and body that is not
    unreserved is percent-encoded as UTF-8 (a space is ``%20``, never ``+``, which a mail
    client would keep), and so is any character of the address a URL would read apart.
    The game reads the body's command; the subject only names the message.
    """
    text = quote(line, safe="")
    return f"mailto:{quote(address, safe='@!$*+-._~')}?subject={text}&body={text}"


def diff_lines(old: str, new: str) -> tuple[DiffLine, ...]:
    """Show how a rule's text changes, line by line: "-" removed, "+" added, " " kept.

    Separate stretches of change are parted by a line marked "@" (the text between is
    unchanged and left out). A paragraph changed in a few words is its removed and its
    added line, each with those words marked (``DiffLine.parts``).
    """
    found = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1))
    out: list[DiffLine] = []
    for line in found[2:]:  # the first two name the files
        if line.startswith("@@"):
            if out:
                out.append(DiffLine("@", "…"))
            continue
        out.append(DiffLine(line[:1], line[1:]))
    return _words_marked(out)


def _words_marked(lines: list[DiffLine]) -> tuple[DiffLine, ...]:
    """Mark the changed words where removed lines are followed by added ones like them.

    Each removed line is paired with the first of the next few added lines (in order)
    that shares most of its words: a paragraph edited in place, not one removed and
    another added.
    """
    out: list[DiffLine] = []
    index = 0
    while index < len(lines):
        if lines[index].mark != "-":
            out.append(lines[index])
            index += 1
            continue
        end = index
        while end < len(lines) and lines[end].mark == "-":
            end += 1
        added_end = end
        while added_end < len(lines) and lines[added_end].mark == "+":
            added_end += 1
        removed, added = lines[index:end], lines[end:added_end]
        marked_added = list(added)
        start = 0
        for place, line in enumerate(removed):
            for offset, candidate in enumerate(added[start:start + PAIRING_WINDOW]):
                parts = _changed_words(line.text, candidate.text)
                if parts is not None:
                    removed[place] = DiffLine("-", line.text, parts[0])
                    marked_added[start + offset] = DiffLine("+", candidate.text, parts[1])
                    start += offset + 1
                    break
        out += removed + marked_added
        index = added_end
    return tuple(out)


def _changed_words(old: str, new: str) -> tuple[tuple[tuple[str, bool], ...],
                                                tuple[tuple[str, bool], ...]] | None:
    """Return the old and new line in pieces, the changed words marked; None if unlike.

    Words are compared without the white space after them. The words both lines begin
    and end with are taken off first (linear); what is left is compared by ``difflib``
    when it is short (``WORDS_COMPARED``), else marked changed whole.
    """
    a, b = _WORD.findall(old), _WORD.findall(new)
    keys_a, keys_b = [word.rstrip() for word in a], [word.rstrip() for word in b]
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    if matcher.quick_ratio() < SIMILAR:
        return None
    head = 0
    while head < min(len(a), len(b)) and keys_a[head] == keys_b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and keys_a[-1 - tail] == keys_b[-1 - tail]:
        tail += 1
    changed_a = [False] * len(a)
    changed_b = [False] * len(b)
    middle_a, middle_b = keys_a[head:len(a) - tail], keys_b[head:len(b) - tail]
    if len(middle_a) + len(middle_b) <= WORDS_COMPARED:
        matcher.set_seqs(middle_a, middle_b)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                changed_a[head + i1:head + i2] = [True] * (i2 - i1)
                changed_b[head + j1:head + j2] = [True] * (j2 - j1)
    else:
        changed_a[head:len(a) - tail] = [True] * len(middle_a)
        changed_b[head:len(b) - tail] = [True] * len(middle_b)
    return _pieces(a, changed_a), _pieces(b, changed_b)


def _pieces(words: list[str], changed: list[bool]) -> tuple[tuple[str, bool], ...]:
    """Join words into pieces of the same mark; a changed piece ends at its last word.

    The white space after a changed run is kept out of its mark, so that the mark covers
    the words and not the gap before the next.
    """
    pieces: list[tuple[str, bool]] = []
    for flag, run in groupby(zip(words, changed, strict=True), key=itemgetter(1)):
        text = "".join(word for word, _ in run)
        words_only = text.rstrip() if flag else text
        for piece, mark in ((words_only, flag), (text[len(words_only):], False)):
            if not piece:
                continue
            if pieces and pieces[-1][1] == mark:
                pieces[-1] = (pieces[-1][0] + piece, mark)
            else:
                pieces.append((piece, mark))
    return tuple(pieces)


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
