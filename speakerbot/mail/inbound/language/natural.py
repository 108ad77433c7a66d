"""The rule changes players write in prose: ``Amend Rule 205 by replacing "a" with "b"``.

The forms (any case; a rule number may be followed by its title in parentheses; a line may
start with a list marker such as ``1.``, ``a)``, ``(a)`` or ``-``):

- ``Amend Rule N to read[ as follows]: <text>`` → AMEND;
- ``Amend Rule N by replacing [every occurrence of|the text] "X" with "Y"`` (and the block
  form ``by replacing:`` <block> ``with:`` <block>) → REPLACE;
- ``Amend Rule N by deleting "X"`` (or removing) → REPLACE with empty new text;
- ``Amend Rule N by appending[ the following (text|paragraph|sentence)]: <text>`` → APPEND;
- ``Amend Rule N by inserting <"T" or the following ...:> (before|after) "X"`` → INSERT;
- ``Repeal Rule N``, ``Enact a new rule[ titled "T"][ with the following text]: <text>``,
  ``Transmute Rule N[ to (mutable|immutable)]``.

Quoted text is in straight or curly double quotes (it may run over several lines); a block
after a colon is the indented lines below, or else the lines up to a blank line, the next
clause or ``END RULE``. Rules have no titles in speakerbot, so a title is not kept.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from speakerbot.mail.inbound.language.results import Clause, ClauseKind

__all__ = ["NATURAL_FORMS"]

NATURAL_FORMS: tuple[tuple[str, str], ...] = (
    ('Amend Rule <n> by replacing "<old>" with "<new>"',
     'Amend Rule 205 by replacing "one week" with "three days"'),
    ('Amend Rule <n> by deleting "<text>"', 'Amend Rule 205 by deleting " or longer"'),
    ("Amend Rule <n> by appending the following paragraph: <text>",
     "Amend Rule 205 by appending: Votes may be changed."),
    ('Amend Rule <n> by inserting "<text>" before|after "<anchor>"',
     'Amend Rule 205 by inserting " calendar" after "three"'),
    ("Amend Rule <n> to read as follows: <text>",
     "Amend Rule 205 to read: Voting lasts three days."),
    ("Repeal Rule <n>", "Repeal Rule 105"),
    ('Enact a new rule[ titled "<title>"] with the following text: <text>',
     "Enact a new rule: Dice are rolled by the Speaker."),
    ("Transmute Rule <n>[ to mutable|immutable]", "Transmute Rule 105"),
)  # fmt: skip
"""The forms players write in prose, with an example of each: read by HELP and the docs."""

_Lines = tuple[tuple[int, str], ...]

_MARKER = re.compile(r"\s*(?:\(?[0-9]{1,3}[.)]|\(?[A-Za-z][.)]|\([A-Za-z0-9]{1,4}\)|[-*•])\s+")
_Q = r"(?:\"[^\"]*\"|“[^”\"]*[”\"]|”[^”\"]*”)"
_TITLE = r"(?:\s*,?\s*(?:\((?:[^()]|\([^()]*\))*\)|" + _Q + r"))?"
_RULE = rf"rule\s+#?(?P<rule>[0-9]{{1,9}}){_TITLE}"
_AMEND = rf"amend\s+{_RULE}\s*,?\s*"
_END = r"\s*[.;,]?\s*(?:and|or)?\s*"
_KIND_OF_TEXT = r"(?:(?:the|this)\s+(?:text|words?|phrases?|sentences?|string)\s*)?"
_EVERY = r"(?P<every>(?:every|each|all)\s+(?:occurrences?|instances?)\s+of\s+)?"
_EVERY_AFTER = (
    r"(?P<every2>\s*,?\s*(?:wherever\s+it\s+(?:appears|occurs)|everywhere"
    r"|throughout(?:\s+the\s+rule)?)\s*,?)?"
)
_FOLLOWING = (
    r"(?:the\s+following(?:\s+(?:new\s+)?(?:text|paragraph|sentence|list\s+item|item|words?))?)"
)


def _form(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


_TO_READ = _form(
    rf"{_AMEND}(?:by\s+(?:changing|amending)\s+it\s+)?(?:so\s+as\s+)?to\s+read\s*,?"
    r"(?:\s*in\s+(?:its\s+)?(?:entirety|full|whole))?(?:\s*as\s+follows)?"
    rf"\s*(?::\s*(?P<text>.*)|(?P<q>{_Q}){_END})"
)
_WHOLE_TEXT = _form(
    rf"{_AMEND}by\s+replacing\s+(?:its|the(?:\s+entire|\s+whole)?)\s+text(?:\s+of\s+the\s+rule)?"
    rf"(?:\s+in\s+its\s+entirety)?\s+with\s*(?:{_FOLLOWING}\s*)?(?::\s*(?P<text>.*)|(?P<q>{_Q}){_END})"
)
_REPLACE = _form(
    rf"{_AMEND}by\s+(?:replacing|changing)\s+{_EVERY}{_KIND_OF_TEXT}(?P<old>{_Q}){_EVERY_AFTER}"
    rf"\s*(?:with|to\s+read|to|by)\s+{_KIND_OF_TEXT}(?:(?P<new>{_Q}){_END}|(?:{_FOLLOWING}\s*)?:\s*(?P<text>.*))"
)
_REPLACE_BLOCK = _form(
    rf"{_AMEND}by\s+(?:replacing|changing)\s*(?:{_FOLLOWING}\s*)?{_KIND_OF_TEXT}:\s*"
)
_WITH_LINE = _form(rf"\s*(?:with|by)\s*(?:{_FOLLOWING}\s*)?:\s*(?P<text>.*)")
_DELETE = _form(
    rf"{_AMEND}by\s+(?:deleting|removing|striking)(?:\s+out)?\s+{_EVERY}{_KIND_OF_TEXT}"
    rf"(?P<old>{_Q}){_EVERY_AFTER}(?:\s+(?:from\s+it|from\s+the\s+rule))?{_END}"
)
_DELETE_BLOCK = _form(
    rf"{_AMEND}by\s+(?:deleting|removing|striking)(?:\s+out)?\s*(?:{_FOLLOWING}\s*)?"
    rf"{_KIND_OF_TEXT}:\s*"
)
_APPEND = _form(
    rf"{_AMEND}by\s+(?:appending|adding)\s*(?:{_FOLLOWING}\s*)?(?:as\s+a\s+new\s+paragraph\s*)?"
    r"(?:(?:to\s+the\s+end|at\s+the\s+end|to\s+it)(?:\s+of\s+(?:the|that)\s+rule)?\s*)?"
    rf"(?::\s*(?P<text>.*)|(?P<q>{_Q}){_END})"
)
_INSERT = _form(
    rf"{_AMEND}by\s+inserting\s+(?:(?P<q>{_Q})|{_FOLLOWING})\s*,?\s*"
    rf"(?:immediately\s+)?(?P<position>before|after|prior\s+to)\s+{_KIND_OF_TEXT}"
    rf"(?P<anchor>{_Q})\s*(?::\s*(?P<text>.*)|" + _END + ")"
)
_INSERT_FIRST = _form(
    rf"{_AMEND}by\s+inserting\s*,?\s*(?:immediately\s+)?(?P<position>before|after|prior\s+to)\s+"
    rf"{_KIND_OF_TEXT}(?P<anchor>{_Q})\s*,?\s*(?:{_FOLLOWING}\s*)?(?::\s*(?P<text>.*)|"
    rf"(?P<q>{_Q}){_END})"
)
_REPEAL = _form(rf"repeal\s+{_RULE}{_END}")
# "Repeal Rules 1, 2 and 3", "Repeal Rule 1 and Rule 2": numbers only (titles make it a
# single rule's form above, or none).
_REPEAL_MANY = _form(
    r"repeal\s+rules?\s+(?P<numbers>#?[0-9]{1,9}(?:\s*(?:,|,?\s*and)\s*(?:rule\s+)?#?[0-9]{1,9})+)"
    + _END)
_NUMBER = re.compile(r"[0-9]{1,9}")
_TRANSMUTE = _form(
    rf"transmute\s+{_RULE}(?:\s*,?\s*to\s+(?:be\s+)?(?P<target>mutable|immutable))?{_END}")
_ENACT = _form(
    r"enact\s+an?\s+new\s+(?P<immutable>immutable\s+)?(?:[\w-]+\s+){0,2}?rule\s*,?\s*"
    rf"(?:(?:titled|entitled|named|called|with\s+the\s+title)\s+(?P<title>{_Q})\s*,?\s*)?"
    r"(?:(?:with\s+the\s+following\s+text|with\s+the\s+text|reading(?:\s+as\s+follows)?|"
    r"which\s+reads|as\s+follows)\s*)?"
    rf"(?::\s*(?P<text>.*)|(?P<q>{_Q}){_END})"
)
_STARTS_CLAUSE = _form(
    r"(?:amend|repeal|transmute)\s+rules?\b|enact\s+(?:an?\s+new\b|(?:immutable\s+)?rule\b)"
    r"|set\s+\S+\s*="
)
_SPEAKS_OF_CHANGE = _form(
    r"(?:(?:amend|repeal|enact|transmute|retitle|renumber|replace|insert|append|delete|remove"
    r"|create|change|modify|strike)\w*\b.*?\brules?\s+#?[0-9]"
    r"|(?:enact|create)\b.*?\bnew\s+(?:[\w-]+\s+){0,2}?rule\b"
    r"|rules?\s+#?[0-9]+.*?\b(?:is|are)\s+(?:hereby\s+)?(?:amended|repealed|enacted|transmuted)"
    r"|in\s+rule\s+#?[0-9]+\s*,?\s*(?:replace|insert|append|delete|remove|change|strike))"
)


def is_end_rule(text: str) -> bool:
    """Tell whether a line is ``END RULE`` (any case, a trailing ``.`` or ``!`` allowed)."""
    return " ".join(text.upper().rstrip(".!").split()) == "END RULE"


def _unmarked(text: str) -> str:
    """Return the line without its list marker (``1.``, ``a)``, ``(a)``, ``-``) and outer space."""
    match = _MARKER.match(text)
    return (text[match.end() :] if match else text).strip()


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def starts_clause(text: str) -> bool:
    """Tell whether a line opens a clause (keyword or natural form), so a block ends there."""
    return _STARTS_CLAUSE.match(_unmarked(text)) is not None


def speaks_of_change(text: str) -> bool:
    """Tell whether a line seems to change a rule (used for the lines no form understood)."""
    return _SPEAKS_OF_CHANGE.match(_unmarked(text)) is not None


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"“”" and text[-1] in "\"”“":
        inner = text[1:-1]
        if not any(mark in inner for mark in "\"“”"):
            return inner
    return text


def _open_quote(text: str) -> bool:
    """Tell whether ``text`` leaves a double quote open (so the quote runs on to later lines)."""
    straight = text.count('"') % 2 == 1
    return straight or text.count("“") > text.count("”")


@dataclass(frozen=True)
class Read:
    """What a natural form read: its clauses and the index of the first line after it.

    One clause, but for ``Repeal Rules 1, 2 and 3`` (one each).
    """

    clauses: tuple[Clause, ...]
    next: int


class _Cursor:
    """The proposal's lines and where reading stands, for one natural clause."""

    def __init__(self, lines: _Lines, index: int) -> None:
        self.lines = lines
        self.index = index
        self.indent = _indent(lines[index][1])

    def head(self, wrapped: int) -> str | None:
        """Return the clause's line with ``wrapped`` more lines, and more while a quote is open.

        Mail clients wrap long lines, so a clause may run over a few lines; they are joined
        with a space (a blank line inside a quote keeps its paragraph break). None when there
        are not ``wrapped`` non-blank lines of text after the clause's line.
        """
        start, lines = self.index, self.lines
        text = _unmarked(lines[start][1])
        for index in range(start + 1, start + 1 + wrapped):
            if index >= len(lines) or not lines[index][1].strip():
                return None
            if is_end_rule(lines[index][1]) or starts_clause(lines[index][1]):
                return None
            text += " " + lines[index][1].strip()
        self.index = start + 1 + wrapped
        first, after_first = text, self.index
        limit = min(len(lines), self.index + 50)
        while _open_quote(text) and self.index < limit:
            line = lines[self.index][1].strip()
            text += (" " + line) if line else "\n\n"
            text = text.replace("\n\n ", "\n\n")
            self.index += 1
        if _open_quote(text):  # never closed: read the clause's lines alone
            self.index, text = after_first, first
        return text

    def block(self, stop: Callable[[str], bool] | None = None) -> str:
        """Read the block after a colon: indented lines, or lines up to a blank line."""
        lines, index = self.lines, self.index
        while index < len(lines) and not lines[index][1].strip():
            index += 1
        taken: list[str] = []
        indented = index < len(lines) and _indent(lines[index][1]) > self.indent
        while index < len(lines):
            text = lines[index][1]
            if is_end_rule(text) or (stop is not None and stop(text)):
                break
            if indented and text.strip() and _indent(text) <= self.indent:
                break
            if not indented and (not text.strip() or starts_clause(text)):
                break
            taken.append(text)
            index += 1
        if index < len(lines) and is_end_rule(lines[index][1]):
            index += 1
        self.index = index
        return _unquote(textwrap.dedent("\n".join(taken)).strip("\n").rstrip())

    def text(self, inline: str | None, quoted: str | None) -> str:
        """Return the text of a form: quoted, given after the colon, or the block below."""
        if quoted is not None:
            return _unquote(quoted)
        if inline is not None and inline.strip():
            return _unquote(inline)
        return self.block()


