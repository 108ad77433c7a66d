"""Conditions on another proposal's fate that the game can settle from its record.

The forms (any case; a proposal is ``Proposal N`` or ``PN``, optionally followed by its title
in brackets or quotes, or ``the proposal titled "T"``; the sentence may wrap over lines):

- ``If Proposal N passed|was adopted|has been adopted|has taken effect, <change>`` and
  ``If Proposal N failed|was not adopted|has not taken effect|was rejected, <change>``:
  the change on the same line (and the lines its text runs over) is carried out only if
  Proposal N was adopted (or was not);
- the same ending in a colon, or in a comma that ends the sentence's last line
  (``If Proposal 8203 was adopted:``): the changes below it, up to ``Otherwise`` or the end;
- ``Unless Proposal N passed, <change>``: only if it was not adopted;
- ``Upon the adoption of Proposal N[,:] <change>``: only if it was adopted;
- ``Otherwise[,:] <change>`` right after one of these: the other way round;
- ``If Proposal N <fate>, [the rest of] this proposal has no effect``: each change of the
  proposal only if the other way round;
- ``If this proposal has already taken effect, it has no effect`` says nothing a first
  adoption could meet: it is no condition.

Anything else that makes a change hang on something (a time, a rule's text, a vote's
margin) is not read here: the reader leaves such a proposal to the host, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from speakerbot.engine.condition import Condition
from speakerbot.mail.inbound.language.prose.text import Lines, starts_clause

__all__ = ["ConditionRead", "Scope", "otherwise", "read_condition"]

_QUOTED = r"(?:\"[^\"\n]{1,200}\"|“[^”\n]{1,200}”)"
_PROPOSAL = (
    r"(?:(?:proposal\s*+#?|p)(?P<number>[0-9]{1,9})(?:\s*+\([^()]{0,200}\))?"
    rf"(?:\s*+,?\s*+{_QUOTED}(?:\s*+,(?=\s*+(?:has|had|was|is|passed|failed)))?)?"
    r"|(?:the|a)\s++proposal\s++(?:(?:titled|entitled|named|called)\s++)?"
    rf"(?P<title>{_QUOTED}))"
)
_NOT_ADOPTED = (
    r"(?:(?:was|is|has|had)\s++not\s++(?:been\s++)?(?:adopted|passed|enacted)"
    r"|(?:has\s++|had\s++)?(?:not|never)\s++(?:taken|took)\s++effect"
    r"|(?:did|does)\s++not\s++(?:pass|take\s++effect)|(?:was|is|has\s++been|had\s++been)\s++"
    r"(?:rejected|defeated|voided|not\s++adopted)|(?:has\s++|had\s++)?failed|fails"
    r"|has\s++not\s++passed)"
)
_ADOPTED = (
    r"(?:(?:was|is|has\s++been|had\s++been|gets|got|becomes|became)\s++(?:adopted|passed|enacted)"
    r"|(?:has\s++|had\s++)?passed|passes|(?:has\s++|had\s++)?(?:taken|took|takes)\s++effect)"
)
_FATE = rf"(?:(?P<no>{_NOT_ADOPTED})|(?P<yes>{_ADOPTED}))"
_MARKER = r"(?:\(?[0-9a-z]{1,3}[.)]\s++)?"
_HEAD = re.compile(
    rf"{_MARKER}(?:(?P<if>if|when|once|in\s++the\s++event\s++that|(?P<unless>unless))"
    r"|(?P<upon>(?:upon|on|after)\s++(?:the\s++)?(?:adoption|passage)\s++of))"
    rf"\s++{_PROPOSAL}(?:\s++{_FATE})?"
    r"(?P<separator>\s*+(?:,\s*+(?:then\b\s*+)?:?\s*+|:\s*+|\s++then\b\s*+:?\s*+))",
    re.IGNORECASE,
)
_NO_EFFECT = re.compile(
    r"(?:then\s++)?(?:the\s++(?:rest|remainder)\s++of\s++)?this\s++proposal\s++"
    r"(?:has|shall\s++have|will\s++have)\s++no\s++(?:further\s++)?effect\s*+[.;]?\s*+",
    re.IGNORECASE,
)
_ALREADY = re.compile(
    r"if\s++this\s++proposal\s++has\s++already\s++taken\s++effect\s*+,\s*+(?:then\s++)?"
    r"(?:it|this\s++proposal)\s++has\s++no\s++(?:further\s++)?effect\s*+\.?\s*+",
    re.IGNORECASE,
)
_OTHERWISE = re.compile(r"\s*+otherwise\b\s*+[,:]?\s*+", re.IGNORECASE)
_MOST_LINES = 4
"""The most lines a condition's own words may wrap over."""


