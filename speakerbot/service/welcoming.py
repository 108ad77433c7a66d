"""The host's welcome on request: ``speakerbot player welcome`` and ``import --welcome``.

A player who joins is welcomed by the mail that records the joining. An import's players
are not: they are no newcomers to the game, and a host moving a game to speakerbot may
want to tell them first. So the host asks, for everyone or for some, once the game is
ready; and may ask again (a player who lost the first). Each ask is its own batch of
mail, keyed by the moment it was made: asking twice sends twice, and a crash between
queueing and sending sends once (the outbox holds it).
"""

from __future__ import annotations

from collections.abc import Sequence

from speakerbot.mail.outbound.batch import Batch
from speakerbot.mail.outbound.welcome import welcome
from speakerbot.service.deps import Deps
from speakerbot.service.policy import ServiceError
from speakerbot.service.unit_of_work import open_unit


def welcome_players(deps: Deps, addresses: Sequence[str] = ()) -> list[str]:
    """Queue a welcome for each of ``addresses`` (none given: every active player).

    Returns the addresses welcomed, in the order given (or turn order). An address that
    is not an active player refuses the whole ask, and nothing is queued.
    """
    with deps.states.lock, open_unit(deps) as uow:
        state = uow.state()
        active = [player.address for player in state.active_players()]
        strangers = [address for address in addresses if address not in active]
        if strangers:
            raise ServiceError(f"not a player of this game: {', '.join(strangers)}")
        chosen = list(dict.fromkeys(addresses)) or active
        batch = Batch(state, state, f"welcome-asked:{deps.clock().isoformat()}", ())
        uow.record([], state, [welcome(deps.announcer, address, batch) for address in chosen])
    return chosen