def _position(words: str) -> str:
    return "after" if words.lower() == "after" else "before"  # "prior to" is before


def _rule(match: re.Match[str]) -> int:
    return int(match.group("rule"))


def _every(match: re.Match[str]) -> bool:
    return bool(match.group("every") or match.group("every2"))


def _amend_forms(cursor: _Cursor, head: str) -> Clause | None:
    for pattern in (_TO_READ, _WHOLE_TEXT):
        match = pattern.fullmatch(head)
        if match is not None:
            return Clause(ClauseKind.AMEND, _rule(match), cursor.text(match["text"], match["q"]))
    match = _REPLACE.fullmatch(head)
    if match is not None:
        quoted = match["new"]
        new = _unquote(quoted) if quoted is not None else cursor.text(match["text"], None)
        return Clause(
            ClauseKind.REPLACE, _rule(match), old=_unquote(match["old"]), new=new,
            every=_every(match),
        )
    match = _REPLACE_BLOCK.fullmatch(head)
    if match is not None:
        old = cursor.block(stop=lambda text: _WITH_LINE.fullmatch(text) is not None)
        if cursor.index >= len(cursor.lines):
            return None
        with_line = _WITH_LINE.fullmatch(cursor.lines[cursor.index][1])
        if with_line is None:
            return None
        cursor.index += 1
        new = cursor.text(with_line["text"], None)
        return Clause(ClauseKind.REPLACE, _rule(match), old=old, new=new)
    return _change_forms(cursor, head)


