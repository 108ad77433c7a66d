"""Observers: addresses that follow the game's public mail without playing (OBSERVE).

An observer is kept by the service, not the engine: following the game changes nothing in
it, and the record stays the game's. ``OBSERVE`` always asks the address to confirm with a
code (double opt-in, as a mailing list does), so that nobody is signed up by a forger;
the request counts as the one mail a day an address that is no player may get.
``UNOBSERVE`` acts at once when the mail is authenticated, and otherwise by a code too.
A player is never an observer: joining ends observing, and a player's OBSERVE is answered
with what they get already.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from speakerbot.engine import GameState
from speakerbot.mail.inbound import language as lang
from speakerbot.service.deps import Deps

AUDIENCE = (lang.Observe, lang.Unobserve)
"""The commands of the game's audience, handled here for an address that is no player."""


@dataclass(frozen=True)
class Change:
    """An observer to add (``observe``) or to remove, once the message's commands all apply."""

    address: str
    observe: bool


def observers(deps: Deps, session: Session | None = None) -> list[str]:
    """Return the game's observers, in the order they began."""
    return list(deps.store.observers(session))


def answer(deps: Deps, session: Session, state: GameState, sender: str, observe: bool,
           changes: list[Change]) -> tuple[str, bool]:
    """Answer one OBSERVE or UNOBSERVE of a trusted message; say whether it was refused.

    A change is added to ``changes``, carried out by :func:`carry_out` with the message's
    other commands (each stands on its own).
    """
    player = state.players.get(sender)
    if (player is not None and player.active) or sender in (state.speaker, state.host):
        if observe:
            return "You play in this game: its public mail comes to you already.", False
        return ("You play in this game, so you are no observer; FORFEIT leaves the game.",
                False)
    current = deps.store.observers(session)
    pending = {change.address: change.observe for change in changes}
    observing = pending.get(sender, sender in current)
    if observe and observing:
        return "You observe this game already.", False
    if not observe and not observing:
        return "You were not observing this game; nothing changes.", False
    if observe and not has_room(deps, current):
        return (f"Refused: this game has as many observers as it takes "
                f"({deps.settings.limits.max_observers}, [limits] max_observers).", True)
    changes.append(Change(sender, observe))
    if observe:
        return ("You now observe this game: its public mail (proposals, results, judgements, "
                "digests) comes to you. Send UNOBSERVE to stop.", False)
    return "You no longer observe this game: nothing more will come to you.", False


def has_room(deps: Deps, observers: Mapping[str, object]) -> bool:
    """Whether the game takes one more observer (``[limits] max_observers``)."""
    return len(observers) < deps.settings.limits.max_observers


def carry_out(deps: Deps, session: Session, changes: Sequence[Change], when: datetime) -> None:
    """Add and remove the observers a message's OBSERVE and UNOBSERVE asked for."""
    for change in changes:
        if change.observe:
            deps.store.add_observer(session, change.address, when)
        else:
            deps.store.remove_observers(session, [change.address])
