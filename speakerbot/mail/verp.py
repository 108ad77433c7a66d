r"""VERP return paths: an envelope sender per message and recipient, so a bounce names both.

Each outgoing message is sent with the envelope sender ``<base>+bounce-<token>@<domain>``,
where ``<base>@<domain>`` is the game's address and the token is ``<row id>-<mac>``: the
outbox row's id in decimal, then the first 20 lowercase hex digits of
HMAC-SHA256(secret, ``"bounce\n<row id>\n<recipient>"``), the recipient in canonical form
(:func:`speakerbot.addresses.as_compared`). A bounce to that address then tells which
message failed to reach whom, and nobody without the secret can make one that names
another recipient.

Tokens are digits, ``-`` and lowercase hex only, because some mail servers lowercase
local parts on the way.

The base is the game's local part up to its first ``+``: a game at ``nomic+x@example.org``
gets bounces at ``nomic+bounce-<token>@example.org``, so that the one sub-address rule
(``local+anything``) every server applies delivers them to the game's mailbox.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable

from speakerbot.addresses import as_compared, canonical_address

__all__ = ["MAC_DIGITS", "bounce_address", "recipient_of", "token_of"]

MAC_DIGITS = 20
"""Hex digits of the HMAC kept in a token: 80 bits, beyond guessing by sending mail."""

_TAG = "+bounce-"
# A row id is written without leading zeros, so that each (row, recipient) has one token.
_ROW_LIMIT = 10**19
_TOKEN = re.compile(rf"(0|[1-9][0-9]{{0,18}})-([0-9a-f]{{{MAC_DIGITS}}})")


def _mac(secret: str, row_id: int, recipient: str) -> str:
    message = f"bounce\n{row_id}\n{as_compared(recipient)}"
    # surrogatepass: text read from 8-bit mail may hold lone surrogates, and must not raise.
    digest = hmac.new(
        secret.encode("utf-8", "surrogatepass"),
        message.encode("utf-8", "surrogatepass"),
        hashlib.sha256,
    ).hexdigest()
    return digest[:MAC_DIGITS]


def _base_and_domain(game_address: str) -> tuple[str, str] | None:
    """Return the game address's canonical local part up to its first ``+``, and its domain."""
    canonical = canonical_address(game_address.strip().removeprefix("<").removesuffix(">"))
    if canonical is None:
        return None
    local, _, domain = canonical.rpartition("@")
    return local.partition("+")[0], domain


def bounce_address(game_address: str, secret: str, row_id: int, recipient: str) -> str:
    """Return the envelope sender for outbox row ``row_id`` sent to ``recipient``.

    ``nomic@example.org`` gives ``nomic+bounce-<row id>-<mac>@example.org`` (any ``+tag``
    of the game's address is dropped: see the module's docstring). Raises ValueError for
    a game address that is not one plain address, an empty secret, or a row id outside
    0 to 10**19 - 1 (a token holds at most 19 digits, more than any SQL BIGINT).
    """
    parts = _base_and_domain(game_address)
    if parts is None:
        raise ValueError(f"not a game address: {game_address!r}")
    if not secret:
        raise ValueError("the bounce secret is empty: anyone could forge bounces")
    if not 0 <= row_id < _ROW_LIMIT:
        raise ValueError(f"not an outbox row id: {row_id}")
    base, domain = parts
    return f"{base}{_TAG}{row_id}-{_mac(secret, row_id, recipient)}@{domain}"


def token_of(address: str, game_address: str) -> str | None:
    """Return the token of ``address`` if it is one of this game's VERP addresses, else None.

    The address may be wrapped in ``<>``; its domain and an ASCII local part are compared
    without regard to case (the token is given in lowercase). Only a well-formed token
    (``<row id>-<20 hex digits>``) counts: whether it is genuine is for :func:`recipient_of`.
    """
    game = _base_and_domain(game_address)
    canonical = canonical_address(address.strip().removeprefix("<").removesuffix(">"))
    if game is None or canonical is None:
        return None
    local, _, domain = canonical.rpartition("@")
    base, game_domain = game
    prefix = base + _TAG
    if domain != game_domain or not local.startswith(prefix):
        return None
    token = local[len(prefix) :]
    return token if _TOKEN.fullmatch(token) else None


def recipient_of(secret: str, token: str, candidates: Iterable[str]) -> tuple[int, str] | None:
    """Return the (row id, recipient) that ``token`` names, or None.

    The recipient is the first of ``candidates`` (as given) whose MAC for the token's row id
    matches, compared in constant time. A malformed token, an empty secret or no matching
    candidate gives None; this never raises.
    """
    match = _TOKEN.fullmatch(token) if secret else None
    if match is None:
        return None
    row_id, mac = int(match.group(1)), match.group(2)
    for candidate in candidates:
        if hmac.compare_digest(_mac(secret, row_id, candidate), mac):
            return row_id, candidate
    return None
