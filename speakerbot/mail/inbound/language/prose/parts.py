"""The edits of a part of a rule written in prose: a paragraph, a sentence, a list item, a line.

Read inside ``Amend Rule 5 by ...`` (see :mod:`.edits`), each into a clause with a
``unit`` ("paragraph", "sentence", "item" or "line") and the part it works on: the one
whose text begins with ``anchor`` (``beginning "X"``), the one whose whole text it is
(``whole``: the part quoted itself, ``the list item "X"``), or the ``nth`` (1 the first,
-1 the last):

- ``replacing the (paragraph|sentence|list item|line) beginning "X" with: <text>`` and
  ``replacing the (first|second|...|last|final) paragraph with: <text>`` → REPLACE (also
  ``with the sentence`` <block>, and ``amending the list item beginning "X" to read: <text>``);
- ``deleting the paragraph beginning "X"``, ``deleting the list item "X"``, ``deleting the
  [following] paragraph:`` <block> (or line) → REPLACE with an empty ``new`` (the part and its
  separator go);
- ``appending the following to the paragraph beginning "X": <text>``, ``appending to the
  last paragraph the following sentence: <text>`` → APPEND to that part;
  ``appending the following paragraph to the paragraph ...: <text>`` → INSERT a paragraph
  after it;
- ``adding the sentence "X"`` → APPEND to the last paragraph (a sentence added to a rule
  joins its last paragraph, as players mean it; a new paragraph is ``appending``);
- ``adding the sentence "T" before the sentence beginning "X"`` → INSERT a new sentence
  (also a paragraph, a list item or a line, after or before one named);
- ``inserting the following (paragraph|list item|line) (before|after) "X": <text>`` (or
  after ``the paragraph beginning "X"``) → INSERT a new part; also ``adding`` or
  ``appending``, and ``the following[ text]`` before or after a part named, which puts a
  new part of that kind; ``inserting the following line between the line "A" and the
  line "B"`` is taken as after A (the rule is not at hand to check that B follows A);
- ``appending the following text to the first paragraph``, ``adding at the end of the
  first paragraph "X"`` → APPEND joined to that paragraph (one paragraph of text only);
- ``prepending the following text: <text>`` (or ``the paragraph:``) → INSERT a paragraph
  before the first;
- ``changing its title to "T"`` (or ``retitling it "T"``) → RETITLE;
- ``amending its text to[ read]: <text>`` → AMEND (after a retitling: ``changing its title
  to "T" and amending its text to:``).

A part is also counted in words after its kind (``paragraph four``) or named with ``its``
(``its first paragraph``). A part named both by an ordinal and a quotation, or an inserted
part of another kind than the part it goes next to, is unclear: none is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from speakerbot.mail.inbound.language.prose.text import COLON, Cursor, Q, form, unquote
from speakerbot.mail.inbound.language.results import Clause, ClauseKind

__all__ = ["CARDINAL", "ORDINAL", "UNIT", "UNIT_FORMS", "nth", "one_paragraph", "unit_clause",
           "unit_of"]

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
            "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "last": -1,
            "final": -1}  # fmt: skip
ORDINAL = "(?:" + "|".join(ORDINALS) + ")"
# "paragraph four": a place counted in words (a figure may be a label: "paragraph 4" is not).
CARDINALS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
CARDINAL = "(?:" + "|".join(CARDINALS) + ")"
UNIT = r"(?:paragraph|sentence|(?:list\s++)?item|bullet(?:\s++point)?|line)"
_BEGINNING_WORDS = (
    r"(?:beginning|starting|that\s++(?:begins|starts)|which\s++(?:begins|starts))"
    r"(?:\s++with)?\s*+,?\s*+"
)
_BEGINNING = rf"(?:{_BEGINNING_WORDS})?"
_OF_RULE = r"(?:\s++of\s++(?:the|this|that)\s++rule|\s++of\s++it)?"
_PART = (
    rf"(?:(?:the|its)\s++(?:(?P<ordinal>{ORDINAL})\s++(?P<ord_unit>{UNIT})|(?!sentence\s*+{Q})"
    rf"(?P<unit>{UNIT})\s++(?P<beginning>{_BEGINNING_WORDS})?(?P<anchor>{Q}))"
    rf"|(?:the\s++)?(?P<card_unit>{UNIT})\s++(?P<cardinal>{CARDINAL})\b){_OF_RULE}"
)
_FOLLOWING = r"(?:the\s++following(?:\s++(?:new\s++)?(?:text|sentences?|words?|paragraph))?\s*+)"
# A quotation (after a colon or not) is the text when the sentence ends or goes on after it.
_TEXT = (
    rf"(?:\s*+:?\s*+(?P<q>{Q})(?=\s*+[.;,]?\s*+(?:$|and\b|then\b))|\s*+{COLON}\s*+(?P<text>.*)"
    r"|(?P<below>\s*+$))"
)
_A_PARAGRAPH = r"(?:(?:the|a)\s++(?:new\s++)?paragraph\s*+)"
# "inserting the following after the first paragraph": a new part of the kind named after it
# (never before a quotation: "inserting the following after "X"" puts text, not a part).
_SAME_UNIT = (
    r"(?P<same>the\s++following(?:\s++(?:new\s++)?text)?)"
    rf"(?:\s*+,?\s*+as\s++an?\s++(?:new\s++|separate\s++)?(?P<as_unit>{UNIT}))?"
    r"(?=\s*+,?\s*+(?:immediately\s++)?(?:before|after)\s++[^\"“”'\s])"
)
_INSERTED = rf"(?:the\s++following|an?(?:\s++new)?|the\s++new)\s++(?:new\s++)?(?P<new_unit>{UNIT})"

UNIT_FORMS: dict[str, re.Pattern[str]] = {
    "part-replace": form(
        rf"(?:(?:replac|chang)(?:ing|e)|amend(?:ing)?)\s++(?:the\s++text\s++of\s++)?{_PART}"
        rf"\s*+,?\s*+(?:with|to\s++read(?:\s*+,?\s*+in\s++(?:its\s++)?(?:full|entirety))?|by)"
        rf"\s*+(?:{_FOLLOWING}|the\s++(?:following|new)\s++{UNIT}"
        rf"\s*+|the\s++{UNIT}(?=\s*+:?\s*+(?:{Q}|$)))?{_TEXT}"),
    "part-delete-block": form(
        rf"(?:delet|remov|strik)(?:ing|e)(?:\s++out)?\s++the\s++(?:following\s++)?(?P<unit>{UNIT})"
        r"\s*+:\s*+"
        r"(?P<text>.*)"),
    "part-delete": form(rf"(?:delet|remov|strik)(?:ing|e)(?:\s++out)?\s++{_PART}"),
    "part-append": form(
        rf"(?:(?:append|add)(?:ing)?\s*+{_FOLLOWING}?(?:to(?:\s++the\s++end\s++of)?|at\s++the\s++end"
        rf"\s++of)|insert(?:ing)?\s*+{_FOLLOWING}?(?:at|to)\s++the\s++end\s++of)\s++{_PART}"
        rf"\s*+,?\s*+{_FOLLOWING}?{_TEXT}"),
    # "adding the sentence "X" before the sentence that begins "Y"": the text before the place.
    "part-insert-quoted": form(
        rf"(?:insert|add)(?:ing)?\s++(?:the|a)\s++(?:new\s++)?(?P<new_unit>{UNIT})\s*+,?\s*+"
        rf"(?P<q>{Q})\s*+,?\s*+(?:immediately\s++)?(?P<position>before|after)\s++{_PART}"),
    "sentence-add": form(
        rf"(?:add|append)(?:ing)?\s++the\s++(?:new\s++)?sentence\s*+,?\s*+:?\s*+(?P<q>{Q})"
        r"(?:\s*+(?:to|at)\s++the\s++end(?:\s++of\s++(?:the|this|that)\s++rule)?)?"),
    "part-insert": form(
        rf"(?:insert|add|append)(?:ing)?\s++(?:{_INSERTED}|{_SAME_UNIT})\s*+,?\s*+"
        r"(?:immediately\s++)?(?P<position>before|after)"
        rf"\s++(?:{_PART}|(?P<bare>{Q}))\s*+,?{_TEXT}"),
    "part-between": form(
        rf"insert(?:ing)?\s++{_INSERTED}\s*+,?\s*+between\s++{_PART}\s*+,?\s*+and\s++"
        rf"(?:the\s++{UNIT}\s++{_BEGINNING})?{Q}\s*+,?{_TEXT}"),
    "prepend": form(
        rf"prepend(?:ing)?\s*+,?\s*+(?:{_FOLLOWING}|{_A_PARAGRAPH})?"
        rf"(?:to\s++(?:the|this|that)\s++rule\s*+)?{_TEXT}"),
    "retitle": form(
        r"(?:(?:chang|amend)(?:ing|e)\s++its\s++title\s++(?:from\s++"
        rf"{Q}\s*+,?\s*+)?to(?:\s++read)?|retitl(?:ing|e)\s++it(?:\s++to)?)\s*+:?\s*+(?P<q>{Q})"),
    "amend-text": form(
        r"(?:amend|chang)(?:ing|e)\s++its\s++text\s++to(?:\s++read)?(?:\s++as\s++follows)?"
        r"\s*+:\s*+(?P<text>.*)"),
}  # fmt: skip
"""The forms, by name, tried before the edits of quoted text (they are more particular)."""


def _as_matched(word: str, choices: Iterable[str]) -> str:
    """Return the choice ``word`` is, compared as the forms compare (any case).

    Not by ``lower()``: the forms' IGNORECASE also takes "ſ" for "s" and "ı" for "i", which
    ``lower()`` leaves as they are ("laſt" matched the form but named no ordinal).
    """
    return next((choice for choice in choices
                 if re.fullmatch(re.escape(choice), word, re.IGNORECASE)), word.lower())


def unit_of(words: str) -> str:
    """Return the unit a player's word names: ``list item`` is "item"."""
    word = _as_matched(words.split()[0], ("paragraph", "sentence", "list", "item", "bullet",
                                          "line"))
    return {"list": "item", "bullet": "item"}.get(word, word)


