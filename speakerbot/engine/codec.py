"""Events to and from plain JSON values, driven by their type hints, for storage and replay."""

from __future__ import annotations

import dataclasses
import types
import typing
from datetime import datetime, timedelta
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from functools import cache
from typing import Any

from speakerbot.engine.events import EVENT_TYPES, Event
from speakerbot.engine.mechanics import Mechanics


def to_json(value: Any) -> Any:
    """Turn an engine value (event, clause, mechanics, time...) into JSON-ready data."""
    if isinstance(value, Enum):
        return value.value
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, Mechanics):
        return value.as_strings()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_json(item) for key, item in value.items()}
    raise TypeError(f"cannot store {type(value).__name__}")


def from_json(hint: Any, data: Any) -> Any:
    """Rebuild a value of the hinted type from what ``to_json`` made of it."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        (kind,) = [arg for arg in args if arg is not type(None)]
        return from_json(kind, data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_json(args[0], item) for item in data)
        return tuple(from_json(kind, item) for kind, item in zip(args, data, strict=True))
    if origin is list:
        return [from_json(args[0], item) for item in data]
    if origin is dict:
        return {from_json(args[0], key): from_json(args[1], item) for key, item in data.items()}
    if hint is Any:
        return data
    if hint is datetime:
        return datetime.fromisoformat(data)
    if hint is timedelta:
        return timedelta(seconds=data)
    if hint is Decimal:
        return Decimal(data)
    if hint is Fraction:
        return Fraction(data)
    if hint is Mechanics:
        return Mechanics.from_strings(data)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(data)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        return hint(**{f.name: from_json(hints[f.name], data[f.name])
                       for f in dataclasses.fields(hint)})
    if hint is int and isinstance(data, str):
        return int(data)
    if hint in (bool, int, str):
        if not isinstance(data, hint):
            raise TypeError(f"expected {hint.__name__}, found {data!r}")
        return data
    raise TypeError(f"cannot rebuild {hint!r}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def event_to_json(event: Event) -> dict[str, Any]:
    """Turn an event into a JSON object with its kind under ``"type"``."""
    data: dict[str, Any] = to_json(event)
    return {"type": type(event).__name__, **data}


def event_from_json(data: dict[str, Any]) -> Event:
    """Rebuild an event from ``event_to_json``'s output."""
    fields = dict(data)
    kind = EVENT_TYPES.get(str(fields.pop("type", "")))
    if kind is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    event: Event = from_json(kind, fields)
    return event
