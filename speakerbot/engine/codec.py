"""Events to and from plain JSON values, for storage and replay.

Decoding is msgspec's: a table from each event's ``"type"`` to its class, and
``msgspec.convert`` builds the event from its type hints (times, decimals, enums, tuples,
nested clauses and facts). Two things are done by hand around it:

- Encoding stays hand-written (``to_json``). The stored bytes of every event are pinned
  (stored records and their hashes depend on them), and msgspec writes them differently:
  a UTC time as ``...Z`` rather than ``...+00:00``, a duration as ``PT1H`` rather than
  seconds, and it does not know ``Fraction``; the mechanics are stored as their written
  values, not field by field. Facts are stored with their default fields left out.
- Records written before refusals were typed carry ``reason``/``remedy`` strings in
  ``CommandRejected`` and ``ClauseFailed``: they decode as ``Refusal.RECORDED`` with the
  words kept, so they are said exactly as before.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine.events import EVENT_TYPES, Event
from speakerbot.engine.mechanics import ADDED_LATER, PARAMETERS, Mechanics
from speakerbot.engine.model import Clause, RuleSpec
from speakerbot.engine.refusals import Facts, Refusal

_FACT_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Facts)}
# Fields added with the clause kinds players write (REPLACE, APPEND, INSERT), and with the
# parts of a rule they edit (paragraphs, sentences, list items, lines) and enactments' titles,
# and with the conditions on another proposal's fate a clause may carry.
_CLAUSE_DEFAULTS = {"old": "", "new": "", "every": False, "anchor": "", "position": "",
                    "unit": "", "nth": 0, "title": "", "whole": False,
                    "condition": None}
# Event fields added with ballot receipts, and their values in older records (as JSON).
# A proposal's debate (debate.py) likewise: a proposal distributed without one encodes as before.
# A game's record version likewise: a game of version 1 starts as it always did.
# A game imported from a hand-run one (``speakerbot import``) likewise: where it came from,
# the number its next proposal takes; and its rules' titles and history lines. A game's
# phrases likewise (readings.py): a game started before them encodes as before. A draw's
# proof and a game's first seed's commitment likewise (draw_events.py). A proposal's lines
# left to the host likewise (handwork_events.py).
_EVENT_FIELDS_ADDED: dict[str, Any] = {"salt": "", "salts": [], "debate_until": None,
                                       "record_version": 1, "imported_from": "",
                                       "next_proposal": 0, "phrases": [],
                                       "overridden": [], "draw": None, "commitment": "",
                                       "replaces": "", "unclear": []}
_RULE_DEFAULTS: dict[str, Any] = {"title": "", "history": ()}


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
    if isinstance(value, Facts | Clause | RuleSpec):
        return _sparse(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_json(item) for key, item in value.items()}
    raise TypeError(f"cannot store {type(value).__name__}")


def _sparse(value: Facts | Clause | RuleSpec) -> dict[str, Any]:
    """Write facts, a clause or a ruleset's rule, leaving out the fields stored only when set.

    A fact is stored only when it differs from its default; a clause's fields of REPLACE and
    INSERT likewise, so that a clause of the older kinds is stored exactly as it always was;
    a rule's title and imported history likewise, so a preset's rule is stored as before.
    """
    if isinstance(value, Facts):
        return {name: to_json(getattr(value, name)) for name, default in _FACT_DEFAULTS.items()
                if getattr(value, name) != default}
    if isinstance(value, RuleSpec):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(RuleSpec)
                if f.name not in _RULE_DEFAULTS or
                getattr(value, f.name) != _RULE_DEFAULTS[f.name]}
    return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(Clause)
            if f.name not in _CLAUSE_DEFAULTS or
            getattr(value, f.name) != _CLAUSE_DEFAULTS[f.name]}


def event_to_json(event: Event) -> dict[str, Any]:
    """Turn an event into a JSON object with its kind under ``"type"``.

    Fields added to events after records were first kept (a ballot's salt) are written only
    when set, so an event of an older kind encodes exactly as it always did.
    """
    data: dict[str, Any] = to_json(event)
    for name, default in _EVENT_FIELDS_ADDED.items():
        if name in data and data[name] == default:
            del data[name]
    if isinstance(event, e.RuleEnacted) and not event.title:
        # An enactment's title, added with rules' titles: only this event's field of that
        # name may be left out (a game's or a proposal's title is always written).
        del data["title"]
    if isinstance(event, e.GameStarted):
        data["mechanics"] = _without_legacy(event.mechanics, data["mechanics"])
    return {"type": type(event).__name__, **data}


def _without_legacy(mechanics: Mechanics, written: dict[str, str]) -> dict[str, str]:
    """Leave out each mechanic added later whose value is the one an older record implies.

    Decoding puts it back (``Mechanics.from_strings(..., recorded=True)``), so the meaning is
    the same, and a game started before the mechanic existed encodes exactly as it always did.
    """
    return {name: value for name, value in written.items()
            if name not in ADDED_LATER
            or getattr(mechanics, name) != PARAMETERS[name].parse(ADDED_LATER[name])}


def event_from_json(data: dict[str, Any]) -> Event:
    """Rebuild an event from ``event_to_json``'s output (or from an older record's)."""
    # Imported here: the engine folds events to JSON while it plays (anchors.py), and
    # ``speakerbot parse`` imports the engine but must start on the standard library alone.
    import msgspec

    fields = dict(data)
    kind = EVENT_TYPES.get(str(fields.pop("type", "")))
    if kind is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    if kind is e.GameStarted:
        fields["mechanics"] = Mechanics.from_strings(fields["mechanics"], recorded=True)
    elif kind in (e.CommandRejected, e.ClauseFailed) and "reason" in fields:
        _recorded_refusal(fields)
    try:
        event: Event = msgspec.convert(fields, kind)
    except msgspec.ValidationError as error:
        raise TypeError(f"cannot rebuild {kind.__name__}: {error}") from None
    return event


def _recorded_refusal(fields: dict[str, Any]) -> None:
    """Turn an old record's words into a recorded refusal that keeps them."""
    reason, remedy = fields.pop("reason"), fields.pop("remedy", "")
    fields["refusal"] = Refusal.RECORDED.value
    fields["facts"] = {"text": reason, "detail": remedy} if remedy else {"text": reason}
