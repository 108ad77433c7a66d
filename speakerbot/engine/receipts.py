"""Ballot receipts: a voter's proof, checkable by anyone once the vote closes.

A receipt is the SHA-256 of ``<game id>:<proposal>:<voter>:<choice>:<salt>`` (UTF-8), where
the salt is 32 random hex digits drawn afresh for every ballot. The voter is the voter's
public id (their name, publicity.py) in a game of record version 2, and their address in
its canonical form (``speakerbot.addresses``: lower case when it is ASCII) in a game of
version 1 (every game started before public ids), so that the receipts of older games are
recomputed as they were mailed. The voter is
mailed the receipt when the ballot is accepted; the salt stays sealed with the ballot until
the vote closes, when every counted ballot is published with its salt, so that anyone can
recompute each receipt and each voter can find theirs.
"""

from __future__ import annotations

import hashlib

from speakerbot.addresses import as_compared
from speakerbot.engine.model import Choice, GameState

SALT_DIGITS = 32
"""How many hex digits a salt has (128 bits: too many to guess a ballot from its receipt)."""


def receipt(game_id: str, proposal: int, voter: str, choice: Choice | str, salt: str,
            version: int = 1) -> str:
    """Return the receipt (64 lowercase hex digits) of one ballot.

    ``voter`` is the public id in a game of record ``version`` 2, else the address.
    """
    who = voter if version >= 2 else as_compared(voter)
    text = f"{game_id}:{proposal}:{who}:{Choice(choice).value}:{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def receipt_line(game_id: str, proposal: int, voter: str, choice: Choice | str,
                 salt: str, version: int = 1) -> str:
    """Return the line the results publish for one counted ballot.

    ``<receipt> <voter> <choice> <salt>``: everything needed to recompute it. A public id
    may hold spaces: the choice and the salt are the line's last two words.
    """
    value = Choice(choice).value
    who = voter if version >= 2 else as_compared(voter)
    return f"{receipt(game_id, proposal, who, value, salt, version)} {who} {value} {salt}"


def ballot_receipt_line(state: GameState, proposal: int, voter: str, choice: Choice | str,
                        salt: str) -> str:
    """Return the published line of a ballot of the game in ``state``, by the voter's address."""
    return receipt_line(state.game_id, proposal, state.public_id(voter), choice, salt,
                        state.record_version)


def ballot_receipt(state: GameState, proposal: int, voter: str, choice: Choice | str,
                   salt: str) -> str:
    """Return the receipt mailed for a ballot of the game in ``state``, by the voter's address."""
    return receipt(state.game_id, proposal, state.public_id(voter), choice, salt,
                   state.record_version)
