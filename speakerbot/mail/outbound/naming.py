"""How what every player reads names players: by their display names, never their addresses."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from speakerbot.addresses import as_compared

# An address in angle brackets (after its name, or alone), and an address on its own: any
# run of non-space around an @, but for what ends a word around it (a possessive's 's, a
# closing bracket, punctuation).
_BRACKETED = re.compile(r"(?<!\s)\s*+<([^<>\s@]*+@[^<>\s]*+)>")
# Tried only where a word begins, and never backtracking into a run, so that a long word
# costs once (100 KB of one word took 28 s otherwise); the same for a run of spaces.
_ADDRESS = re.compile(r"(?<![^\s<>@,;:\"()\[\]])(?:\"[^\"\n]*+\"|[^\s<>@,;:\"()\[\]]*+)"
                      r"@[^\s<>@,;:'\"()\[\]!?]++")


def without_addresses(text: str, name: Callable[[str], str]) -> str:
    """Write a player's address as their name, for what every player reads.

    An override's summary is the host's words, kept in the record as written ("added player
    Bob <bob@example.org>", "removed player bob@example.org"): names are public, addresses
    are shown only where a rule needs them (the receipts). An address with no name is
    withheld.
    """
    def shown(address: str) -> str:
        said = name(as_compared(address))
        return said if "@" not in said else "(an address)"

    def bracketed(match: re.Match[str]) -> str:
        said = shown(match.group(1))
        before = match.string[:match.start()]
        return "" if before.endswith(said) else " " + said  # "Bob <bob@...>": Bob once

    def bare(match: re.Match[str]) -> str:
        address = match.group(0).rstrip(".")
        return shown(address) + match.group(0)[len(address):]

    return _ADDRESS.sub(bare, _BRACKETED.sub(bracketed, text)).strip()


def listed(named: Sequence[str]) -> str:
    """List names as a sentence does: "Alice", "Alice and Bob", "Alice, Bob and Carol"."""
    if not named:
        return "nobody"
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


# The rule a choice comes from, as the engine puts it after the choice: " (rule 214)".
_RULE_SUFFIX = re.compile(r" \(rule (\d+)\)\Z")


def judge_reason(how: str) -> str:
    """Say how a Judge was chosen with no brackets of its own, to stand inside a sentence's.

    "the Speaker, because a Voter called this CFJ (rule 214)" is written "..., as rule 214
    says", so that "Judge: Chuck (the Speaker, ... (rule 214))" nests no brackets.
    """
    said = " ".join(how.split())
    for recorded, plain in _RECORDED_REASONS.items():
        said = said.replace(recorded, plain)
    return _RULE_SUFFIX.sub(r", as rule \1 says", said)


# How the record words a Judge's choosing (engine/judgement.py: kept as recorded, so that the
# record stays as it always was), and how mail and the archive say it.
_RECORDED_REASONS = {
    "as a Voter invoked judgement": "because a Voter called this CFJ",
    "as the Speaker invoked judgement": "because the Speaker called this CFJ",
}
