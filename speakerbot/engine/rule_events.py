"""The changes of rules: a rule enacted, amended, retitled, repealed or transmuted.

They are listed with every other kind of event in :data:`speakerbot.engine.events.EVENT_TYPES`
(and named from there, as ``events.RuleEnacted`` and so on).
"""

from __future__ import annotations

from dataclasses import dataclass

from speakerbot.engine.base_event import Event


@dataclass(frozen=True)
class RuleEnacted(Event):
    """A rule was enacted."""

    number: int
    text: str
    mutable: bool
    proposal: int | None
    by_speaker: bool = False
    title: str = ""  # as the enactment named it; stored only when it did


@dataclass(frozen=True)
class RuleAmended(Event):
    """A rule's text was replaced (and, where the preset says so, it took a new number)."""

    number: int
    new_number: int
    text: str
    proposal: int | None
    by_speaker: bool = False


@dataclass(frozen=True)
class RuleRetitled(Event):
    """A rule was given a new title (its text and number stay as they were)."""

    number: int
    title: str
    old_title: str
    proposal: int | None
    by_speaker: bool = False


@dataclass(frozen=True)
class RuleRepealed(Event):
    """A rule was repealed."""

    number: int
    proposal: int | None
    by_speaker: bool = False


@dataclass(frozen=True)
class RuleTransmuted(Event):
    """A rule changed between mutable and immutable (and maybe took a new number)."""

    number: int
    new_number: int
    mutable: bool
    proposal: int | None
    by_speaker: bool = False