def nth(ordinal: str) -> int:
    """Return the position an ordinal names: 1 the first, -1 the last."""
    return ORDINALS[_as_matched(ordinal, ORDINALS)]


def _part(match: re.Match[str]) -> tuple[str, str, int, bool]:
    """Return the unit, anchor, nth and wholeness of the part a match names.

    A part quoted itself (``the list item "X"``) is the one whose whole text is X; a part
    quoted by its beginning (``beginning "X"``) is the one whose text begins with X.
    """
    groups = match.groupdict()
    if groups.get("ordinal"):
        return unit_of(groups["ord_unit"]), "", nth(groups["ordinal"]), False
    if groups.get("cardinal"):
        number = CARDINALS[_as_matched(groups["cardinal"], CARDINALS)]
        return unit_of(groups["card_unit"]), "", number, False
    if groups.get("anchor") is not None:
        whole = groups.get("beginning") is None
        return unit_of(groups["unit"]), unquote(groups["anchor"]), 0, whole
    return unit_of(groups["unit"]), "", 0, False


def _text(cursor: Cursor, match: re.Match[str]) -> str:
    """Return the form's text: quoted, after its colon, or an indented or braced block."""
    groups = match.groupdict()
    if groups.get("below") is not None:  # no colon: a wrapped sentence is not a block
        return cursor.block(strict=True)
    return cursor.text(groups.get("text"), groups.get("q"))


