"""Bounces, as a mailing list scores them: matched by VERP, counted, and told to the host.

Each copy the Speaker sends leaves from a return path of its own (``verp.bounce_address``)
that names the message and the recipient under the game's secret, so a bounce coming back
names whose mailbox failed, and nobody can make one name another. A hard bounce counts 1
point, a soft one 0.5 (kept in tenths); one message bounced twice to one recipient counts
once, as the worse. At ``[limits] bounce_score`` points within :data:`WINDOW`, an observer
stops observing, and a player is marked unreachable: the host is told once, and nothing in
the game changes by itself. A successful delivery report, or authenticated mail from the
address, forgets its bounces and the mark. A bounce is never answered.
"""

from __future__ import annotations

from datetime import timedelta

from speakerbot.adapters.store import InboundRow
from speakerbot.mail.inbound.bounces import Bounce, read_bounce
from speakerbot.mail.outbound.compose import Outgoing
from speakerbot.mail.verp import recipient_of
from speakerbot.rfc5322 import split_header_block
from speakerbot.service.deps import Deps
from speakerbot.service.unit_of_work import Batch

WINDOW = timedelta(days=14)
"""Bounces older than this no longer count."""
WEIGHTS = {"hard": 10, "soft": 5}
"""What each kind of bounce counts, in tenths of a point."""
_MARK = b"+bounce-"


def bounce_in(deps: Deps, row: InboundRow) -> Bounce | None:
    """Return the bounce ``row`` is, if it came to one of the game's return paths."""
    head, _ = split_header_block(row.raw)
    if _MARK not in head.lower():
        return None  # the mark is in a header of every message to a return path
    return read_bounce(row.raw, deps.identity.address)


def count_bounce(deps: Deps, batch: Batch, row: InboundRow, bounce: Bounce) -> str:
    """Count a bounce against the recipient its return path names; say what was done."""
    session = batch.uow.session
    state = batch.state
    candidates = {*state.players, state.speaker, state.host, deps.settings.game.speaker,
                  *deps.store.observers(session)}
    named = recipient_of(deps.identity.secret, bounce.token,
                         (address for address in candidates if address))
    if named is None:
        return "a bounce whose return path names no recipient of ours: nothing counted"
    message, address = named
    if bounce.kind == "delivered":
        forget(deps, batch, address)
        return f"a delivery report: {address} receives our mail"
    weight = WEIGHTS.get(bounce.kind)
    if weight is None:
        return f"sent to {address}'s return path but no failure report: nothing counted"
    deps.store.add_bounce(session, address=address, message=message, weight=weight,
                          detail=bounce.detail, at=row.received_at)
    if batch.uow.bounced is not None:
        batch.uow.bounced.add(address)
    score = deps.store.bounce_weight(session, address, row.received_at - WINDOW)
    said = f"a {bounce.kind} bounce of mail to {address} ({score / 10:g} points)"
    if score < 10 * deps.settings.limits.bounce_score:
        return said
    if deps.store.remove_observers(session, [address]):
        return said + ": no longer an observer"
    player = state.players.get(address)
    if player is not None and deps.store.mark_unreachable(session, address, row.received_at):
        body = deps.replies.renderer.render(
            "unreachable.txt", name=player.name, address=address, score=f"{score / 10:g}",
            limit=deps.settings.limits.bounce_score, days=WINDOW.days, detail=bounce.detail)
        batch.outgoing.append(Outgoing("notice", (deps.settings.game.speaker,),
                                       f"Mail to {player.name} bounces", body,
                                       f"unreachable:{address}:{row.id}"))
        return said + ": marked unreachable, the host is told"
    return said


def heard_from(deps: Deps, batch: Batch, sender: str, authenticated: bool) -> None:
    """Forget the bounces of an address that wrote to the game, authenticated.

    The addresses with bounces are read once per transaction (a batch of mail), not asked
    about at every message: most games have none.
    """
    if not authenticated:
        return
    uow = batch.uow
    if uow.bounced is None:
        uow.bounced = deps.store.bounced(uow.session)
    if sender in uow.bounced:
        forget(deps, batch, sender)


def forget(deps: Deps, batch: Batch, address: str) -> None:
    """Forget an address's bounces and its unreachable mark (it receives our mail)."""
    deps.store.clear_bounces(batch.uow.session, address)
    if batch.uow.bounced is not None:
        batch.uow.bounced.discard(address)
