"""Plain words that say what a command does, answered with the exact command (never applied).

A new player writes ``I vote against 303``, ``vote yes on 301 and no on 302``, ``I'd like to
join as Dora`` or ``please withdraw my vote on 303``: lines the parser ignores, since
none starts with a keyword. Each such line is answered with the exact lines to send
(:func:`suggestion`); nothing is done until the player sends them, since plain words may
mean something else ("I vote against 303 because ..." in a longer letter).

The forms (any case; a proposal is ``303``, ``#303``, ``proposal 303`` or ``P303``):

- ``[I] vote (for|against|yes|no|aye|nay|in favour of|to abstain on) [on] <n>`` and
  ``[I] vote <n> (for|against|yes|no)``, several joined by ``and`` or commas
  (``vote yes on 301 and no on 302``) → ``VOTE n FOR`` ... one line each;
- ``[I'd like to|I want to|please let me|can I] join [the game] [as <name>]`` → ``JOIN
  <name>`` (the sender's name to fill in when none is given);
- ``[please] withdraw my (vote|ballot) on <n>`` → ``VOTE n ABSTAIN``;
- ``[please] withdraw my proposal <n>`` → none: no command withdraws a distributed
  proposal; the note says the host may void it;
- ``[please] (leave|quit) the game`` → ``FORFEIT``; ``what is open`` → ``STATUS``;
  ``how do I vote`` → ``HELP``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Suggestion", "suggestion"]

_NUMBER = r"(?:proposal\s*+#?|p|#)?(?P<n>[0-9]{1,9})"
_FOR = r"for|yes|aye|in\s++favou?r\s++of|yea"
_AGAINST = r"against|no|nay"
_ABSTAIN = r"to\s++abstain\s++on|abstain(?:\s++on)?"
_CHOICE = rf"(?P<choice>{_FOR}|{_AGAINST}|{_ABSTAIN})"
_LEAD = (r"(?:(?:i|we)(?:\s++would\s++like\s++to|['’]d\s++like\s++to|\s++want\s++to"
         r"|\s++will)?\s++)?")
_PLEASE = r"(?:please\s*+,?\s*+)?"
# One vote in words: "against 303", "yes on 301", "303 for".
_ONE_VOTE = re.compile(
    rf"{_CHOICE}\s++(?:on\s++)?{_NUMBER}|(?:proposal\s*+#?|p|#)?(?P<first>[0-9]{{1,9}})\s++"
    rf"(?P<after>{_FOR}|{_AGAINST}|{_ABSTAIN})", re.IGNORECASE)
_VOTES = re.compile(rf"{_PLEASE}{_LEAD}vote\s++(?P<rest>[^.!?]{{1,160}}?)\s*+[.!]?", re.IGNORECASE)
_BETWEEN = re.compile(r"\s*+(?:,\s*+(?:and\s++)?|\band\s++)", re.IGNORECASE)
_JOIN = re.compile(
    rf"{_PLEASE}(?:{_LEAD}|can\s++i\s++|may\s++i\s++|let\s++me\s++)join(?:\s++(?:the|your|this)"
    r"\s++(?:game|nomic))?(?:\s++(?:as|under\s++the\s++name)\s++(?P<name>[^\s.!,?][^.!?\n]{0,60}?))?"
    r"\s*+[.!?]?", re.IGNORECASE)
_WITHDRAW_VOTE = re.compile(
    rf"{_PLEASE}{_LEAD}withdraw\s++my\s++(?:vote|ballot)\s++(?:on|for)\s++{_NUMBER}\s*+[.!]?",
    re.IGNORECASE)
_WITHDRAW_PROPOSAL = re.compile(
    rf"{_PLEASE}{_LEAD}withdraw\s++my\s++proposal\s*+#?(?P<n>[0-9]{{1,9}})\s*+[.!]?",
    re.IGNORECASE)
_LEAVE = re.compile(rf"{_PLEASE}{_LEAD}(?:leave|quit)\s++(?:the|this)\s++game\s*+[.!]?",
                    re.IGNORECASE)
_HOW_TO_VOTE = re.compile(r"how\s++do\s++i\s++vote\s*+\??", re.IGNORECASE)
_WHAT_IS_OPEN = re.compile(r"what(?:'s|\s++is)\s++open(?:\s++now)?\s*+\??", re.IGNORECASE)


@dataclass(frozen=True)
class Suggestion:
    """What plain words seem to ask: the exact lines to send, and a note where none does it."""

    lines: tuple[str, ...]
    note: str = ""


def _choice(word: str) -> str:
    word = " ".join(word.lower().split())
    if re.fullmatch(_FOR, word):
        return "FOR"
    if re.fullmatch(_AGAINST, word):
        return "AGAINST"
    return "ABSTAIN"


def _vote(one: re.Match[str]) -> str:
    """Write one vote read in plain words as its command line."""
    if one["first"] is not None:
        return f"VOTE {int(one['first'])} {_choice(one['after'])}"
    return f"VOTE {int(one['n'])} {_choice(one['choice'])}"


def suggestion(text: str) -> Suggestion | None:
    """Return the command lines plain words ask for; None when they ask for none we know."""
    line = " ".join(text.split())
    if len(line) > 200:  # a sentence of a letter, not a request in plain words
        return None
    votes = _VOTES.fullmatch(line)
    if votes is not None:
        each = [_ONE_VOTE.fullmatch(part.strip()) for part in _BETWEEN.split(votes["rest"])]
        if not all(each):  # "I vote against 303 because it is slow": more than a vote
            return None
        return Suggestion(tuple(_vote(one) for one in each if one is not None))
    withdraw = _WITHDRAW_VOTE.fullmatch(line)
    if withdraw is not None:
        return Suggestion((f"VOTE {int(withdraw['n'])} ABSTAIN",))
    proposal = _WITHDRAW_PROPOSAL.fullmatch(line)
    if proposal is not None:
        return Suggestion((), f"No command withdraws a proposal once it is distributed; the "
                              f"host may void it (ADMIN VOID {int(proposal['n'])}).")
    join = _JOIN.fullmatch(line)
    if join is not None:
        return Suggestion((f"JOIN {join['name'].strip() if join['name'] else '<your name>'}",))
    if _LEAVE.fullmatch(line):
        return Suggestion(("FORFEIT",))
    if _HOW_TO_VOTE.fullmatch(line):
        return Suggestion(("HELP",))
    if _WHAT_IS_OPEN.fullmatch(line):
        return Suggestion(("STATUS",))
    return None
