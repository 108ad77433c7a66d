"""Bounces, as a mailing list scores them: matched by VERP, counted, and told to the host.

Each copy the Speaker sends leaves from a return path of its own (``verp.bounce_address``)
that names the message and the recipient under the game's secret, so a bounce coming back
names whose mailbox failed, and nobody can make one name another. A hard bounce counts 1
point, a soft one 0.5 (kept in tenths); one message bounced twice to one recipient counts
once, as the worse. At ``[limits] bounce_score`` points within :data:`WINDOW`, an observer
stops observing, and a player is marked unreachable: the host is told once, and nothing in
the game changes by itself. A successful delivery report, or authenticated mail from the
address, forgets its bounces and the mark. A bounce is never answered.

A message is a bounce only when it is automatic mail (never answered anyway: a delivery
report, an auto-reply) delivered to a return path whose MAC names a recipient of ours. A
person's mail is never one, whatever its headers say: anyone may put a return path, real or
made up, in To or Cc, and a player's reply-all to it must still be read. A forged or
unverifiable token changes nothing: the message goes on as ordinary mail.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from speakerbot.adapters.store import InboundRow
from speakerbot.mail.inbound.bounces import BounceKind, read_report, return_path_tokens
from speakerbot.mail.inbound.reading import NEVER_ANSWER, InboundMail
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


@dataclass(frozen=True)
class Bounced:
    """A bounce whose return path names one of our messages and its recipient."""

    kind: BounceKind
    detail: str
    message: str
    """The message's reference (``verp.message_ref``)."""
    address: str
    """The recipient the return path names."""


def bounce_in(deps: Deps, batch: Batch, row: InboundRow, mail: InboundMail) -> Bounced | None:
    """Return the bounce ``row`` is, if it is one (see the module's docstring); else None."""
    if mail.skipped not in NEVER_ANSWER:
        return None  # a person's mail: read as any other, whatever it was delivered to
    head, _ = split_header_block(row.raw)
    if _MARK not in head.lower():
        return None  # the mark is in a header of every message to a return path
    tokens = return_path_tokens(row.raw, deps.identity.address)
    if not tokens:
        return None
    state = batch.state
    candidates = [address for address in {*state.players, state.speaker, state.host,
                                          deps.settings.game.speaker,
                                          *deps.store.observers(batch.uow.session)}
                  if address]
    for token in tokens:
        named = recipient_of(deps.identity.secret, token, candidates)
        if named is not None:
            kind, detail = read_report(row.raw)
            return Bounced(kind, detail, *named)
    return None


def count_bounce(deps: Deps, batch: Batch, row: InboundRow, bounce: Bounced) -> str:
    """Count a bounce against the recipient its return path names; say what was done."""
    session = batch.uow.session
    state = batch.state
    message, address = bounce.message, bounce.address
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
