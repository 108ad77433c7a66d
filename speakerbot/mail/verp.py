r"""VERP return paths: an envelope sender per message and recipient, so a bounce names both.

Each outgoing message is sent with the envelope sender ``<base>+bounce-<token>@<domain>``,
where ``<base>@<domain>`` is the game's address and the token is ``<message>-<mac>``: the
message's reference (:func:`message_ref`: 16 hex digits of the SHA-256 of its Message-ID),
then the first 20 lowercase hex digits of HMAC-SHA256(secret,
``"bounce\n<message>\n<recipient>"``), the recipient in canonical form
(:func:`speakerbot.addresses.as_compared`). A bounce to that address then tells which
message failed to reach whom, and nobody without the secret can make one that names
another recipient.

The message is named by its Message-ID, never by a number counted in the outbox: a
return path is seen by its recipient, and a count of the mail queued before it would tell
how many ballots were cast (sealed means sealed); the game's Message-IDs depend on no count.

Tokens are ``-`` and lowercase hex only, because some mail servers lowercase local parts on
the way.

The base is the game's local part up to its first ``+``: a game at ``nomic+x@example.org``
gets bounces at ``nomic+bounce-<token>@example.org``, so that the one sub-address rule
(``local+anything``) every server applies delivers them to the game's mailbox.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
from collections.abc import Iterable

from speakerbot.addresses import as_compared, canonical_address

__all__ = ["MAC_DIGITS", "REF_DIGITS", "bounce_address", "message_ref", "recipient_of",
           "token_of"]

MAC_DIGITS = 20
"""Hex digits of the HMAC kept in a token: 80 bits, beyond guessing by sending mail."""

REF_DIGITS = 16
"""Hex digits of a message's reference: 64 bits, unique among a game's messages."""

_TAG = "+bounce-"
_REF = re.compile(rf"[0-9a-f]{{{REF_DIGITS}}}")
_TOKEN = re.compile(rf"([0-9a-f]{{{REF_DIGITS}}})-([0-9a-f]{{{MAC_DIGITS}}})")


def message_ref(message_id: str) -> str:
    """Return a message's reference in return paths: hex digits of its Message-ID's SHA-256."""
    return hashlib.sha256(message_id.strip().encode("utf-8", "surrogatepass")).hexdigest()[
        :REF_DIGITS]


def _mac(secret: str, ref: str, recipient: str) -> str:
    message = f"bounce\n{ref}\n{as_compared(recipient)}"
    # surrogatepass: text read from 8-bit mail may hold lone surrogates, and must not raise.
    digest = hmac.new(
        secret.encode("utf-8", "surrogatepass"),
        message.encode("utf-8", "surrogatepass"),
        hashlib.sha256,
    ).hexdigest()
    return digest[:MAC_DIGITS]


@functools.lru_cache(maxsize=64)  # a host's few game addresses, asked once a copy
def _base_and_domain(game_address: str) -> tuple[str, str] | None:
    """Return the game address's canonical local part up to its first ``+``, and its domain."""
    canonical = canonical_address(game_address.strip().removeprefix("<").removesuffix(">"))
    if canonical is None:
        return None
    local, _, domain = canonical.rpartition("@")
    return local.partition("+")[0], domain


def bounce_address(game_address: str, secret: str, ref: str, recipient: str) -> str:
    """Return the envelope sender of the message ``ref`` (:func:`message_ref`) to ``recipient``.

    ``nomic@example.org`` gives ``nomic+bounce-<ref>-<mac>@example.org`` (any ``+tag``
    of the game's address is dropped: see the module's docstring). Raises ValueError for
    a game address that is not one plain address, an empty secret, or a reference that is
    not 16 lowercase hex digits.
    """
    parts = _base_and_domain(game_address)
    if parts is None:
        raise ValueError(f"not a game address: {game_address!r}")
    if not secret:
        raise ValueError("the bounce secret is empty: anyone could forge bounces")
    if not _REF.fullmatch(ref):
        raise ValueError(f"not a message's reference: {ref!r}")
    base, domain = parts
    return f"{base}{_TAG}{ref}-{_mac(secret, ref, recipient)}@{domain}"


def token_of(address: str, game_address: str) -> str | None:
    """Return the token of ``address`` if it is one of this game's VERP addresses, else None.

    The address may be wrapped in ``<>``; its domain and an ASCII local part are compared
    without regard to case (the token is given in lowercase). Only a well-formed token
    (``<16 hex digits>-<20 hex digits>``) counts: whether it is genuine is for :func:`recipient_of`.
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


def recipient_of(secret: str, token: str, candidates: Iterable[str]) -> tuple[str, str] | None:
    """Return the (message reference, recipient) that ``token`` names, or None.

    The recipient is the first of ``candidates`` (as given) whose MAC for the token's message
    matches, compared in constant time. A malformed token, an empty secret or no matching
    candidate gives None; this never raises.
    """
    match = _TOKEN.fullmatch(token) if secret else None
    if match is None:
        return None
    ref, mac = match.group(1), match.group(2)
    for candidate in candidates:
        if hmac.compare_digest(_mac(secret, ref, candidate), mac):
            return ref, candidate
    return None
