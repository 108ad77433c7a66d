"""Digests by choice: a player's or observer's public mail once a day, in one MIME digest.

``DIGEST ON`` (by mail, or ``speakerbot player digest EMAIL on`` on the desk) puts an
address in digest mode, kept in the store as the observers are. From then on, when public
mail is queued (``UnitOfWork._queue``), the address is not one of its recipients: a copy is
kept for it instead (``digest_copies``), in the same transaction as the message. Once a day,
at ``[game] digest_time`` in ``[game] timezone``, the tick queues each reader one digest of
the copies kept before that moment, in the order the messages went, and deletes those
copies in the same transaction: a copy is held once and sent once, whatever crashes
between (the digest's Message-ID comes from the reader and the moment, so a digest queued
again is the same message). A reader with nothing kept gets no digest.

Only public mail is ever kept: replies, requests for a code, reminders and the host's
notices go at once. A digest holds the messages as they were sent to everyone, so it shows
nothing that was not public already (sealed ballots stay sealed). ``DIGEST OFF`` brings
each message again; what was kept before still comes in the next digest. An observer who
stops observing is sent nothing more: their kept copies are dropped at the digest.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from speakerbot.adapters.store import HeldCopy, OutgoingMail
from speakerbot.config import GameSettings
from speakerbot.engine import GameState
from speakerbot.mail.outbound.daily import KIND, daily_digest
from speakerbot.service.deps import Deps
from speakerbot.service.policy import ServiceError
from speakerbot.service.unit_of_work import open_unit


def last_moment(game: GameSettings, now: datetime) -> datetime:
    """Return the latest digest time at or before ``now``, in the game's time zone."""
    zone = ZoneInfo(game.timezone)
    local = now.astimezone(zone)
    moment = datetime.combine(local.date(), time(*game.digest_time), tzinfo=zone)
    if moment > local:
        moment = datetime.combine(local.date() - timedelta(days=1), time(*game.digest_time),
                                  tzinfo=zone)
    return moment


def next_moment(game: GameSettings, after: datetime) -> datetime:
    """Return the first digest time after ``after``, in the game's time zone."""
    zone = ZoneInfo(game.timezone)
    local = after.astimezone(zone)
    moment = datetime.combine(local.date(), time(*game.digest_time), tzinfo=zone)
    if moment <= local:
        moment = datetime.combine(local.date() + timedelta(days=1), time(*game.digest_time),
                                  tzinfo=zone)
    return moment


def next_due(deps: Deps, oldest: datetime | None) -> datetime | None:
    """Return when the next digest is due, the ``oldest`` copy kept for one (None: none)."""
    return None if oldest is None else next_moment(deps.settings.game, oldest)


def choose(deps: Deps, session: Session, state: GameState, address: str, on: bool,
           when: datetime) -> str:
    """Put ``address`` in digest mode (``on``) or take it out; return what changed, said."""
    changed = deps.store.set_digest_reader(session, address, on, when)
    game = deps.settings.game
    at = digest_time(game)
    listed = (f" This game's public mail goes to its list, {game.list}, as one copy: the "
              "list's own settings say how it comes to you there."
              if game.list and address in state.players else "")
    if on and changed:
        said = (f"Digest mode is on: the game's public mail now comes to you once a day, at "
                f"{at}, in one digest holding every public message of the day in order. "
                "Replies, requests and reminders still come at once. DIGEST OFF ends it.")
    elif on:
        said = f"You are in digest mode already: your digest comes once a day at {at}."
    elif changed:
        said = ("Digest mode is off: the game's public mail comes to you again as each "
                "message is sent. Anything kept for your digest so far still comes in it, "
                f"at {at}.")
    else:
        said = "You were not in digest mode: each public message comes to you as it is sent."
    return said + listed


def choose_at_desk(deps: Deps, address: str, on: bool) -> bool:
    """Set a player's or observer's digest mode from the desk; False: it was so already.

    ``ServiceError`` for an address that is neither.
    """
    with deps.states.lock, open_unit(deps) as uow:
        player = uow.state().players.get(address)
        if (player is None or not player.active) and \
                address not in deps.store.observers(uow.session):
            raise ServiceError(f"{address} is no player or observer of this game")
        return deps.store.set_digest_reader(uow.session, address, on, deps.clock())


def digest_time(game: GameSettings) -> str:
    """Return when the digests go, as the game says it: ``18:00 (UTC)``."""
    hour, minute, second = game.digest_time
    seconds = f":{second:02d}" if second else ""
    return f"{hour:02d}:{minute:02d}{seconds} ({game.timezone})"


def send_digests(deps: Deps) -> int:
    """Queue the digests due now, each reader's copies kept before the digest time.

    Looked at first without a write transaction: the tick calls it when its marks say a
    digest is due, and after every gathering, whose parts may have been kept for one. Return
    how many digests were queued.
    """
    game, now = deps.settings.game, deps.clock()
    oldest = deps.store.next_digest_copy()
    if oldest is None or next_moment(game, oldest) > now:
        return 0
    moment = last_moment(game, now)
    with deps.states.lock, open_unit(deps) as uow:
        copies = deps.store.digest_copies_before(uow.session, moment)
        observing = set(deps.store.observers(uow.session))
        by_reader: dict[str, list[HeldCopy]] = {}
        for copy in copies:
            # An observer who stopped is sent nothing more; the copy goes all the same.
            if not copy.observer or copy.address in observing:
                by_reader.setdefault(copy.address, []).append(copy)
        game_id = uow.state().game_id
        for reader, held in by_reader.items():
            key = f"{game_id}|digest:{reader}:{moment.isoformat()}"
            message_id, raw = daily_digest(
                deps.replies.renderer, deps.identity, reader,
                [(copy.raw, copy.queued_at) for copy in held], moment, key, date=now,
                observer=reader in observing)
            uow.queued.append(OutgoingMail(
                message_id, deps.identity.address, (reader,), raw, KIND, None, now,
                priority=0, observers=(reader,) if reader in observing else ()))
        deps.store.drop_digest_copies(uow.session, [copy.id for copy in copies])
    return len(by_reader)
