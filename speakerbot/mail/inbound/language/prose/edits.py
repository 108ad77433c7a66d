"""The edits of one rule written in prose: what follows ``Amend Rule 5 by`` or ``In Rule 5,``.

One sentence may make several edits, each checked in turn and none guessed:

- ``replacing [every occurrence of] [the text] "X" with "Y"`` (also ``changing "X" to
  [read] "Y"``), and more pairs after it: ``, and "C" with "D"``; ``wherever it appears``
  after "Y" only when that pair is the sentence's one edit;
- ``deleting "X"`` (or removing, striking), and more after it: ``, "Y" and "Z"``;
- ``(inserting|adding) [the text] "T" (before|after|following|prior to) "X"``, and more
  pairs after it;
- ``appending[ the following (text|paragraph|sentence)][ to the end of the rule]: <text>``;
- the edits of a part of a rule (a paragraph, sentence, list item or line) and of its
  title, read by :mod:`~speakerbot.mail.inbound.language.prose.parts`;
- the last edit may take its text after a colon or as a block below (``replacing "X" with
  the following:``);
- the block forms ``replacing[ the following]:`` <block> ``with[ the following]:``
  <block>, ``deleting the following:`` <block> and ``inserting, after the text:`` <block>
  ``the text:`` <block> (a text of one paragraph, joined as a sentence), where a block is
  indented, in braces (which may open on the edit's line: ``replacing {``), or (after a
  colon) the lines up to a blank line. Without the colon, only an indented or braced
  block, or a line that is one quotation, is taken (a wrapped sentence is not a block). A
  block edit may come last after others (``removing "X" and replacing:``); ``deleting the
  list item which reads:`` <block> is read only with ``and replace it with:`` <block> after
  it (its text replaced).

Edits are separated by commas, semicolons, ``and`` or ``then``; each may repeat ``by``.
The verbs are read as gerunds (``replacing``) or as commands (``replace``). Anything left
over that is none of these makes the whole sentence not understood.
"""

from __future__ import annotations

import re

from speakerbot.mail.inbound.language.prose.parts import UNIT_FORMS, one_paragraph, unit_clause
from speakerbot.mail.inbound.language.prose.text import COLON, Cursor, Q, form, unquote
from speakerbot.mail.inbound.language.results import Clause, ClauseKind

__all__: list[str] = []

END = r"\s*+[.;,]?\s*+(?:and|or)?\s*+"
KIND_OF_TEXT = (
    r"(?:(?:the|this)\s++(?:new\s++)?(?:text|words?|phrases?|sentences?|string)\s*+)?"
)
EVERY = r"(?P<every>(?:every|each|all)\s++(?:occurrences?|instances?)\s++of\s++)?"
EVERY_AFTER = (
    r"(?P<every2>\s*+,?\s*+(?:wherever\s++it\s++(?:appears|occurs)"
    r"|everywhere(?:\s++(?:it|that\s++it)\s++(?:appears|occurs))?"
    r"|throughout(?:\s++the\s++rule)?)\s*+,?)?"
)
FOLLOWING = (
    r"(?:the\s++following(?:\s++(?:new\s++)?(?:text|paragraphs?|sentence|list\s++item|item|words?))?)"
)
_POSITION = r"(?:immediately\s++)?(?P<position>before|after|prior\s++to|following|preceding)"
_COLON_TEXT = rf"\s*+{COLON}\s*+(?P<text>.*)"

