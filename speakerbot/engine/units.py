"""The parts of a rule's text an edit works on: paragraphs, sentences, list items and lines.

A paragraph is split from the next by a blank line; but a text with no blank line whose
every line ends a sentence is written a paragraph to a line (as Suber's and Rurru's rules
are), and there each line is a paragraph, so that "the last paragraph" of such a rule is its
last line and not the whole rule. A sentence ends, within its paragraph, with ``.``, ``!`` or
``?`` (and any closing quotes or brackets) followed by white space, or at the paragraph's
end, but not at a list marker's full stop, nor before a small letter ("e.g. the Speaker"),
nor after an abbreviation that never ends one ("cf.", "e.g.", "i.e."); a list item is a
line that begins with a list marker (``-``, ``*``, ``1.``, ``(a)``, ``a)``, ``i.``...)
with the lines after it indented past its marker; a line is any line that is not blank.
Each part is a span of the text without the white space around it, so that the text between
two parts is their separator.

An edit chooses one part by its beginning (``anchor``; with ``whole``, by its whole text) or
by its place (``nth``) and is made as a splice: a span of the text and what replaces it
(``splice``). Anyone who may propose writes edits, so everything here is linear in the
text: one pass to find the parts, no pattern that backtracks (the list marker's pattern is
matched once per line, on a bounded prefix), and the parts of the last few texts are kept,
so that the check of an edit and its making split a rule once.
"""

from __future__ import annotations

import functools
import re

from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.refusals import Facts, GameError, Refusal

UNITS = ("paragraph", "sentence", "item", "line")
"""The parts of a rule an edit may name."""

Span = tuple[int, int]

# A list marker at the start of a line: bounded, so matching it costs no more than its length.
_MARKER = re.compile(r"(?:[-*\u2022\u2013]|\d{1,4}(?:\.\d{1,4}){0,3}[.)]|\(\w{1,6}\)"
                     r"|[A-Za-z][.)]|[ivxlcIVXLC]{1,6}[.)])(?=\s|$)")
_SENTENCE_END = re.compile(r"[.!?][\"')\]}\u201d\u2019]*(?=\s|$)")
# A line that ends a sentence (a colon or semicolon too: a list's lead-in, an item).
_LINE_END = re.compile(r"[.!?:;][\"')\]}\u201d\u2019]*$")
# Abbreviations whose full stop ends no sentence, whatever follows them (lower case).
_ABBREVIATIONS = frozenset({"cf", "e.g", "i.e", "viz", "vs", "approx", "incl", "resp"})
_ABBREVIATION_REACH = 8
# The next character, on this line or the next (possessive: no backtracking).
_FOLLOWING = re.compile(r"[ \t\r\f\v]*+\n?+[ \t\r\f\v]*+(\S)")
_MARKER_REACH = 40  # the longest marker _MARKER can match, with room to spare
_ENDS = ".!?"
_CLOSERS = "\"')]}\u201d\u2019"
_QUOTES = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb"
_CLOSING_PUNCTUATION = ".!?;:," + _CLOSERS + _QUOTES + " "
_SEPARATORS = {"paragraph": "\n\n", "sentence": " ", "item": "\n", "line": "\n"}


def parts(text: str, unit: str) -> list[Span]:
    """Return the spans of ``text``'s parts of the kind ``unit``, in order.

    An unknown ``unit`` has no parts. The parts of the last few texts are kept: a rule's
    text is split once, not once by the check of an edit and again by its making.
    """
    return list(_parts(text, unit))


@functools.lru_cache(maxsize=8)
def _parts(text: str, unit: str) -> tuple[Span, ...]:
    """Return the spans of ``text``'s parts of the kind ``unit`` (kept for the next call)."""
    if unit == "paragraph":
        return tuple(_paragraphs(text))
    if unit == "line":
        return tuple(span for span in _lines(text) if span[0] < span[1])
    if unit == "sentence":
        return tuple(_sentences(text))
    if unit == "item":
        return tuple(_items(text))
    return ()


def _lines(text: str) -> list[Span]:
    """Return each line's span without its white space at either end (blank lines empty)."""
    spans: list[Span] = []
    start = 0
    for line in text.split("\n"):
        kept = line.strip()
        if kept:
            left = start + len(line) - len(line.lstrip())
            spans.append((left, left + len(kept)))
        else:
            spans.append((start, start))
        start += len(line) + 1
    return spans


def _paragraphs(text: str) -> list[Span]:
    """Return the spans of the runs of lines that are not blank (or the lines: a line each)."""
    lines = _lines(text)
    if _a_paragraph_a_line(text, lines):
        return [span for span in lines if span[0] < span[1]]
    spans: list[Span] = []
    current: Span | None = None
    for left, right in lines:
        if left == right:
            current = None
            continue
        if current is None:
            spans.append((left, right))
            current = spans[-1]
        else:
            spans[-1] = current = (current[0], right)
    return spans


