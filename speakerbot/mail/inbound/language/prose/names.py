"""How players name a rule in a change: ``Rule 2143``, ``R2143/12``, the title after it, lists.

A title follows the number in parentheses, in quotes (double, or single), or written bare
in Title Case (``rule 2551 Auction End with``): the reader keeps the number and leaves the
title aside. A rule may also be named by its title alone, in the same quoting forms
(``the rule entitled "Eclipse Light"``, ``Rule "Dependent Actions"``, ``the rule titled
Eclipse Light by``): :func:`rule_number` finds it among the rules in effect it is given
(:mod:`~speakerbot.mail.inbound.language.prose.titles`).
"""

from __future__ import annotations

import re

from speakerbot.mail.inbound.language.prose.text import Cursor, Lines, Q, form, unmarked
from speakerbot.mail.inbound.language.prose.titles import (
    QUOTED_TITLE,
    RuleTitles,
    number_titled,
    written_title,
)

__all__ = [
    "BY_TITLE",
    "IN_ORDER",
    "LISTED_RULE",
    "NAMED",
    "REVISION",
    "RULE",
    "TITLE",
    "RuleCursor",
    "listed_rules",
    "rule_number",
    "rules_after",
]

# A title in parentheses is no label ("2162(c)", "(2)") and holds no small word of a part, a
# condition or more changes ("(last paragraph)", "(unless ...)", "(and every rule ...)"):
# the text would say more than the rule's number, and the line is quoted back.
_NOT_A_TITLE = (
    r"(?!(?<=[0-9]\()[A-Za-z0-9]{1,4}\))(?!(?-i:\s*+(?:[0-9]{1,3}|[a-z]|[ivx]{1,4})\s*+\)))"
    r"(?!(?-i:\s*+(?:and|or|also|plus|as\s++well)\b|[^()]*?\b(?:if|unless|except|excluding"
    r"|provided|only|when|whichever|(?:sub)?(?:paragraph|section|sentence|item|clause|part|line)s?"
    r"|first|second|third|fourth|fifth|sixth|last|final)\b))"
)
TITLE = (r"(?:\s*+,?\s*+(?:\(" + _NOT_A_TITLE + r"(?:[^()]|\([^()]*\))*\)|" + Q
         + r"|'[^'\n]{1,100}'))?")
# A revision after the number ("R2143/12") is short: "Rule 2143/2144" names two rules.
REVISION = r"(?:/[0-9]{1,2}+(?![0-9]))?"
# A title written bare right after the number ("rule 2551 Auction End with"): words in
# Title Case, none a part of a rule ("Section 3") or a word of the form ("By", "To").
_NAME_WORD = (
    r"(?i:(?!(?:by|with|to|as|and|or|in|of|the|from|so|then|if|unless|when|where|which|only"
    r"|provided|after|before|once|upon|until|except|effective|immediately"
    r"|section|subsection|paragraph|subparagraph|part|item|clause|sentence|line|list|article"
    r"|chapter|bullet|point|number|annex|appendix|schedule|table|title|text|power|heading"
    r"|amend|replace|append|insert|delete|remove|repeal|retitle|enact|create)s?\b))"
    r"(?-i:[A-Z][\w'’-]*+)"
)
NAMED = (
    rf"(?:\s++{_NAME_WORD}(?:\s++(?:(?:of|the|and|a|an|in|on|for|or|at)\s++){{0,2}}{_NAME_WORD})"
    r"{0,7}(?=\s*+(?:,|:|(?:by|with|to|as)\b|[.;]?\s*+$)))"
)
# A rule named by its title alone: "the rule entitled "T"", "Rule (T)", "the rule titled T by"
# (written bare only after "entitled", "titled", "named" or "called").
BY_TITLE = (
    rf"(?:the\s++)?rule\s++(?:(?:entitled|titled|named|called)\s++)?(?P<by_title>{QUOTED_TITLE})"
    rf"|(?:the\s++)?rule\s++(?:entitled|titled|named|called)(?P<by_words>{NAMED})"
)
RULE = rf"(?:(?:rule\s++#?|r#?)(?P<rule>[0-9]{{1,9}}){REVISION}(?:{NAMED}|{TITLE})|{BY_TITLE})"
# The order in which rules are changed or repealed, named after them ("in ascending
# numerical order by ID", "in this order"): each rule gets the same change, so it changes
# nothing.
IN_ORDER = (
    r"(?:\s*+,?\s*+in\s++(?:the\s++|this\s++)?(?:(?:ascending|descending|numerical|numeric|given|listed)"
    r"\s++){0,3}order(?:\s++(?:they\s++are\s++)?(?:listed|given)|\s++by\s++(?:id|number))?)?"
)
# Rules apart by a comma, a semicolon, "and" or a space ("1.2" is no two rules, "1. 2" is
# a rule and its list's next marker); a full stop only after the last.
LISTED_RULE = form(
    rf"(?:(?:rule\s++)?#?|r#?)(?P<rule>[0-9]{{1,9}}){TITLE}"
    r"\s*+(?:[,;]\s*+(?:and\s++)?|and\s++|(?<=\s)(?=(?:rule\s++)?#?[0-9]|r#?[0-9])|\.?\s*+$)"
)