_READING = r"(?:(?:reading|that\s++reads|which\s++reads)\s*+)?"
# "replacing "X" with "Y" wherever it appears": only as the sentence's one edit (see read_edits).
_EVERY_LAST = (
    r"(?P<every3>\s*+,?\s*+(?:wherever\s++it\s++(?:appears|occurs)|everywhere(?:\s++(?:it|that"
    r"\s++it)\s++(?:appears|occurs))?|throughout(?:\s++the\s++rule)?|in\s++each\s++place"
    r"\s++it\s++(?:appears|occurs)))?"
)
_REPLACE = form(
    rf"(?:replac|chang)(?:ing|e)\s++{EVERY}{KIND_OF_TEXT}{_READING}(?::\s*+)?(?P<old>{Q}){EVERY_AFTER}"
    rf"\s*+(?:with|to\s++read|to|by)\s*+{KIND_OF_TEXT}"
    rf"(?:(?P<new>{Q}){_EVERY_LAST}|(?:{FOLLOWING}\s*+)?{_COLON_TEXT})"
)
_DELETE = form(
    rf"(?:delet|remov|strik)(?:ing|e)(?:\s++out)?\s++{EVERY}{KIND_OF_TEXT}(?P<old>{Q}){EVERY_AFTER}"
    r"(?:\s++from\s++(?:it|the\s++rule|th(?:at|is)\s++rule))?"
)
_INSERT = form(
    rf"(?:insert|add|append)(?:ing)?\s++(?:{KIND_OF_TEXT}(?P<q>{Q})|(?P<following>{FOLLOWING}))"
    rf"\s*+,?\s*+{_POSITION}\s++"
    rf"{KIND_OF_TEXT}(?P<anchor>{Q})(?:\s*+,?{_COLON_TEXT})?"
)
_INSERT_FIRST = form(
    rf"insert(?:ing)?\s*+,?\s*+{_POSITION}\s++{KIND_OF_TEXT}(?P<anchor>{Q})\s*+,?\s*+"
    rf"(?:{FOLLOWING}\s*+)?(?:{_COLON_TEXT}|(?P<q>{Q}))"
)
_APPEND = form(
    r"(?:append|add)(?:ing)?\s*+,?\s*+(?:to\s++the\s++end\s++(?=the\s++following\b))?"
    rf"(?:{FOLLOWING}\s*+|(?:the|a|another)\s++(?:new\s++)?paragraph\s*+"
    r"(?:reading\s*+|as\s++follows\s*+)?)?"
    r"(?:as\s++a\s++new\s++paragraph\s*+)?"
    r"(?:(?:to\s++the\s++end|at\s++the\s++end|to\s++it)(?:\s++of\s++(?:the|that|this)\s++rule)?\s*+)?"
    rf"(?:,?\s*+after\s++the\s++(?:final|last)\s++sentence\s*+,?\s*+(?:{FOLLOWING}\s*+)?)?"
    rf"(?:{_COLON_TEXT}|(?P<q>{Q}))"
)
# More of the same edit after the first, its verb understood: "and "C" with "D"".
_MORE_REPLACE = form(
    rf"{KIND_OF_TEXT}(?P<old>{Q})\s*+(?:with|to)\s++{KIND_OF_TEXT}(?P<new>{Q})")
_MORE_DELETE = form(rf"{KIND_OF_TEXT}(?P<old>{Q})")
_MORE_INSERT = form(rf"(?P<q>{Q})\s*+,?\s*+{_POSITION}\s++{KIND_OF_TEXT}(?P<anchor>{Q})")
_SEPARATOR = re.compile(r"\s*+[,;]?\s*+(?:(?:and|then)\b\s*+(?:also\s++)?)?(?:by\s++)?", re.I)
_END = form(END)

# "replacing the paragraph:" <block> "with:" <block>: the text of the part, replaced as text.
_THE_PART = (
    r"(?:(?:the|this)\s++(?:paragraph|sentence|(?:list\s++)?item|bullet(?:\s++point)?|line)\s*+)"
)
# The old text in braces may open on the edit's own line: "by replacing {".
_REPLACE_BLOCK = form(
    rf"(?:replac|chang)(?:ing|e)\s*+(?:{FOLLOWING}\s*+)?(?:{_THE_PART}(?=:)|{KIND_OF_TEXT}{_READING})"
    r"(?:(?P<colon>:)|;)?\s*+(?P<brace>\{.*)?"
)
_DELETE_BLOCK = form(
    rf"(?:delet|remov|strik)(?:ing|e)(?:\s++out)?\s*+(?:{FOLLOWING}\s*+)?"
    rf"(?:(?P<part>{_THE_PART}(?:which|that)\s++reads\s*+)|{KIND_OF_TEXT})"
    r"(?P<colon>:)?\s*+(?P<brace>\{.*)?"
)
# "deleting the list item which reads:" <block> "and replace it with:" <block>.
_REPLACE_IT = form(
    r"\s*+and\s++(?:then\s++)?replac(?:e|ing)\s++it\s++with\s*+"
    r"(?::\s*+(?P<text>.*)|(?P<brace>\{.*))?"
)
_WITH_LINE = form(
    r"\s*+(?:with|by|to(?:\s++read)?(?:\s++as\s++follows)?)\s*+"
    rf"(?:{FOLLOWING}\s*+|{_THE_PART}(?=:)|{KIND_OF_TEXT})(?::\s*+(?P<text>.*)|(?P<brace>\{{.*))?"
)