def _change_forms(cursor: _Cursor, head: str) -> Clause | None:
    match = _DELETE.fullmatch(head)
    if match is not None:
        old = _unquote(match["old"])
        return Clause(ClauseKind.REPLACE, _rule(match), old=old, new="", every=_every(match))
    match = _DELETE_BLOCK.fullmatch(head)
    if match is not None:
        return Clause(ClauseKind.REPLACE, _rule(match), old=cursor.block(), new="")
    match = _APPEND.fullmatch(head)
    if match is not None:
        return Clause(ClauseKind.APPEND, _rule(match), cursor.text(match["text"], match["q"]))
    for pattern in (_INSERT, _INSERT_FIRST):
        match = pattern.fullmatch(head)
        if match is not None:
            return Clause(
                ClauseKind.INSERT, _rule(match), cursor.text(match["text"], match["q"]),
                anchor=_unquote(match["anchor"]), position=_position(match["position"]),
            )
    return None


def _other_forms(cursor: _Cursor, head: str) -> Clause | None:
    match = _REPEAL.fullmatch(head)
    if match is not None:
        return Clause(ClauseKind.REPEAL, _rule(match))
    match = _TRANSMUTE.fullmatch(head)
    if match is not None:
        return Clause(ClauseKind.TRANSMUTE, _rule(match), (match["target"] or "").lower())
    match = _ENACT.fullmatch(head)
    if match is not None:
        text = cursor.text(match["text"], match["q"])
        return Clause(ClauseKind.ENACT, None, text, immutable=bool(match["immutable"]))
    return None


