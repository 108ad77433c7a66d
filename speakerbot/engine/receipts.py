"""Ballot receipts: a voter's proof, checkable by anyone once the vote closes.

A receipt is the SHA-256 of ``<game id>:<proposal>:<voter address>:<choice>:<salt>``
(UTF-8), the address in its canonical form (``speakerbot.addresses``: lower case when it is
ASCII), where the salt is 32 random hex digits drawn afresh for every ballot. The voter is
mailed the receipt when the ballot is accepted; the salt stays sealed with the ballot until
the vote closes, when every counted ballot is published with its salt, so that anyone can
recompute each receipt and each voter can find theirs.
"""

from __future__ import annotations

import hashlib

from speakerbot.addresses import as_compared
from speakerbot.engine.model import Choice

SALT_DIGITS = 32
"""How many hex digits a salt has (128 bits: too many to guess a ballot from its receipt)."""


def receipt(game_id: str, proposal: int, voter: str, choice: Choice | str, salt: str) -> str:
    """Return the receipt (64 lowercase hex digits) of one ballot."""
    text = f"{game_id}:{proposal}:{as_compared(voter)}:{Choice(choice).value}:{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def receipt_line(game_id: str, proposal: int, voter: str, choice: Choice | str,
                 salt: str) -> str:
    """Return the line the results publish for one counted ballot.

    ``<receipt> <voter address> <choice> <salt>``: everything needed to recompute it.
    """
    value = Choice(choice).value
    return f"{receipt(game_id, proposal, voter, value, salt)} {as_compared(voter)} {value} {salt}"