_FIRST = ("replace", "delete", "insert", "insert-first", "append")
_FORMS = {"replace": _REPLACE, "delete": _DELETE, "insert": _INSERT,
          "insert-first": _INSERT_FIRST, "append": _APPEND}  # fmt: skip
# After an edit, the same edit may go on without its verb.
_MORE = {"replace": ("more-replace", _MORE_REPLACE), "delete": ("more-delete", _MORE_DELETE),
         "insert": ("more-insert", _MORE_INSERT), "insert-first": ("more-insert", _MORE_INSERT),
         "more-replace": ("more-replace", _MORE_REPLACE),
         "more-delete": ("more-delete", _MORE_DELETE),
         "more-insert": ("more-insert", _MORE_INSERT)}  # fmt: skip


def _every(match: re.Match[str]) -> bool:
    groups = match.groupdict()
    return bool(groups.get("every") or groups.get("every2") or groups.get("every3"))


def _position(words: str) -> str:
    # "prior to" and "preceding" are before; "following" is after.
    return "after" if words.lower() in ("after", "following") else "before"


def _item(body: str, at: int, previous: str | None) -> tuple[str, re.Match[str]] | None:
    """Return the edit that starts at ``body[at:]`` (its name and match), or None."""
    for name, pattern in UNIT_FORMS.items():
        match = pattern.match(body, at)
        if match is not None:
            return name, match
    for name in _FIRST:
        match = _FORMS[name].match(body, at)
        if match is not None:
            return name, match
    if previous is not None and previous in _MORE:
        name, pattern = _MORE[previous]
        match = pattern.match(body, at)
        if match is not None:
            return name, match
    return None


def _clause(cursor: Cursor, rule: int, name: str, match: re.Match[str]) -> Clause | None:
    """Build the clause of one edit, reading its text from below when it takes a block."""
    if name in UNIT_FORMS:
        return unit_clause(cursor, rule, name, match)
    groups = match.groupdict()
    text = groups.get("text")
    if name in ("replace", "more-replace"):
        new = unquote(groups["new"]) if groups.get("new") is not None else cursor.text(text, None)
        return Clause(ClauseKind.REPLACE, rule, old=unquote(match["old"]), new=new,
                      every=_every(match))
    if name in ("delete", "more-delete"):
        if (_SENTENCE.search(match.string, match.start(), match.start("old"))
                and not unquote(match["old"]).endswith(_ENDS_SENTENCE)):
            if _every(match):
                return None
            # "deleting the sentence "X"" without X's full stop: the sentence goes, its full
            # stop and space too (with the full stop, the text quoted goes, as before).
            return Clause(ClauseKind.REPLACE, rule, anchor=unquote(match["old"]), new="",
                          unit="sentence", whole=True)
        return Clause(ClauseKind.REPLACE, rule, old=unquote(match["old"]), new="",
                      every=_every(match))
    if name == "append":
        return _appended(cursor, rule, match)
    if groups.get("following") is not None and text is None:
        return None  # "inserting the following before "X"" with no text to insert
    if groups.get("q") is not None and text is not None:
        return None  # two texts to insert: which is meant is unclear
    return Clause(ClauseKind.INSERT, rule, cursor.text(text, groups.get("q")),
                  anchor=unquote(match["anchor"]), position=_position(match["position"]))


