"""Mail about observing from an address that is no player: OBSERVE and UNOBSERVE, by a code.

An observer's DIGEST ON or OFF is taken here too (:func:`take_digest_choice`).

What an observer is, and the answers a player or a confirmed message gets, are in
:mod:`speakerbot.service.observing`; this stage comes after the confirmations, whose
request for a code OBSERVE always takes.
"""

from __future__ import annotations

from speakerbot.adapters.store import InboundRow
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.intake import Reading
from speakerbot.mail.outbound.compose import Outgoing, wrap
from speakerbot.service.answering import answer_stranger, send_stranger
from speakerbot.service.confirmations import hold
from speakerbot.service.deps import Deps
from speakerbot.service.digests import choose
from speakerbot.service.observing import AUDIENCE, has_room
from speakerbot.service.policy import routes_to_game
from speakerbot.service.reading import is_known
from speakerbot.service.unit_of_work import Batch


def take_request(deps: Deps, batch: Batch, row: InboundRow, reading: Reading, *,
                 trusted: bool) -> bool:
    """Take the OBSERVE or UNOBSERVE of an address that is no player; False: not one.

    OBSERVE is held and confirmed by a code, even authenticated; UNOBSERVE from an
    observer acts at once when authenticated, and is held otherwise. Everything else an
    address that is no player gets is the stranger's one short mail a day.
    """
    mail, parsed = reading.mail, reading.commands
    sender = mail.sender or ""
    wanted = [cmd for cmd in parsed.commands if isinstance(cmd, AUDIENCE)]
    if not wanted or is_known(deps.settings, batch.state, sender):
        return False
    if routes_to_game(sender, deps.settings.game):
        # Mail to a +tag of the game comes back to the game: never an observer, and no
        # request for a code sent to itself; it is answered as any stranger.
        answer_stranger(deps, batch, row, mail)
        batch.note, batch.reason = "from an address of the game itself", "game-address"
        return True
    current = deps.store.observers(batch.uow.session)
    observing = sender in current
    stop = isinstance(wanted[-1], lang.Unobserve)  # the last word is the sender's wish
    if parsed.errors or mail.problem or (stop and not observing):
        answer_stranger(deps, batch, row, mail)
    elif stop and trusted:
        deps.store.remove_observers(batch.uow.session, [sender])
        short_answer(deps, batch, row, sender, "You no longer observe this game: nothing "
                     "more will come to you.", "Stopped observing")
    elif not stop and observing:
        short_answer(deps, batch, row, sender, "You observe this game already. Send "
                     "UNOBSERVE to stop.", "Observing already")
    elif not stop and not has_room(deps, current):
        short_answer(deps, batch, row, sender, "This game has as many observers as it takes; "
                     "nothing changes.", "No room for observers")
    else:
        held(deps, batch, row, reading, subscribing=not stop, trusted=trusted)
        return True
    batch.note, batch.reason = batch.note or "an observer's request", "audience"
    return True


def held(deps: Deps, batch: Batch, row: InboundRow, reading: Reading, *, subscribing: bool,
         trusted: bool) -> None:
    """Hold an OBSERVE (``subscribing``) or UNOBSERVE until its code comes back.

    An authenticated OBSERVE is its sender's own wish: its request is bounded by the
    address's one mail a day, not by the size of the message (an empty OBSERVE is smaller
    than any request). A forgeable one stays bounded by its own size; an UNOBSERVE never is
    (its address asked for the game's mail).
    """
    hold(deps, batch, row, reading.mail, bounded=subscribing and not trusted,
         subscribing=subscribing and trusted)
    batch.note = batch.note or "held: OBSERVE or UNOBSERVE, confirmed by a code"


def short_answer(deps: Deps, batch: Batch, row: InboundRow, sender: str, text: str,
                 subject: str) -> None:
    """Send an address that is no player one short line, within the stranger's daily mail."""
    send_stranger(deps, batch, row, Outgoing("stranger", (sender,), subject, text + "\n",
                                             f"audience:{row.message_id}:{row.id}"))


def take_digest_choice(deps: Deps, batch: Batch, row: InboundRow, reading: Reading, *,
                       trusted: bool) -> bool:
    """Take an observer's DIGEST ON or OFF; False: not one.

    Only from authenticated (or confirmed) mail: a forger must not change how an observer
    gets the game. The last DIGEST line is the observer's wish; other lines are not read.
    """
    mail, parsed = reading.mail, reading.commands
    sender = mail.sender or ""
    wanted = [cmd for cmd in parsed.commands if isinstance(cmd, lang.DigestMode)]
    if not wanted or is_known(deps.settings, batch.state, sender) or \
            sender not in deps.store.observers(batch.uow.session):
        return False
    if parsed.errors or mail.problem:
        answer_stranger(deps, batch, row, mail)
    elif not trusted:
        short_answer(deps, batch, row, sender, "DIGEST needs mail your provider "
                     "authenticates; nothing changes.", "Digest mode unchanged")
    else:
        said = choose(deps, batch.uow.session, batch.state, sender, wanted[-1].on,
                      row.received_at)
        short_answer(deps, batch, row, sender, wrap(said), "Digest mode")
    batch.note, batch.reason = batch.note or "an observer's DIGEST", "audience"
    return True