def _a_paragraph_a_line(text: str, lines: list[Span]) -> bool:
    """Tell whether a text is written a paragraph to a line.

    So it is when it has more than one line, no blank line between two of them, and every
    line ends a sentence: the lines of a paragraph wrapped at a width do not.
    """
    kept = [span for span in lines if span[0] < span[1]]
    if len(kept) < 2 or any(left == right for left, right in lines
                            if kept[0][0] < left < kept[-1][0]):
        return False
    return all(_LINE_END.search(text, left, right) for left, right in kept)


def paragraph_separator(text: str) -> str:
    """Return what stands between two paragraphs of ``text``: a blank line, or a line break.

    A line break in a text written a paragraph to a line: a new paragraph keeps its way.
    """
    return "\n" if _a_paragraph_a_line(text, _lines(text)) else _SEPARATORS["paragraph"]


def _sentences(text: str) -> list[Span]:
    """Return the spans of the sentences of every paragraph, in one pass over the lines.

    The full stop of a list item's marker ("1.") ends no sentence; nor does a full stop
    followed by a small letter ("e.g. the Speaker").
    """
    spans: list[Span] = []
    begin, last = -1, -1  # where the open sentence begins (-1: none); the last line's end
    lines = _lines(text)
    a_line_each = _a_paragraph_a_line(text, lines)  # then a line's end ends its sentence
    for left, right in lines:
        marked = _marker_end(text, (left, right)) if left < right else -1
        if begin >= 0 and (left == right or a_line_each):
            spans.append((begin, last))
            begin = -1
        if left == right:
            continue
        begin = left if begin < 0 else begin
        for found in _SENTENCE_END.finditer(text, max(marked, left), right):
            if _ends_sentence(text, found.end()):
                spans.append((begin, found.end()))
                begin = _next_visible(text, found.end(), right)
        last = right
    if begin >= 0:
        spans.append((begin, last))
    return spans


def _next_visible(text: str, index: int, end: int) -> int:
    """Return where the next character that is not white space stands before ``end``, or -1."""
    while index < end and text[index].isspace():
        index += 1
    return index if index < end else -1


def _ends_sentence(text: str, stop: int) -> bool:
    """Tell whether the stop that ends at ``stop`` ends its sentence.

    It does not before a small letter, nor after an abbreviation ("cf. Rule 2466").
    """
    following = _FOLLOWING.match(text, stop)
    if following is not None and following.group(1).islower():
        return False
    word = text[max(0, stop - _ABBREVIATION_REACH):stop].rstrip(_CLOSERS)
    if not word.endswith("."):
        return True
    word = word[:-1].rsplit(None, 1)[-1] if word[:-1].strip() else ""
    return word.lstrip("(\"'\u201c\u2018[").lower() not in _ABBREVIATIONS


def _marker_end(text: str, line: Span) -> int:
    """Return where a line's list marker ends, or -1 when the line has none."""
    found = _MARKER.match(text, line[0], min(line[1], line[0] + _MARKER_REACH))
    return -1 if found is None else found.end()


def _is_item(text: str, line: Span) -> bool:
    return _marker_end(text, line) >= 0


def _items(text: str) -> list[Span]:
    """Return the spans of the list items: a marked line and the lines that continue it.

    A line continues an item only if it is indented past the column of the item's marker:
    the prose after a list is not part of its last item.
    """
    spans: list[Span] = []
    column = -1  # the column of the open item's marker; -1 when no item is open
    for line in _lines(text):
        indent = line[0] - (text.rfind("\n", 0, line[0]) + 1)
        if line[0] == line[1]:
            column = -1
        elif _is_item(text, line):
            spans.append(line)
            column = indent
        elif 0 <= column < indent:
            spans[-1] = (spans[-1][0], line[1])
        else:
            column = -1
    return spans


def folded_beginning(words: str, *, marker: bool = False) -> str:
    """Return words as an anchor is compared: white space folded, quotes and ellipsis dropped.

    And the list marker they begin with, unless ``marker``.
    """
    folded = " ".join(words.split()).strip(_QUOTES).strip()
    found = None if marker else _MARKER.match(folded[:_MARKER_REACH])
    if found is not None:
        folded = folded[found.end():].lstrip()
    for ellipsis in ("\u2026", "..."):
        folded = folded.removesuffix(ellipsis)
    return folded.strip(_QUOTES).strip()