_SENTENCE = re.compile(r"\bsentence\b", re.IGNORECASE)
_ITEM = re.compile(r"\b(?:item|words?)\b", re.IGNORECASE)  # an item, or words: where?
_FOLLOWING_SENTENCE = re.compile(r"\bfollowing\s++sentence\b", re.IGNORECASE)
_PARAGRAPH = re.compile(r"\bparagraph\b", re.IGNORECASE)
_ENDS_SENTENCE = (".", "!", "?")


def _appended(cursor: Cursor, rule: int, match: re.Match[str]) -> Clause | None:
    """Build ``appending[ the following (paragraph|sentence|item)]: <text>`` to the rule.

    A sentence joins the last paragraph, as ``adding the sentence "X"`` does (unless it is
    added "as a new paragraph"); a list item named so belongs to a list, which the reader
    cannot find, and words join some sentence: they are quoted back.
    """
    groups = match.groupdict()
    starts = [match.start(group) for group in ("text", "q") if groups.get(group) is not None]
    words = match.string[match.start():min(starts, default=match.end())]
    text = cursor.text(groups.get("text"), groups.get("q"))
    if _ITEM.search(words):
        return None
    if _FOLLOWING_SENTENCE.search(words) and not _PARAGRAPH.search(words):
        return (Clause(ClauseKind.APPEND, rule, text, unit="paragraph", nth=-1)
                if one_paragraph(text) else None)
    return Clause(ClauseKind.APPEND, rule, text)


def read_edits(cursor: Cursor, rule: int, body: str) -> list[Clause] | None:
    """Read the edits ``body`` makes to ``rule``; None unless all of it is understood."""
    start = cursor.index
    block = _block_edit(cursor, rule, body)
    if block is not None:
        return [block]
    cursor.index = start
    clauses: list[Clause] = []
    at, previous = 0, None
    while True:
        if clauses:  # 'deleting "X" and replacing:' <block> 'with:' <block>: the last edit
            start = cursor.index
            block = _block_edit(cursor, rule, body, at)
            if block is not None:
                return [*clauses, block]
            cursor.index = start
        item = _item(body, at, previous)
        if item is None:
            return None
        name, match = item
        if previous is not None and name.startswith("more") and clauses[-1].every:
            return None  # does "every" reach the pairs after the first? Unclear.
        clause = _clause(cursor, rule, name, match)
        if clause is None or (match.groupdict().get("every3") and (
                clauses or not _END.fullmatch(body, match.end()))):
            return None  # "everywhere" after a pair among others: does it reach them all?
        clauses.append(clause)
        if match.groupdict().get("text") is not None or _END.fullmatch(body, match.end()):
            return clauses
        separator = _SEPARATOR.match(body, match.end())
        at, previous = (separator.end() if separator else match.end()), name


def _block_edit(cursor: Cursor, rule: int, body: str, at: int = 0) -> Clause | None:
    """Read ``replacing:`` <block> ``with:`` <block>, or ``deleting:`` <block> (from ``at``)."""
    match = _REPLACE_BLOCK.fullmatch(body, at)
    if match is not None:
        strict = match["colon"] is None
        old = (cursor.braced(match["brace"]) or "" if match["brace"] else
               cursor.block(stop=lambda text: _WITH_LINE.fullmatch(text) is not None,
                            strict=strict))
        cursor.skip_blank()
        if not old or cursor.index >= len(cursor.lines):
            return None
        with_line = _WITH_LINE.fullmatch(cursor.lines[cursor.index][1])
        if with_line is None:
            return None
        new = _text_after(cursor, with_line)
        return Clause(ClauseKind.REPLACE, rule, old=old, new=new) if new else None
    match = _DELETE_BLOCK.fullmatch(body, at)
    if match is not None:
        return _deleted_block(cursor, rule, match)
    match = _INSERT_BLOCK.fullmatch(body, at)
    if match is not None:
        return _inserted_block(cursor, rule, match)
    return None


# "inserting, after the text:" <block> "the text:" <block>: a text put next to another.
_INSERT_BLOCK = form(
    r"insert(?:ing)?\s*+,?\s*+(?P<position>before|after)\s++(?:the\s++(?:following\s++)?text"
    r"|the\s++following)\s*+:\s*+")
