"""A rule named by its title alone (``Amend the rule entitled "Eclipse Light" by ...``).

The reader has no rules of its own: the service gives it the rules in effect, by number and
title, when it reads a proposal with the game's state in hand. A title names a rule when
exactly one rule in effect has that title, case and white space aside; otherwise (none, or
several) the change is left to the host and quoted back, with the candidates named. Read
with no rules (``speakerbot parse``, intake), every such change is quoted back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from speakerbot.mail.inbound.language.commands import Command, Propose, Revise
from speakerbot.mail.inbound.language.prose.text import Q, form, unquote

__all__ = ["QUOTED_TITLE", "RuleTitles", "Unnamed", "title_note", "wants_titles"]

QUOTED_TITLE = rf"(?:{Q}|'[^'\n]{{1,100}}'|\([^()\n]{{1,100}}\))"
"""A title written in double quotes (straight or curly), single quotes or parentheses."""

# A title in a line no form read, where the line names a rule by it: the one to name the
# candidates of. Each alternative is tried from a word "rule" or "amend" once, and a
# quotation runs to the next quotation mark, so a long line costs one pass.
_TITLE_IN_LINE = form(
    rf"\brules?\s++(?:(?:entitled|titled|named|called)\s++)?(?P<title>{QUOTED_TITLE})"
    rf"|\bamend\s++(?P<amended>{Q})"
)
# A line quoted back that may name a rule by its title (quoted, or bare after "entitled").
_NAMES_BY_TITLE = form(rf"{_TITLE_IN_LINE.pattern}|\brules?\s++(?:entitled|titled|named|called)\b")


def fold(title: str) -> str:
    """Return a title as titles are compared: white space and case aside."""
    return " ".join(title.split()).casefold()


def written_title(quoted: str) -> str:
    """Return a title without the quotation marks or parentheses it was written in."""
    quoted = quoted.strip()
    if quoted.startswith("(") and quoted.endswith(")"):
        return quoted[1:-1].strip()
    return unquote(quoted).strip()


class RuleTitles:
    """The rules in effect by title, for the reader to find a rule named by its title in."""

    def __init__(self, titles: Mapping[int, str]) -> None:
        """Index ``titles`` (a rule's number -> its title; a rule with no title is left out)."""
        self._numbers: dict[str, tuple[int, ...]] = {}
        for number in sorted(titles):
            key = fold(titles[number])
            if key:
                self._numbers[key] = (*self._numbers.get(key, ()), number)

    def numbers(self, title: str) -> tuple[int, ...]:
        """Return the numbers of the rules in effect titled ``title`` (case, white space aside)."""
        return self._numbers.get(fold(title), ())


class Unnamed(LookupError):
    """A change names its rule by a title that names no one rule in effect (or no rules known).

    Raised by the reader of a form when it comes to the rule's number: the form is then not
    read, and its line is quoted back with :attr:`note`.
    """

    def __init__(self, title: str, titles: RuleTitles | None) -> None:
        """Say which title, and what the rules in effect (if known) make of it."""
        super().__init__(title)
        self.title = title
        self.note = note(title, titles)


def number_titled(title: str, titles: RuleTitles | None) -> int:
    """Return the number of the one rule in effect titled ``title``; raise :class:`Unnamed`."""
    found = titles.numbers(title) if titles is not None else ()
    if len(found) != 1:
        raise Unnamed(title, titles)
    return found[0]


def note(title: str, titles: RuleTitles | None) -> str:
    """Say what ``title`` names among the rules in effect, for the host ("" if none known)."""
    if titles is None:
        return ""
    shown = " ".join(title.split())
    found = titles.numbers(title)
    if not found:
        return f"no rule in effect is titled “{shown}”"
    if len(found) == 1:
        return f"rule {found[0]} is titled “{shown}”"
    listed = ", ".join(str(number) for number in found[:-1])
    return f"rules {listed} and {found[-1]} are titled “{shown}”: which one is meant?"


def wants_titles(commands: Sequence[Command]) -> bool:
    """Tell whether commands read with no rules hold a change naming a rule by its title.

    Such a change was quoted back (the reader had no rules); read again with the rules in
    effect, it may be read as a change of the rule its title names.
    """
    return any(_NAMES_BY_TITLE.search(text) is not None for command in commands
               if isinstance(command, Propose | Revise) for _, text in command.not_understood)


def title_note(text: str, titles: RuleTitles | None) -> str:
    """Return the note on a line quoted back that names a rule by its title ("" if none).

    So that the host, carrying it out by hand, sees which rules the title names.
    """
    if titles is None:
        return ""
    found = _TITLE_IN_LINE.search(text)
    if found is None:
        return ""
    return note(written_title(found["title"] or found["amended"]), titles)