def _insert(cursor: Cursor, rule: int, name: str, match: re.Match[str]) -> Clause | None:
    """Build an INSERT of a new part next to the part named (``between``: after the first)."""
    position = "after" if name == "part-between" else match["position"].lower()
    if match.groupdict().get("bare") is not None:
        new_unit = unit_of(match["new_unit"])
        unit, anchor, number, whole = new_unit, unquote(match["bare"]), 0, True
    else:
        unit, anchor, number, whole = _part(match)
        new_unit = unit_of(match["new_unit"] or match["as_unit"] or match["ord_unit"]
                           or match["unit"] or match["card_unit"])
    if unit != new_unit:
        return None  # "the following line after the paragraph ...": which is meant?
    text = _text(cursor, match)
    return Clause(ClauseKind.INSERT, rule, text, anchor=anchor, position=position, unit=unit,
                  nth=number, whole=whole) if text else None


_ITEM_LINE = re.compile(r"[ \t]*+(?:[-*•]|\(?[0-9]{1,3}[.)]|\([A-Za-z0-9]{1,4}\)|[a-z]\))[ \t]++\S")
"""A line that is an item of a list: a bullet, a figure or a letter in brackets, then text."""
_ENDS_PARAGRAPH = (".", "!", "?", ":", ";", '"', "”", ")")
_NEW_PARAGRAPH = re.compile(r"following\s++(?:new\s++)?paragraph", re.IGNORECASE)
_SENTENCE = re.compile(r"sentence", re.IGNORECASE)
# Text put "at the end of" a paragraph, or "the following text" appended to it, joins it.
_JOINED = re.compile(r"\bat\s++the\s++end\s++of\b|\btext\b", re.IGNORECASE)


