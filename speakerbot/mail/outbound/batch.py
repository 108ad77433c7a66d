"""The public API of the announcements' composers: a batch of events, and the voice that mails it.

The announcer groups a batch of events by the event that heads each message and hands each
group to the composer registered for its head's kind. Composers live with their mail
(:mod:`.debate`, :mod:`.pace`, :mod:`.reminders`): each module declares ``COMPOSERS``, a table
from the kinds of event it composes to its functions, and the announcer merges them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from speakerbot.engine import events as e
from speakerbot.engine.mechanics import JudgePolicy
from speakerbot.engine.model import GameState
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer

ENDINGS = (e.GameWon, e.NewGameBegun, e.GameEnded)
"""The events that end a game: each batch that holds one gets a game-over message too."""
HOST_TODO = (e.MechanicNotRead, e.MechanicsMayHaveChanged)
"""The events that ask the host to check a mechanic: said in the Speaker's notice alone."""


@dataclass(frozen=True)
class Batch:
    """What a group's composer needs besides its head: the state after and before, the key."""

    state: GameState
    before: GameState
    key: str
    rest: Sequence[e.Event]
    record: tuple[int, str] | None = None  # the public record's head: number, hash

    def plain(self) -> list[e.Event]:
        """Return the group's events but those that end a game (they get their own message).

        Nor the host's to-do (a mechanic that could not be read, or that may have changed
        with its rule): the Speaker's notice, to the Speaker alone, asks the host about it
        and says what to send; the players' mail is no place for the host's to-do list.
        """
        return [ev for ev in self.rest if not isinstance(ev, (*ENDINGS, *HOST_TODO))]


class Voice(Protocol):
    """Who the game is on the wire, and the templates it writes with (the announcer)."""

    identity: GameIdentity
    renderer: Renderer


Composer = Callable[[Voice, Any, Batch], Outgoing]
"""A composer: the voice, the event that heads the message, and its batch, in; the mail out."""


def public_recipients(state: GameState, identity: GameIdentity) -> tuple[str, ...]:
    """Return who gets public mail: the list, else every player and the Speaker."""
    if identity.list_address:
        return (identity.list_address,)
    everyone = [p.address for p in state.active_players()]
    # The Speaker and a named Judge (rurru 210) need not be players but must hear everything.
    extra = [state.speaker]
    if state.mechanics is not None and state.mechanics.judge_policy is JudgePolicy.NAMED:
        extra.append(state.named_judge)
    everyone += [address for address in extra if address and address not in everyone]
    return tuple(dict.fromkeys(everyone))  # the host may be both Speaker and named Judge


def announce(voice: Voice, batch: Batch, subject: str, template: str, *,
             key: str | None = None, topic: str | None = None,
             **context: object) -> Outgoing:
    """Compose a public announcement from a template, keyed by its batch unless told.

    ``topic`` (results, distribution) is kept with the mail so that the outbox can count
    waiting mail by what it is without reading its Subject.
    """
    state = batch.state
    body = voice.renderer.render(template, game=state, identity=voice.identity, **context)
    return Outgoing("announcement", public_recipients(state, voice.identity), subject, body,
                    batch.key if key is None else key, public=True, topic=topic)
