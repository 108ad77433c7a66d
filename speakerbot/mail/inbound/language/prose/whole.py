"""The rule changes that name their rule after the change, or change its whole text.

``Amend Rule N to read[ as follows|, in full]: <text>`` and ``Replace the text of Rule N
with: <text>`` (AMEND), ``Amend Rule N to be titled "T" and to read: <text>`` (RETITLE, then
AMEND), ``Remove "X" from Rule N`` and ``Replace "X" in Rule N with "Y"`` (REPLACE), and
``Append the following paragraph to Rule N: <text>`` (APPEND): forms whose rule stands after
the verb's object, or whose text replaces the rule's. Read by
:mod:`~speakerbot.mail.inbound.language.prose.reading` with the other forms.
"""

from __future__ import annotations

from speakerbot.mail.inbound.language.prose.edits import (
    END,
    EVERY,
    EVERY_AFTER,
    FOLLOWING,
    KIND_OF_TEXT,
)
from speakerbot.mail.inbound.language.prose.names import RULE, RuleCursor, second
from speakerbot.mail.inbound.language.prose.text import COLON, Q, form, unquote
from speakerbot.mail.inbound.language.results import Clause, ClauseKind

__all__ = ["titled_to_read", "whole"]

_AMEND = rf"amend\s++{RULE}\s*+,?\s*+"
# A title written bare between commas ("Amend R2629, Victory Auctions, to read"): taken only
# when it is the rule's own title among the rules in effect (else it may be a part of it).
_BETWEEN_COMMAS = r"(?:\s*+,\s*+(?P<between>[^\s,\"“”(][^,\n]{0,99}?)\s*+,)?"
_TO_READ = form(
    rf"amend\s++(?:the\s++text\s++of\s++)?{RULE}{_BETWEEN_COMMAS}\s*+,?\s*+"
    r"(?:by\s++(?:changing|amending)\s++it\s++)?(?:(?:so\s++as\s++)?to\s++read"
    r"|so\s++that\s++it\s++(?:reads|shall\s++read))"
    r"(?:\s*+,?\s*+(?:\(in\s++(?:its\s++)?(?:entirety|full|whole)\)"
    r"|in\s++(?:its\s++)?(?:entirety|full|whole)|as\s++follows)){0,2}\s*+,?"
    rf"\s*+(?:{COLON}\s*+(?P<text>.*)|(?P<q>{Q}){END})"
)
# "Amend Rule 5 to be titled "T" and to read in full:": a retitling, then the new text.
_TITLED_TO_READ = form(
    rf"amend\s++{RULE}\s*+,?\s*+to\s++be\s++(?:re)?titled\s++(?P<title>{Q})\s*+,?\s*+"
    r"and\s++(?P<rest>(?:so\s++as\s++)?to\s++read\b.*)"
)
_WHOLE_TEXT = form(
    rf"(?:{_AMEND}by\s++replacing\s++(?:its|the)(?:\s++entire|\s++whole)?\s++text"
    r"(?:\s++of\s++the\s++rule)?|replace\s++the\s++(?:entire\s++|whole\s++)?text\s++of\s++"
    rf"{second(RULE)}(?:\s*+,)?)"
    rf"(?:\s++in\s++its\s++entirety)?\s++with\s*+(?:{FOLLOWING}\s*+)?(?:{COLON}\s*+(?P<text>.*)|(?P<q>{Q}){END})"
)
_REMOVE_FROM = form(
    rf"(?:remove|delete|strike)(?:\s++out)?\s++{EVERY}{KIND_OF_TEXT}(?P<old>{Q}){EVERY_AFTER}"
    rf"\s*+(?:from|in)\s++{RULE}{END}"
)
_APPEND_TO = form(
    rf"(?:append|add)\s++(?:(?P<q>{Q})|{FOLLOWING})\s*+(?:to|at\s++the\s++end\s++of)\s++{RULE}"
    rf"\s*+(?:{COLON}\s*+(?P<text>.*)|{END})"
)
_REPLACE_IN = form(
    rf"replace\s++{EVERY}{KIND_OF_TEXT}(?P<old>{Q}){EVERY_AFTER}\s*+in\s++{RULE}\s*+,?\s*+"
    rf"with\s++{KIND_OF_TEXT}(?P<new>{Q}){END}"
)


def whole(cursor: RuleCursor, head: str) -> Clause | None:
    """Read the forms that name the rule after the change: to read, remove from, append to."""
    for pattern in (_TO_READ, _WHOLE_TEXT):
        match = pattern.fullmatch(head)
        if match is not None:
            rule = cursor.rule(match)
            between = match.groupdict().get("between")
            if between is not None and not cursor.titled(rule, between):
                return None
            return Clause(ClauseKind.AMEND, rule, cursor.text(match["text"], match["q"]))
    match = _REMOVE_FROM.fullmatch(head)
    if match is not None:
        every = bool(match["every"] or match["every2"])
        return Clause(ClauseKind.REPLACE, cursor.rule(match), old=unquote(match["old"]), new="",
                      every=every)
    match = _REPLACE_IN.fullmatch(head)
    if match is not None:
        every = bool(match["every"] or match["every2"])
        return Clause(ClauseKind.REPLACE, cursor.rule(match), old=unquote(match["old"]),
                      new=unquote(match["new"]), every=every)
    match = _APPEND_TO.fullmatch(head)
    if match is not None:
        # Without a colon, the lines below are text only indented or braced: a quotation
        # taken for the rule's title may have been the text ('... to Rule 5 "Ties fail."').
        text = (cursor.block(strict=True) if match["text"] is None and match["q"] is None
                else cursor.text(match["text"], match["q"]))
        return Clause(ClauseKind.APPEND, cursor.rule(match), text)
    return None


def titled_to_read(cursor: RuleCursor, head: str) -> list[Clause] | None:
    """Read ``Amend Rule 5 to be titled "T" and to read:`` as RETITLE, then AMEND."""
    match = _TITLED_TO_READ.fullmatch(head)
    if match is None:
        return None
    rule = cursor.rule(match)
    amend = whole(cursor, f"amend rule {rule} {match['rest']}")
    if amend is None or amend.kind is not ClauseKind.AMEND:
        return None
    title = " ".join(unquote(match["title"]).split())
    return [Clause(ClauseKind.RETITLE, rule, title), amend]
