"""Reading the text of a rule change written in prose: its head, its quotes and its blocks.

A natural form's head (``Amend Rule 5 by replacing "a" with "b".``) may run over a few
lines, as mail clients wrap them. The text it adds is quoted, given after a colon on the
same line, or written as a block below: indented lines, lines up to a blank line, or text
wrapped in braces (``{`` ... ``}``, or ``{{{`` ... ``}}}``), as Agora's players write it.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable

__all__: list[str] = []

Lines = tuple[tuple[int, str], ...]

MARKER = re.compile(r"\s*(?:\(?[0-9]{1,3}[.)]|\(?[A-Za-z][.)]|\([A-Za-z0-9]{1,4}\)|[-*•])\s+")
Q = (
    r"(?:\"[^\"”“]*[\"”]|“[^”\"]*[”\"]|”[^”\"]*”|\"[^\"]*\""
    r"|'[^'\n\"]*+\"[^'\n]*+')"
)
"""A quotation in straight or curly double quotes (no double quote inside; the two marks may
differ, as mail clients make them), or in single quotes around a text holding a double quote
(``'(syn. "consent")'``)."""
COLON = r"(?::|(?=\{))"
"""A colon before a text, or none before a text in braces (``with the following text {``)."""


ADD_A_RULE = r"add(?=\s++an?\s++new\s++(?:(?:power\s*+[=:-]?\s*+[0-9.]+|immutable)\s++)?rule\b)"
"""``Add a new [Power=3] rule``: an enactment, as ``Enact a new rule`` (never ``Add a new
paragraph to Rule 5``: a rule right after ``new`` and its power)."""


def form(pattern: str) -> re.Pattern[str]:
    """Compile a natural form's pattern: any case, ``.`` matching line ends too."""
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


# "rule" and a title after it, quoted or after "entitled" (the start of a change of a rule
# named by its title alone).
_TITLED = r"rule\s+(?:(?:entitled|titled|named|called)\b|[\"“'(])"
_STARTS_CLAUSE = form(
    r"(?:amend|repeal|transmute|retitle|rename)\s+(?:rules?\b|r[0-9])|amend\s+#?[0-9]"
    r"|amend\s+the\s+text\s+of\s+(?:rule\b|r[0-9])"
    r"|repeal\s+(?:each\s+of\s+)?the\s+following\s+rules\b"
    r"|(?:change|amend|set)\s+the\s+title\s+of\s+(?:rule\b|r[0-9])"
    r"|(?:enact|create)\s+the\s+following\s+(?:new\s+)?(?:[\w.=-]+\s+){0,2}?rule\b"
    r"|(?:rule\s+#?|r)[0-9]+\s*(?:\([^()\n]{0,80}\)|\"[^\"\n]{0,80}\")?\s*,?\s*by\s+"
    r"(?:replac|chang|delet|remov|strik|add|append|insert|prepend)ing\b"
    r"|(?:rule\s+#?|r)[0-9]+\b[^\n]{0,80}?\b(?:is|shall\s+be)\s+(?:hereby\s+)?"
    r"(?:amended|repealed|retitled)\b"
    r"|amend\s+the\s+following\s+rules\b|enact\s+(?:an?\s|(?:immutable\s+)?rule\b)"
    r"|create\s+an?\s+(?:new\s+)?(?:[\w.=-]+\s+){0,2}?rule\b|in\s+(?:rule\s+#?|r)[0-9]"
    rf"|{ADD_A_RULE}"
    r"|(?:remove|delete|strike|append|replace)\s.*?\b(?:rule\s+#?|r)[0-9]"
    r"|(?:also\s+)?amend\s+the\s+same\s+rule\b|set\s+\S+\s*="
    r"|at\s+the\s+end\s+of\s[^\n]{0,80}?\b(?:rule\s+#?|r)[0-9]+\b[^\n]{0,80}?\b(?:append|add)\b"
    # A rule named by its title alone: "Amend the rule entitled "T" by", "In Rule "T",",
    # "Amend "T" by", "Remove "X" from the rule "T"", "The rule titled "T" is hereby repealed".
    rf"|(?:amend|repeal|transmute|retitle|rename|in)\s+(?:the\s+)?{_TITLED}"
    rf"|(?:the\s+)?{_TITLED}[^\n]{{0,120}}?\b(?:is|shall\s+be)\s+(?:hereby\s+)?"
    r"(?:amended|repealed|retitled)\b"
    r"|amend\s+[\"“]"
    rf"|(?:remove|delete|strike|append|replace)\s.*?\b(?:from|to|in|of)\s+(?:the\s+)?{_TITLED}"
)
# A line of a block that is no rule's text: a comment in brackets, a heading of a new rule,
# or words of the proposal ("If Proposal 8000 passed, this proposal has no effect.").
_NOT_RULE_TEXT = re.compile(r"\s*(?:\[|(?:title|power|rationale|reason|comment)\s*[:=])"
                            r"|.*?\bthis\s+proposal\b",
                            re.IGNORECASE)


def not_rule_text(line: str) -> bool:
    """Tell whether a line below a change is no rule's text (a comment, a heading, ...)."""
    return _NOT_RULE_TEXT.match(line) is not None
# An edit going on after a text given on the clause's line.
_MORE_EDITS = re.compile(
    r"\band\s++(?:then\s++)?(?:by\s++)?(?:replac|delet|remov|strik|insert|append|add|prepend"
    r"|chang)ing\b", re.IGNORECASE)
_ONE_QUOTATION = re.compile(rf"(?P<q>{Q})[.;,]?")
# A line that ends a sentence (or a list's lead-in, an item): the next may be a new paragraph.
_ENDS_SENTENCE = re.compile(r"[.!?:;][\"')\]}\u201d\u2019]*\s*$")
# How long a line is when a mail client wrapped it (they wrap at 70 to 78 columns).
_WRAPPED_AT = 60
_CLOSERS = {1: "}", 2: "}}", 3: "}}}"}
# A fence line around a text: three or more of one mark (a code fence may name a language).
_FENCE = re.compile(
    r"\s*+(?P<mark>-{3,}+|={3,}+|\*{3,}+|~{3,}+|`{3,}+)[ \t]*+(?:(?<=`)[\w+-]*+)?\s*+")
_MAX_BRACED_LINES = 500
_MAX_QUOTED_LINES = 50


def is_end_rule(text: str) -> bool:
    """Tell whether a line is ``END RULE`` (any case, a trailing ``.`` or ``!`` allowed)."""
    return " ".join(text.upper().rstrip(".!").split()) == "END RULE"


def unmarked(text: str) -> str:
    """Return the line without its list marker (``1.``, ``a)``, ``(a)``, ``-``) and outer space."""
    match = MARKER.match(text)
    return (text[match.end() :] if match else text).strip()


def indent(text: str) -> int:
    """Return how far a line is indented."""
    return len(text) - len(text.lstrip())


def starts_clause(text: str) -> bool:
    """Tell whether a line opens a clause (keyword or natural form), so a block ends there."""
    return _STARTS_CLAUSE.match(unmarked(text)) is not None


def unquote(text: str) -> str:
    """Return ``text`` without the double quotes around it, if it is one quotation."""
    text = text.strip()
    if len(text) > 2 and text[-1] in ".;," and text[-2] in "\"”":
        inner = unquote(text[:-1])  # '"Ties fail".': the full stop is the sentence's
        return inner if inner != text[:-1] else text
    if len(text) >= 2 and text[0] in "\"“”" and text[-1] in "\"”“":
        inner = text[1:-1]
        if not any(mark in inner for mark in "\"“”"):
            return inner
    if len(text) >= 2 and text[0] == text[-1] == "'" and "'" not in text[1:-1]:
        return text[1:-1]  # single quotes are only taken around a double quote (see Q)
    return text


def _set_back(lines: list[str]) -> str:
    """Return a block's lines set back by its first line's indentation.

    A line set back further than the first (a mail client wrapped the text again) loses all
    of its own; a line indented further keeps what it has more (a list under a paragraph);
    a line of white space only is left empty.
    """
    first = next((indent(line) for line in lines if line.strip()), 0)
    return "\n".join(line[min(indent(line), first):] if line.strip() else "" for line in lines)


def _unquote_block(text: str) -> str:
    """Return a block without the quotes around it, its lines under the first set back."""
    inner = unquote(text)
    if inner == text:
        return text
    first, _, rest = inner.partition("\n")
    return first + ("\n" + textwrap.dedent(rest) if rest else "")


def _marker_kind(line: str) -> str:
    """Return the kind of a line's list marker: "figure", "letter" or "bullet" ("" if none)."""
    match = MARKER.match(line)
    if match is None:
        return ""
    marker = match.group().strip()
    if any(char.isdigit() for char in marker):
        return "figure"
    return "letter" if any(char.isalpha() for char in marker) else "bullet"


def _open_quote(text: str) -> bool:
    """Tell whether ``text`` leaves a double quote open (so the quote runs on to later lines)."""
    straight = text.count('"') % 2 == 1
    return straight or text.count("“") > text.count("”")


def _whole_quote(text: str) -> str:
    """Return a text read from a block, or "" when its quotation marks are half read.

    A text that opens a quotation it never closes, or opens with a doubled quote
    (``""text""``), cannot be told from its quotes: which marks are the rule's? It is
    quoted back ("") rather than made with a stray mark in it.
    """
    if text[:2] in _DOUBLED or (text[:1] in "\"“" and _open_quote(text)):
        return ""
    return text


_DOUBLED = ('""', '“"', '"“', "““", "“”")


def _braces(text: str) -> int:
    """Return how many braces open ``text`` (stripped): 0 when it does not start with one."""
    stripped = text.lstrip()
    count = len(stripped) - len(stripped.lstrip("{"))
    return count if count in _CLOSERS else 0


def _braced_inner(first: str, rest: list[str], closer: str) -> str | None:
    """Return the text between the braces; None when a brace inside leaves it unclear."""
    if rest:
        rest = [*rest[:-1], rest[-1].rstrip()[: -len(closer)]]
        body = textwrap.dedent("\n".join(rest)).strip("\n")
        text = first.strip() + ("\n" + body if first.strip() else body)
    else:
        text = first.rstrip()[: -len(closer)]
    if len(closer) == 1 and ("{" in text or "}" in text):
        return None  # a brace inside: which one closes the text would be a guess
    if len(closer) > 1 and closer in text:
        return None
    return text.strip()


class Cursor:
    """The proposal's lines and where reading stands, for one natural clause."""

    def __init__(self, lines: Lines, index: int) -> None:
        self.lines = lines
        self.index = index
        self.indent = indent(lines[index][1])

    def head(self, wrapped: int) -> str | None:
        """Return the clause's line with ``wrapped`` more lines, and more while a quote is open.

        Mail clients wrap long lines, so a clause may run over a few lines; they are joined
        with a space (a blank line inside a quote keeps its paragraph break). None when there
        are not ``wrapped`` non-blank lines of text after the clause's line.
        """
        start, lines = self.index, self.lines
        text = unmarked(lines[start][1])
        for index in range(start + 1, start + 1 + wrapped):
            if index >= len(lines) or not lines[index][1].strip():
                return None
            line = lines[index][1]
            if is_end_rule(line) or starts_clause(line) or _braces(line):
                return None
            text += " " + line.strip()
        self.index = start + 1 + wrapped
        first, after_first = text, self.index
        limit = min(len(lines), self.index + _MAX_QUOTED_LINES)
        while _open_quote(text) and self.index < limit:
            line = lines[self.index][1].strip()
            text += (" " + line) if line else "\n\n"
            text = text.replace("\n\n ", "\n\n")
            self.index += 1
        if _open_quote(text):  # never closed: read the clause's lines alone
            self.index, text = after_first, first
        return text

    def skip_blank(self) -> None:
        """Move past blank lines."""
        while self.index < len(self.lines) and not self.lines[self.index][1].strip():
            self.index += 1

    def braced(self, first: str | None = None) -> str | None:
        """Read a text in braces: from ``first`` (the rest of the head), else the next line.

        None when there are no braces, or they are never closed, or a brace inside them
        leaves unclear where the text ends.
        """
        if first is None:
            self.skip_blank()
            if self.index >= len(self.lines):
                return None
            first = self.lines[self.index][1]
            self.index += 1
        count = _braces(first)
        if not count:
            return None
        closer = _CLOSERS[count]
        first = first.lstrip()[count:]
        if first.rstrip().endswith(closer):
            return _braced_inner(first, [], closer)
        rest: list[str] = []
        limit = min(len(self.lines), self.index + _MAX_BRACED_LINES)
        while self.index < limit:
            line = self.lines[self.index][1].rstrip()
            self.index += 1
            rest.append(line)
            if line.endswith(closer):
                return _braced_inner(first, rest, closer)
        return None

    def fenced(self) -> str:
        """Read a text between fence lines (``---``, ``~~~``, a line of backticks ...).

        The fences are no part of the text; the closing one is a fence of the same mark. ""
        when none closes it: where the text ends would be a guess.
        """
        self.index = self._next_written(self.index)
        mark = self.lines[self.index][1].strip()[0]
        limit = min(len(self.lines), self.index + 1 + _MAX_BRACED_LINES)
        for at in range(self.index + 1, limit):
            fence = _FENCE.fullmatch(self.lines[at][1])
            if fence is not None and fence["mark"][0] == mark:
                inner = [line for _, line in self.lines[self.index + 1:at]]
                self.index = at + 1
                text = textwrap.dedent("\n".join(inner)).strip("\n").rstrip()
                return _whole_quote(_unquote_block(text.lstrip()))
        return ""

    def starts_braced(self) -> bool:
        """Tell whether the next non-blank line opens a text in braces."""
        index = self.index
        while index < len(self.lines) and not self.lines[index][1].strip():
            index += 1
        return index < len(self.lines) and _braces(self.lines[index][1]) > 0

    def block(self, stop: Callable[[str], bool] | None = None, *, strict: bool = False,
              whole: bool = True) -> str:
        """Read the block after a colon: text in braces, indented lines, or lines to a blank.

        ``strict`` (no colon before the block) takes only braces or indented lines. An empty
        string when there is no block (or braces never closed), when it holds a comment in
        brackets or a heading, or (``whole``) when more text that may be its own follows it
        before the next clause: a text cut short would be a wrong change.
        """
        if self.starts_braced():
            return self.braced() or ""
        if _FENCE.fullmatch(self.next_line()):
            return self.fenced()
        lines, index = self.lines, self.index
        while index < len(lines) and not lines[index][1].strip():
            index += 1
        indented = index < len(lines) and indent(lines[index][1]) > self.indent
        quoted = None if indented else self._quoted(index)
        if quoted is not None:
            self.index = quoted[1]
            return quoted[0]
        if strict and not indented:
            return self._one_quotation(index)
        taken, index, indented = self._block_lines(index, indented, stop)
        end = index
        if index < len(lines) and is_end_rule(lines[index][1]):
            index += 1
        self.index = index
        if any(not_rule_text(line) for line in taken) or (
                whole and self._more_follows(end, stop, indented=indented)):
            # A comment or a heading ("Title: Dice") is no rule's text; text after the
            # block may be its rest or a rationale: unclear either way, and quoted back.
            return ""
        return _whole_quote(_unquote_block(_set_back(taken).strip("\n").rstrip()))

    def _block_lines(self, index: int, indented: bool, stop: Callable[[str], bool] | None,
                     ) -> tuple[list[str], int, bool]:
        """Return a block's lines from ``index``, the index after them, and whether it is indented.

        It is no longer taken as indented when a mail client wrapped it again.
        """
        taken, index = self._taken(index, indented, stop)
        if indented and self._rewrapped(taken, index):
            # A mail client wrapped the indented text again: it runs on to a blank line.
            more, index = self._taken(index, False, stop)
            return taken + more, index, False
        return taken, index, indented

    def _taken(self, index: int, indented: bool,
               stop: Callable[[str], bool] | None) -> tuple[list[str], int]:
        """Return the lines from ``index`` up to where a block ends, and the index after them."""
        taken: list[str] = []
        while index < len(self.lines) and not self._ends_block(self.lines[index][1], indented,
                                                               stop):
            taken.append(self.lines[index][1])
            index += 1
        return taken, index

    def _rewrapped(self, taken: list[str], index: int) -> bool:
        """Whether the line at ``index``, set back under an indented block, goes on with it.

        It does when the block's ``last`` line is as long as a wrapped line and ends
        mid-sentence (a short one, "one week" before "with:", is a whole text), and no clause
        starts there.
        """
        last = taken[-1] if taken else ""
        if (index >= len(self.lines) or len(last.rstrip()) < _WRAPPED_AT
                or _ENDS_SENTENCE.search(last)):
            return False
        line = self.lines[index][1]
        return bool(line.strip()) and not (is_end_rule(line) or starts_clause(line))

    def _more_follows(self, end: int, stop: Callable[[str], bool] | None, *,
                      indented: bool) -> bool:
        """Whether text that may still be the block's goes on after it ends at ``end``.

        An indented block is ended by a blank line and a line set back; text set back right
        after it, or written after a blank line below an unindented block, may be its next
        paragraph or a rationale. A clause, ``END RULE`` or the end of the text ends it clearly,
        after a fence line or not.
        """
        if indented:
            if end >= len(self.lines) or not self.lines[end - 1][1].strip():
                return False
        else:
            end = self._next_written(end)
            if end < len(self.lines) and _FENCE.fullmatch(self.lines[end][1]):
                end = self._next_written(end + 1)  # a fence between changes sets them apart
        if end >= len(self.lines):
            return False
        line = self.lines[end][1]
        return not (is_end_rule(line) or starts_clause(line) or (stop is not None and stop(line)))

    def _ends_block(self, text: str, indented: bool, stop: Callable[[str], bool] | None) -> bool:
        """Tell whether line ``text`` ends a block (indented, or running to a blank line)."""
        if is_end_rule(text) or (stop is not None and stop(text)):
            return True
        if indented:  # a change standing in the indented text ends it too
            return bool(text.strip()) and (indent(text) <= self.indent or starts_clause(text))
        return not text.strip() or starts_clause(text) or _FENCE.fullmatch(text) is not None

    def _quoted(self, index: int) -> tuple[str, int] | None:
        """Read a text in double quotes from line ``index``, blank lines and all, to its close.

        Returns the text and the index after it. The quotation must open the line and close
        at the end of a line (a full stop or semicolon after it aside), with no quote inside;
        one never closed is taken only when it is one paragraph running to the end of the
        proposal (so it cannot have been closed elsewhere). None otherwise: the lines are
        then read as before.
        """
        lines = self.lines
        if index >= len(lines) or lines[index][1].strip()[:1] not in "\"“":
            return None
        taken: list[str] = []
        limit = min(len(lines), index + _MAX_BRACED_LINES)
        quotes = 0
        for at in range(index, limit):
            text = lines[at][1]
            if at > index and (is_end_rule(text) or starts_clause(text)):
                return None
            taken.append(text)
            quotes += sum(text.count(mark) for mark in "\"“”")
            if quotes >= 2:
                closed = text.rstrip().rstrip(".;,")
                if quotes > 2 or closed[-1:] not in "\"”" or at == index:
                    return None  # a quote inside, or one line: read as before
                body = textwrap.dedent("\n".join(taken)).strip().rstrip(".;,").strip()
                return body[1:-1].strip(), at + 1
        body = textwrap.dedent("\n".join(taken)).strip()
        if limit < len(lines) or any(not line.strip() for line in body.split("\n")):
            return None  # never closed: one paragraph, to the end, or a guess
        return body[1:].strip(), limit

    def _one_quotation(self, index: int) -> str:
        """Return the text of line ``index`` if the line is one quotation ("" if not).

        A line that is all one quotation is a text however it stands: nothing of a sentence
        going on could look like it. The reading moves past it.
        """
        if index >= len(self.lines):
            return ""
        match = _ONE_QUOTATION.fullmatch(self.lines[index][1].strip())
        if match is None:
            return ""
        self.index = index + 1
        return unquote(match["q"])

    def listed(self) -> str:
        """Read a list below a colon, its items one to a line or apart with blank lines between.

        After the block (see :meth:`block`), the next item goes on the list if it stands at
        the first item's indentation with a marker of the same kind (a figure, a letter or a
        bullet) and opens no clause.
        """
        index = self._next_written(self.index)
        first = self.lines[index][1] if index < len(self.lines) else ""
        kind, column = _marker_kind(first), indent(first)
        text = self.block(whole=not kind)
        while text and kind:
            index = self._next_written(self.index)
            line = self.lines[index][1] if index < len(self.lines) else ""
            if (_marker_kind(line) != kind or indent(line) != column or starts_clause(line)
                    or is_end_rule(line)):
                break
            self.index = index
            more = self.block(whole=False)
            if not more:
                break
            text += "\n" + more
        return text

    def next_line(self) -> str:
        """Return the next line that is not blank, from where reading stands ("" at the end)."""
        index = self._next_written(self.index)
        return self.lines[index][1] if index < len(self.lines) else ""

    def _next_written(self, index: int) -> int:
        """Return the index of the first line from ``index`` that is not blank (or the end)."""
        while index < len(self.lines) and not self.lines[index][1].strip():
            index += 1
        return index

    def text(self, inline: str | None, quoted: str | None) -> str:
        """Return the text of a form: quoted, given after the colon, or the block below."""
        if quoted is not None:
            return unquote(quoted)
        if inline is not None and inline.strip():
            if _braces(inline):
                return self.braced(inline) or ""
            if "[" in inline or _MORE_EDITS.search(inline):
                return ""  # a comment, or the next edit ("..., and by deleting "X""): unclear
            return _whole_quote(unquote(inline))
        return self.block()