_BY_TITLE_GROUPS = ("by_title", "by_words", "amended_title", "by_title2", "by_words2")


def second(pattern: str) -> str:
    """Return a pattern naming a rule with its groups renamed, to stand twice in one form."""
    return re.sub(r"\(\?P<(\w+)>", r"(?P<\g<1>2>", pattern)


def rule_number(match: re.Match[str], titles: RuleTitles | None = None) -> int:
    """Return the number of the rule a form's match names (its ``rule`` or ``rule2``).

    A rule named by its title alone is the one rule in effect of ``titles`` with that title;
    :class:`~speakerbot.mail.inbound.language.prose.titles.Unnamed` is raised when there is
    none, several, or no rules are known (the form is then not read).
    """
    groups = match.groupdict()
    number = groups.get("rule") or groups.get("rule2")
    if number is not None:
        return int(number)
    written = next(groups[name] for name in _BY_TITLE_GROUPS if groups.get(name))
    return number_titled(written_title(written), titles)


class RuleCursor(Cursor):
    """A cursor over a proposal's lines that knows the rules in effect its changes may name."""

    def __init__(self, lines: Lines, index: int, titles: RuleTitles | None) -> None:
        """Start at ``lines[index]``; ``titles``: the rules in effect (None: none known)."""
        super().__init__(lines, index)
        self.titles = titles

    def rule(self, match: re.Match[str]) -> int:
        """Return the number of the rule a form's match names (see :func:`rule_number`)."""
        return rule_number(match, self.titles)

    def titled(self, rule: int, title: str) -> bool:
        """Tell whether ``title`` is rule ``rule``'s own among the rules in effect (if known)."""
        return self.titles is not None and rule in self.titles.numbers(title)


def listed_rules(listed: str) -> list[int]:
    """Return the rules listed, one or more a line (``Rule 1 ("A"), 2 and R3``), or [].

    [] when anything listed is not a rule: the list is then the host's to read.
    """
    rules: list[int] = []
    for line in listed.split("\n"):
        at, text = 0, unmarked(line) if line.strip() else ""
        while at < len(text):
            number = LISTED_RULE.match(text, at)
            if number is None or number.end() == at:
                return []
            rules.append(rule_number(number))
            at = number.end()
    return list(dict.fromkeys(rules))


def rules_after(cursor: Cursor, after_colon: str) -> list[int]:
    """Return the rules listed after a colon (to the end of its paragraph) or below it."""
    after_colon = after_colon.strip()
    if not after_colon:
        rules = listed_rules(cursor.listed())
        # A rule below the list's end (its marker of another kind, or none) may be one more
        # of it: the whole is the host's.
        return [] if listed_rules(cursor.next_line()) else rules
    rules = listed_rules(after_colon)
    if rules:
        return rules
    # The list wrapped by the mail client, a title perhaps broken in two: one line.
    return listed_rules(" ".join(f"{after_colon}\n{cursor.block()}".split("\n")))
