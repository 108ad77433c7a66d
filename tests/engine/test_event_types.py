"""The engine's one list of event kinds (EVENT_TYPES) against the modules that declare them."""

from __future__ import annotations

import dataclasses

from speakerbot.engine import debate_events, events, pace_events
from speakerbot.engine.base_event import Event, PrivateEvent
from speakerbot.engine.events import EVENT_TYPES


def test_every_kind_of_event_declared_is_listed_once_by_its_name() -> None:
    declared = {kind for module in (events, pace_events, debate_events)
                for kind in vars(module).values()
                if isinstance(kind, type) and issubclass(kind, Event)
                and kind not in (Event, PrivateEvent)}
    assert set(EVENT_TYPES.values()) == declared
    assert all(name == kind.__name__ for name, kind in EVENT_TYPES.items())


def test_a_private_event_names_the_field_of_the_one_who_may_see_it() -> None:
    private = [kind for kind in EVENT_TYPES.values() if not kind.public]
    assert private and all(issubclass(kind, PrivateEvent) for kind in private)
    for kind in private:
        assert isinstance(kind, type) and issubclass(kind, PrivateEvent)
        assert kind.seen_by in {field.name for field in dataclasses.fields(kind)}, kind