class Scope(Enum):
    """Which changes a condition governs."""

    INLINE = "inline"  # the change that follows it on its line
    BELOW = "below"  # the changes below it, up to "Otherwise" or the end
    WHOLE = "whole"  # every change of the proposal ("this proposal has no effect")
    NONE = "none"  # none: the words set no condition ("if this proposal has already ...")


@dataclass(frozen=True)
class ConditionRead:
    """A condition read at a line: what it says, what it governs, and where to go on.

    ``next``: the index of the line after its own words (BELOW, WHOLE, NONE). For INLINE,
    ``lines`` are the proposal's lines with the line at ``next`` cut to the change that
    follows the condition, to be read from there; where the words left on that line do not
    open a change by themselves ("then amend" <newline> "the rule entitled ..."), the next
    line is joined to them (``merged``): an index past it in ``lines`` is one less than in
    the proposal's (:meth:`index`).
    """

    condition: Condition | None
    scope: Scope
    next: int
    lines: Lines = ()
    merged: bool = False

    def index(self, read_to: int) -> int:
        """Return the proposal's index of the line at ``read_to`` in :attr:`lines`."""
        return read_to + 1 if self.merged and read_to > self.next else read_to


def _joined(lines: Lines, index: int) -> tuple[str, list[int]]:
    """Return the lines from ``index`` on, joined by spaces, and where each starts in it.

    At most a few lines, up to a blank one: a condition's sentence may wrap.
    """
    texts: list[str] = []
    starts: list[int] = []
    at = 0
    for _, text in lines[index:index + _MOST_LINES]:
        if not text.strip():
            break
        starts.append(at)
        texts.append(text.strip())
        at += len(texts[-1]) + 1
    return " ".join(texts), starts


def _line_of(starts: list[int], position: int) -> int:
    """Return which of the joined lines ``position`` falls in."""
    return max(k for k, start in enumerate(starts) if start <= position)


def _lines_to(joined: str, starts: list[int], end: int) -> int | None:
    """Return how many of the joined lines a match ending at ``end`` takes, if it ends one."""
    if end == len(joined):
        return len(starts)
    return starts.index(end) if end in starts else None


def read_condition(lines: Lines, index: int) -> ConditionRead | None:
    """Read a settleable condition starting at ``lines[index]``; None when there is none."""
    joined, starts = _joined(lines, index)
    already = _ALREADY.match(joined)
    taken = _lines_to(joined, starts, already.end()) if already is not None else None
    if taken:
        return ConditionRead(None, Scope.NONE, index + taken)
    head = _HEAD.match(joined)
    if head is None or (head["upon"] is None) is (head["no"] is None and head["yes"] is None):
        return None  # "If Proposal N" needs its fate; "Upon the adoption of" has it
    words = joined[:head.start("separator")].strip()
    named = int(head["number"]) if head["number"] else None
    title = " ".join(head["title"][1:-1].split()) if head["title"] else ""
    adopted = (head["no"] is None) is not bool(head["unless"])
    condition = Condition(named, adopted, words, title=title)
    taken = _lines_to(joined, starts, head.end())
    if taken:  # nothing follows it on its lines: it governs the changes below
        return ConditionRead(condition, Scope.BELOW, index + taken)
    no_effect = _NO_EFFECT.match(joined, head.end())
    taken = _lines_to(joined, starts, no_effect.end()) if no_effect is not None else None
    if taken:
        return ConditionRead(Condition(named, not adopted, words, title=title), Scope.WHOLE,
                             index + taken)
    line = _line_of(starts, head.end())
    return _inline(condition, lines, index + line, head.end() - starts[line])


def _inline(condition: Condition, lines: Lines, at: int, column: int) -> ConditionRead:
    """Return the condition governing the change from ``column`` of line ``at`` on.

    The column is in the line's stripped text: the joined text is made of stripped lines.
    """
    number, text = lines[at]
    rest = text.strip()[column:]
    if starts_clause(rest) or at + 1 >= len(lines) or not lines[at + 1][1].strip():
        return ConditionRead(condition, Scope.INLINE, at,
                             (*lines[:at], (number, rest), *lines[at + 1:]))
    joined = f"{rest} {lines[at + 1][1].strip()}"
    return ConditionRead(condition, Scope.INLINE, at,
                         (*lines[:at], (number, joined), *lines[at + 2:]), merged=True)


def otherwise(lines: Lines, index: int, last: Condition) -> ConditionRead | None:
    """Read ``Otherwise[,:] [<change>]`` after condition ``last``: the other way round."""
    text = lines[index][1]
    match = _OTHERWISE.match(text)
    if match is None:
        return None
    condition = Condition(last.proposal, not last.adopted, f"otherwise ({last.words})",
                          title=last.title)
    if not text[match.end():].strip():
        return ConditionRead(condition, Scope.BELOW, index + 1)
    return _inline(condition, lines, index, match.end() - (len(text) - len(text.lstrip())))
