"""The host's list of hand work: what an adopted proposal left undone, opened and closed.

Every part of an adopted proposal that speakerbot could not carry out (a line it could not
read, a clause that failed, a whole informal proposal, a mechanic its new rule no longer
states) becomes an open item of the game (``HandWorkOpened``), until the host closes it by
hand or by editing a rule it names (``HandWorkDone``). Both are listed in
:data:`speakerbot.engine.events.EVENT_TYPES`.
"""

from __future__ import annotations

from dataclasses import dataclass

from speakerbot.engine.base_event import Event


@dataclass(frozen=True)
class HandWorkOpened(Event):
    """Item ``item``: words of adopted proposal ``proposal`` the Speaker must carry out."""

    item: int
    proposal: int
    words: str
    rules: tuple[int, ...]  # the rules the words name: editing one of them closes the item


@dataclass(frozen=True)
class HandWorkDone(Event):
    """Item ``item`` is closed: ``how`` is "done" (the host said so) or "edit" (a rule edited).

    ``reason``: the host's words, or what the edit that closed it did.
    """

    item: int
    how: str
    reason: str