def _form_words(match: re.Match[str]) -> str:
    """Return the form's own words: the match up to its text (not the player's text)."""
    starts = [match.start(group) for group in ("q", "text", "below")
              if match.groupdict().get(group) is not None]
    return match.string[match.start():min(starts, default=match.end())]


def _append(cursor: Cursor, rule: int, match: re.Match[str],
            named: tuple[str, str, int, bool]) -> Clause | None:
    """Build the clause of ``appending ... to <part>``: joined to it, or a paragraph after it.

    "the following paragraph" appended to a paragraph is a new paragraph after it; appended
    to another kind of part it is unclear. Whether a text appended to the nth paragraph is
    joined to it is told by the form's words ("sentence"), not by the player's text.
    """
    unit, anchor, number, whole = named
    words = _form_words(match)
    if _NEW_PARAGRAPH.search(words):
        if unit != "paragraph":
            return None
        text = _text(cursor, match)
        return Clause(ClauseKind.INSERT, rule, text, anchor=anchor, position="after",
                      unit=unit, nth=number, whole=whole) if text else None
    if number and not _SENTENCE.search(words):
        if unit != "paragraph" or not _JOINED.search(words):
            return None  # "appending to the last paragraph: <block>": a new one, or joined?
        text = _text(cursor, match)
        if not text or not one_paragraph(text):
            return None  # paragraphs joined to a paragraph: which is meant is unclear
        return Clause(ClauseKind.APPEND, rule, text, unit=unit, nth=number)
    text = _text(cursor, match)
    if not one_paragraph(text):
        return None  # a list item, or paragraphs, joined to a part: which is meant is unclear
    return Clause(ClauseKind.APPEND, rule, text, anchor=anchor, unit=unit, nth=number,
                  whole=whole)


def one_paragraph(text: str) -> bool:
    """Whether a text is one paragraph of prose (no blank line, no line a list item)."""
    return all(line.strip() and not _ITEM_LINE.match(line) for line in text.split("\n"))


def unit_clause(cursor: Cursor, rule: int, name: str, match: re.Match[str]) -> Clause | None:
    """Build the clause of one form of :data:`UNIT_FORMS`, reading its text from below."""
    if name in ("part-insert", "part-between", "part-insert-quoted"):
        return _insert(cursor, rule, name, match)
    if name == "retitle":
        title = unquote(match["q"])
        return Clause(ClauseKind.RETITLE, rule, title) if "\n" not in title else None
    if name == "amend-text":
        return Clause(ClauseKind.AMEND, rule, cursor.text(match["text"], None))
    if name == "prepend":
        text = _text(cursor, match)
        if _SENTENCE.search(_form_words(match)) or not text.rstrip().endswith(_ENDS_PARAGRAPH):
            return None  # a sentence or a phrase put first: joined, or a paragraph? Unclear
        return Clause(ClauseKind.INSERT, rule, text, position="before", unit="paragraph", nth=1)
    if name == "sentence-add":
        return Clause(ClauseKind.APPEND, rule, unquote(match["q"]), unit="paragraph", nth=-1)
    unit, anchor, number, whole = _part(match)
    if name == "part-append":
        return _append(cursor, rule, match, (unit, anchor, number, whole))
    if name == "part-delete-block":
        anchor, whole = cursor.text(match["text"], None), True
    elif name == "part-replace":
        new = _text(cursor, match)
        return Clause(ClauseKind.REPLACE, rule, anchor=anchor, new=new, unit=unit,
                      nth=number, whole=whole) if new else None
    return Clause(ClauseKind.REPLACE, rule, anchor=anchor, new="", unit=unit,
                  nth=number, whole=whole) if anchor or number else None
