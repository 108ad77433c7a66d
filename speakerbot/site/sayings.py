"""One line for each public event, as the archive's timeline shows it.

The same line HISTORY and SHOW send by mail (``speakerbot.mail.outbound.lookups.describe_event``,
from the one catalogue of sentences in ``speakerbot.mail.outbound.sentences``), so that the
archive and the Speaker's answers tell the game alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from speakerbot.engine import events as e
from speakerbot.engine.model import GameState
from speakerbot.mail.outbound.lookups import describe_event

__all__ = ["say"]


class _Names(Mapping[str, str]):
    """The game's display names as the state knows them now, looked up one at a time."""

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __getitem__(self, address: str) -> str:
        name = self.state.name_of(address)
        if name == address:
            raise KeyError(address)
        return name

    def __iter__(self) -> Iterator[str]:
        return iter(self.state.players)

    def __len__(self) -> int:
        return len(self.state.players)


def say(event: e.Event, state: GameState) -> str:
    """Say in one line what a public event did, in the game's words."""
    return describe_event(event, _Names(state))