_THE_TEXT_LINE = form(
    r"\s*+(?:the\s++(?:following\s++)?(?:new\s++)?text|the\s++following)\s*+:\s*+")


def _inserted_block(cursor: Cursor, rule: int, match: re.Match[str]) -> Clause | None:
    """Read ``inserting, after the text:`` <block> ``the text:`` <block> as an INSERT.

    The text joins the text it goes next to as a sentence (the engine sets it off): only a
    text of one paragraph, next to a text that ends a sentence, is read so; a paragraph of
    its own would be said ("the following paragraph").
    """
    anchor = cursor.block(stop=lambda text: _THE_TEXT_LINE.fullmatch(text) is not None)
    cursor.skip_blank()
    if not anchor or cursor.index >= len(cursor.lines):
        return None
    if _THE_TEXT_LINE.fullmatch(cursor.lines[cursor.index][1]) is None:
        return None
    cursor.index += 1
    text = cursor.block()
    if not text or not one_paragraph(text) or not anchor.endswith(_ENDS_SENTENCE):
        return None
    return Clause(ClauseKind.INSERT, rule, text, anchor=anchor, position=match["position"].lower())


def _text_after(cursor: Cursor, with_line: re.Match[str]) -> str:
    """Read the new text that the line ``with:`` (or ``and replace it with:``) announces."""
    cursor.index += 1
    if with_line["brace"] is not None:
        return cursor.braced(with_line["brace"]) or ""
    if with_line["text"] is not None and with_line["text"].strip():
        return cursor.text(with_line["text"], None)
    return cursor.block(strict=with_line["text"] is None)


def _deleted_block(cursor: Cursor, rule: int, match: re.Match[str]) -> Clause | None:
    """Read ``deleting:`` <block>, and ``deleting the item which reads:`` <block> replaced."""
    # Without a colon only braces make a block: an indented line may be the sentence
    # going on ("by removing\n   the second paragraph").
    if match["colon"] is None and not match["brace"] and not cursor.starts_braced():
        return None
    if match["brace"]:
        old = cursor.braced(match["brace"]) or ""
    else:
        old = cursor.block(stop=lambda text: _REPLACE_IT.fullmatch(text) is not None)
    if not old:
        return None
    if not match["part"]:
        return Clause(ClauseKind.REPLACE, rule, old=old, new="")
    # A part deleted by its text alone would leave its marker or its break behind: only
    # the part's text replaced by another is read.
    cursor.skip_blank()
    line = cursor.lines[cursor.index][1] if cursor.index < len(cursor.lines) else ""
    replaced = _REPLACE_IT.fullmatch(line)
    new = _text_after(cursor, replaced) if replaced is not None else ""
    return Clause(ClauseKind.REPLACE, rule, old=old, new=new) if new else None


def counted_after_an_edit(clauses: tuple[Clause, ...], previous: int | None) -> bool:
    """Whether a part named by its place follows another edit of its rule that may move it.

    "deleting the first paragraph and deleting the second paragraph" may count the second
    in the rule as it stands (the first two go) or as the first edit left it (the first and
    third): which is meant is unclear, so the sentence is quoted back. ``previous`` is the
    rule an edit just before these went on editing; what it did is not at hand, so any place
    counted in it is unclear too.
    """
    edits: list[Clause] = []
    for clause in clauses:
        if clause.nth and (clause.rule == previous
                           or any(_moves(edit, clause.unit) for edit in edits
                                  if edit.rule == clause.rule)):
            return True
        edits.append(clause)
    return False


_SEPARATORS = {"paragraph": "\n", "line": "\n", "item": "\n", "sentence": "\n.!?"}


def _moves(edit: Clause, unit: str) -> bool:
    """Whether ``edit`` may add, remove or move a ``unit`` of its rule.

    A title, or a quoted text replaced or inserted that holds no separator of the unit
    (a line break; for a sentence also its end), leaves them where they are.
    """
    if edit.kind is ClauseKind.RETITLE:
        return False
    if edit.unit or edit.kind not in (ClauseKind.REPLACE, ClauseKind.INSERT):
        return True
    words = edit.old + edit.new + edit.text
    return any(mark in words for mark in _SEPARATORS.get(unit, "\n"))
