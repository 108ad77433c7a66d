"""A state written out whole, so a start replays only the events after it.

A snapshot is the state after a given event, in msgpack (msgspec builds it back from the
state's type hints: every dataclass, time, decimal, enum; fractions are written as text).
It is only ever a shortcut: the record stays the truth, and whoever keeps snapshots must
throw one away rather than trust it when it was written by other code (see
``speakerbot.service.snapshots``) or does not decode.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec

from speakerbot.engine.model import GameState


class SnapshotError(ValueError):
    """The bytes are not a snapshot of a state this code can read."""


def encode_state(state: GameState) -> bytes:
    """Write a state out whole."""
    return msgspec.msgpack.encode(state, enc_hook=_encode)


def decode_state(data: bytes) -> GameState:
    """Read a state written by ``encode_state`` (SnapshotError if it cannot be read)."""
    try:
        return msgspec.msgpack.decode(data, type=GameState, dec_hook=_decode)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError) as error:
        raise SnapshotError(f"not a snapshot of a game state: {error}") from None


def _encode(value: Any) -> Any:
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    raise NotImplementedError(f"cannot write {type(value).__name__} in a snapshot")


def _decode(kind: type, value: Any) -> Any:
    if kind is Fraction and isinstance(value, str):
        return Fraction(value)
    raise NotImplementedError(f"cannot read {kind.__name__} from a snapshot")