def read_natural(lines: _Lines, index: int) -> Read | None:
    """Read a natural form starting at ``lines[index]``; None when the line is none of them.

    A form whose text comes out empty (``to read:`` with nothing below) is none either.
    """
    if not starts_clause(lines[index][1]):
        return None
    for wrapped in range(_MAX_WRAPPED + 1):
        cursor = _Cursor(lines, index)
        head = cursor.head(wrapped)
        if head is None:
            return None
        amends = head[:1].lower() == "a"
        # "REPEAL RULE 105 and 106" is the keyword form written wrong: it stays an error.
        many = None if head.startswith("REPEAL RULE ") else _REPEAL_MANY.fullmatch(head)
        if not amends and many is not None:
            numbers = dict.fromkeys(int(n) for n in _NUMBER.findall(many["numbers"]))
            return Read(tuple(Clause(ClauseKind.REPEAL, n) for n in numbers), cursor.index)
        clause = _amend_forms(cursor, head) if amends else _other_forms(cursor, head)
        if clause is not None and _complete(clause):
            return Read((clause,), cursor.index)
        if head.rstrip().endswith(":"):
            return None
    return None


_MAX_WRAPPED = 3
"""How many wrapped lines after a clause's first line are joined to it."""


def _complete(clause: Clause) -> bool:
    if clause.kind in (ClauseKind.AMEND, ClauseKind.ENACT, ClauseKind.APPEND, ClauseKind.INSERT):
        return bool(clause.text) and (clause.kind is not ClauseKind.INSERT or bool(clause.anchor))
    if clause.kind is ClauseKind.REPLACE:
        return bool(clause.old)
    return True