def choose(number: int, text: str, unit: str, anchor: str, nth: int, *,
           whole: bool = False, found: list[Span] | None = None) -> Span:
    """Return the span of the part an edit of rule ``number`` names, or refuse.

    The one part that begins with ``anchor`` (with ``whole``, whose whole text is it), or,
    with no anchor, the ``nth`` (1 the first, -1 the last). Refused: UNIT_NOT_FOUND (none, or
    ``nth`` out of range), UNIT_NOT_UNIQUE. The anchor is looked for as written first, then,
    if it has no list marker of its own, with the parts' markers aside: an anchor that has
    a marker ("2. Votes", "(b)") is not taken for a part with another marker.
    """
    found = parts(text, unit) if found is None else found
    if folded_beginning(anchor, marker=True):
        matching = _matching(text, found, anchor, whole=whole)
        if len(matching) == 1:
            return matching[0]
        refusal = Refusal.UNIT_NOT_UNIQUE if matching else Refusal.UNIT_NOT_FOUND
        raise GameError(refusal, Facts(number=number, detail=unit, text=anchor.strip(),
                                       count=len(matching)))
    if nth == 0 or not -len(found) <= nth <= len(found):
        raise GameError(Refusal.UNIT_NOT_FOUND, Facts(number=number, detail=unit,
                                                      count=len(found), limit=nth))
    return found[nth - 1 if nth > 0 else nth]


def _matching(text: str, found: list[Span], anchor: str, *, whole: bool) -> list[Span]:
    """Return the parts the anchor names: as written, else (no marker of its own) markers aside."""
    kept = folded_beginning(anchor, marker=True)
    matching = _beginning(text, found, kept, marker=True, whole=whole)
    if matching or folded_beginning(anchor, marker=False) != kept:
        return matching
    return _beginning(text, found, kept, marker=False, whole=whole)


def _beginning(text: str, found: list[Span], beginning: str, *, marker: bool,
               whole: bool) -> list[Span]:
    """Return the parts that begin with (or, ``whole``, are) the folded ``beginning``.

    The parts' markers are kept, or left aside (``marker`` false); only a prefix of each part
    about as long as the anchor is folded, so that a look-up costs no more than the anchor
    times the number of parts.
    """
    if not beginning:
        return []
    if whole:
        target = beginning.rstrip(_CLOSING_PUNCTUATION)
        return [span for span in found if folded_beginning(
            text[span[0]:span[1]], marker=marker).rstrip(_CLOSING_PUNCTUATION) == target]
    reach = 2 * len(beginning) + _MARKER_REACH + 8
    return [span for span in found if _folded_prefix(text, span, reach, marker=marker)
            .startswith(beginning)]


def _folded_prefix(text: str, span: Span, reach: int, *, marker: bool) -> str:
    """Return the folded beginning of a part: enough of it to compare with an anchor."""
    start, end = span
    piece = text[start:min(end, start + reach)]
    while start + len(piece) < end and len(" ".join(piece.split())) < reach // 2:
        piece = text[start:min(end, start + 2 * len(piece))]  # long runs of white space
    return folded_beginning(piece, marker=marker)


def splice(number: int, text: str, clause: Clause) -> tuple[int, int, str]:
    """Return how an edit of a part of rule ``number``'s text is made, or refuse.

    ``(start, end, put)``: the text from ``start`` to ``end`` is replaced with ``put``.
    """
    start, end = choose(number, text, clause.unit, clause.anchor, clause.nth,
                        whole=clause.whole)
    if clause.kind is ClauseKind.REPLACE:
        if clause.new.strip():
            return start, end, _with_marker(text, (start, end), clause)
        return _deletion(text, start, end)
    added = clause.text.strip()
    if clause.kind is ClauseKind.APPEND:
        if clause.unit == "paragraph" and any(item[1] == end for item in _parts(text, "item")):
            # A paragraph that ends in a list item: the sentence is not the item's.
            return end, end, paragraph_separator(text) + added
        return end, end, ("" if added[:1] in _CLOSERS + ",;:" + _ENDS else " ") + added
    separator = (paragraph_separator(text) if clause.unit == "paragraph"
                 else _SEPARATORS[clause.unit])
    if separator == "\n":  # a new line keeps the indentation of the one it stands by
        line_start = text.rfind("\n", 0, start) + 1
        separator += text[line_start:start]
    if clause.position == "before":
        return start, start, added + separator
    return end, end, separator + added


def _with_marker(text: str, part: Span, clause: Clause) -> str:
    """Return a replacing text; a list item's keeps the item's marker if it has none of its own."""
    new = clause.new.strip()
    marker = _marker_end(text, part) if clause.unit == "item" else -1
    if marker < 0 or _marker_end(new, (0, len(new))) >= 0:
        return new
    return text[part[0]:marker] + " " + new


def _deletion(text: str, start: int, end: int) -> tuple[int, int, str]:
    """Delete a part with one of its separators: the weaker (fewer line breaks) of the two."""
    before = start
    while before > 0 and text[before - 1].isspace():
        before -= 1
    after = end
    while after < len(text) and text[after].isspace():
        after += 1
    if before == 0:
        return 0, after, ""
    if after == len(text):
        return before, len(text), ""
    if text.count("\n", end, after) < text.count("\n", before, start):
        return start, after, ""
    return before, end, ""
