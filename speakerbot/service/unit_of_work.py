"""One transaction of one game as a value: its session, what it appends and queues, its commit.

A handler is given a ``UnitOfWork`` (from ``open_unit``) and the game's ``Deps``; what it
appends to the record and the mail it queues are kept here until ``commit``, so two units
of work (two games, or two transactions) never share a piece of state.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import itertools
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from speakerbot.adapters.store import EventLinks, OutgoingMail
from speakerbot.adapters.store import StoredEvent as StoredRow
from speakerbot.addresses import as_compared
from speakerbot.engine import GameState, chain
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_to_json
from speakerbot.engine.luck import SEED_BYTES, SeededDraws
from speakerbot.engine.seeds import committed_by
from speakerbot.mail.inbound.intake import Reading
from speakerbot.mail.outbound.announcements import HOST_TOPIC
from speakerbot.mail.outbound.compose import ANSWERING_KINDS, Outgoing, compose
from speakerbot.service.deps import Deps
from speakerbot.service.policy import (
    ANSWER_KINDS,
    PUBLIC_KINDS,
    PUBLIC_WINDOW,
    PublicGate,
    gathered_until,
    log,
)
from speakerbot.service.states import StateAt

ReplyCount = tuple[str, tuple[str, ...], datetime]
"""Replies counted: to which address, of which kinds, since when."""

SEED_KEY = "draw-seed:"
"""The store keeps each seed of the game under this prefix and its commitment (never public:
the record holds the commitment, and the seed only once it is revealed)."""

MASTER_KEY = "draw-master"
"""The store's secret from which every seed of the database is made (never public)."""


class UnitOfWork:
    """One transaction of one game: what it has appended and queued so far."""

    def __init__(self, deps: Deps, session: Session) -> None:
        self.deps = deps
        self.session = session
        # What this transaction appended: the cache takes it once the commit succeeded.
        self.committing: StateAt | None = None
        # The record's last number as this transaction sees it: read once per transaction.
        self.seq_seen: int | None = None
        self.ends: tuple[EventLinks | None, EventLinks | None] | None = None
        # Where the record's hash chains end, as this transaction has left them; and the
        # public record's head as the transaction found it.
        self.links: chain.Links | None = None
        self.opened: chain.Head | None = None
        # Mail this transaction queued, written to the outbox together before it commits
        # (or before the outbox is read in it).
        self.queued: list[OutgoingMail] = []
        # Replies counted in this transaction: counted once, then kept up to date as this
        # transaction queues more.
        self.reply_counts: dict[ReplyCount, int] = {}
        # The hour's public mail as this transaction sees it: counted at its first public
        # message, then kept up to date ([limits] public_per_hour).
        self.public: PublicGate | None = None
        # What was read of the messages this transaction handles (by inbound id): what
        # intake read, taken as it is, or what reading_in read once.
        self.known: dict[int, Reading] = {}
        # Seeds made in this transaction (by commitment): stored with the event that
        # commits each, so that a seed made for a command undone is never kept.
        self.seeds_made: dict[str, bytes] = {}
        # The source of this transaction's draws (``luck``), made once.
        self.draws: SeededDraws | None = None
        # The addresses with bounces counted against them, read once (service/bounces.py).
        self.bounced: set[str] | None = None
        # Seeds read from the store in this transaction (None: not kept), read once each:
        # every decision asks whether the game's seed is held.
        self.seeds_read: dict[str, bytes | None] = {}

    def seq(self) -> int:
        """Return the record's last number in this transaction (read once)."""
        if self.seq_seen is None:
            last, _ = self._ends()
            self.seq_seen = 0 if last is None else last.seq
        return self.seq_seen

    def _ends(self) -> tuple[EventLinks | None, EventLinks | None]:
        # Where the record's chains ended when this transaction began: read once, with the
        # record's last number, before anything is appended.
        if self.ends is None:
            self.ends = self.deps.store.chain_ends(self.session)
        return self.ends

    def state(self) -> GameState:
        """Return the state as this transaction has left it, with what it applied so far."""
        return self.deps.states.state(self.session, self.seq(), self.committing)

    def commit(self) -> None:
        """Write the mail queued so far to the outbox (the store commits the rest)."""
        queued, self.queued = self.queued, []
        self.deps.store.enqueue_many(self.session, queued)

    def record(self, events: Sequence[e.Event], state: GameState,
               outgoing: Sequence[Outgoing], *, inbound_id: int | None = None,
               gather: bool = True, covered: Collection[str] = ()) -> None:
        """Append events and queue their messages, in this transaction.

        Public mail beyond the hour's limit is kept to be gathered (``gather``: unless it
        is the gathering itself). ``covered``: addresses left out of the public messages,
        for they have what these hold already (a gathering's parts, kept for their digest).
        """
        deps = self.deps
        if events:
            data = [event_to_json(ev) for ev in events]
            links = self.chain_links()
            placed, self.links = chain.link_all(
                links, zip(itertools.count(links.full.seq + 1), data, strict=False))
            seq = deps.store.append_events(self.session, data, inbound_id=inbound_id, links=[
                EventLinks(p.seq, p.hash, p.public_seq, p.public_hash) for p in placed])
            self.seq_seen = seq
            self.committing = StateAt(seq, state, placed[-1].hash)
            every = deps.settings.database.snapshot_every
            if every and seq // every > (seq - len(events)) // every:
                deps.states.keep_snapshot(seq, placed[-1].hash, state, self.session)
            self._keep_seeds(events)
            # A player is never an observer: joining ends observing.
            joined = [ev.address for ev in events if isinstance(ev, e.PlayerJoined)]
            if joined:
                deps.store.remove_observers(self.session, joined)
                # What was queued to them as observers is theirs as players: it still goes.
                self.commit()
                deps.store.no_longer_observers(self.session, joined)
        now = deps.clock()
        for message in outgoing:
            self._queue(message, state, now, inbound_id, gather, covered)

    def luck(self) -> SeededDraws:
        """Return the source of this transaction's draws, with the record's head as found.

        The engine anchors each draw where the record says, to the last public line before
        the draw's moment (engine/anchors.py), never to anything that moment decided, so a
        transaction tried again after a crash draws exactly as the first attempt would
        have; the source checks that anchor against the stored head when they are one line.
        """
        if self.draws is None:
            head = self.opening()
            self.draws = SeededDraws(head.seq, head.hash, self._seed_of, self._fresh_seed,
                                     self.deps.rng.randrange, self.seeds_made)
        return self.draws

    def first_seed(self) -> str:
        """Make a new game's first seed; return its commitment.

        It follows the record's head as the transaction found it (every game starts at
        another head), so that the same start tried again makes the same seed.
        """
        return self.luck().commit(f"first:{self.opening().hash}")

    def opening(self) -> chain.Head:
        """Return the public record's head as this transaction found it."""
        if self.links is None:
            self.chain_links()
        assert self.opened is not None
        return self.opened

    def _seed_of(self, commitment: str) -> bytes | None:
        if commitment not in self.seeds_read:
            stored = self.deps.store.get_meta(SEED_KEY + commitment, self.session)
            self.seeds_read[commitment] = bytes.fromhex(stored) if isinstance(stored, str) \
                else None
        return self.seeds_read[commitment]

    def _fresh_seed(self, following: str) -> bytes:
        """Make the seed after ``following``: its HMAC-SHA256 under the master secret.

        Made, not drawn: the same transaction tried again makes the same seed.
        """
        message = f"seed\n{following}".encode()
        return hmac.new(self._master(), message, hashlib.sha256).digest()

    def _master(self) -> bytes:
        """Return the store's master secret, drawn once and kept.

        Drawn with the game's address, so that a seeded source (tests) gives each game its own.
        """
        stored = self.deps.store.get_meta(MASTER_KEY, self.session)
        if isinstance(stored, str):
            return bytes.fromhex(stored)
        entropy = self.deps.rng.getrandbits(8 * SEED_BYTES).to_bytes(SEED_BYTES, "big")
        master = hashlib.sha256(entropy + self.deps.settings.game.address.encode()).digest()
        self.deps.store.set_meta(self.session, MASTER_KEY, master.hex(), now=self.deps.clock())
        return master

    def _keep_seeds(self, events: Sequence[e.Event]) -> None:
        """Store the seed of every commitment these events put in the record."""
        for event in events:
            seed = self.seeds_made.get(committed_by(event))
            if seed is not None:
                self.deps.store.set_meta(self.session, SEED_KEY + committed_by(event),
                                         seed.hex(), now=event.at)

    def _queue(self, message: Outgoing, state: GameState, now: datetime,
               inbound_id: int | None, gather: bool, covered: Collection[str] = ()) -> None:
        """Compose one message and queue it (an answer that cannot be written is dropped)."""
        # The game's own id makes Message-IDs unique across games on one address.
        keyed = dataclasses.replace(message, key=f"{state.game_id}|{message.key}")
        identity = self.deps.identity
        try:
            message_id, raw = compose(identity, keyed, now)
        except Exception:
            if message.kind not in ANSWERING_KINDS:
                raise  # the game's own mail is never dropped: the transaction fails
            # An answer that cannot be written (a sender's header the mail library
            # refuses) is dropped: it must not stop the message being applied.
            log.exception("dropped an answer to %s that could not be composed",
                          message.recipients)
            return
        held = self._held_until(now, counted=message.topic != HOST_TOPIC) \
            if message.public and gather else None
        recipients: tuple[str, ...] = message.recipients
        observers: tuple[str, ...] = ()
        digest: tuple[str, ...] = ()
        if message.public:
            # The observers of the moment it is published; the outbox leaves out any who
            # stop before it goes.
            watching, readers = self.deps.store.public_audience(self.session)
            observers = tuple(address for address in watching if address not in recipients)
            recipients, digest = _for_digests((*recipients, *observers), covered, readers)
            if not recipients and not digest:
                return  # everyone has it already, in what a digest keeps for them
        self.queued.append(OutgoingMail(
            message_id, identity.address, recipients, raw, message.kind,
            inbound_id, now, priority=1 if message.kind in ANSWER_KINDS else 0,
            gathered_until=held, topic=message.topic, observers=observers, digest=digest,
        ))
        self._count_queued(message, now)

    def _held_until(self, now: datetime, *, counted: bool = True) -> datetime | None:
        """Return until when a public message queued ``now`` is kept (None: it goes now).

        The hour's count is read at the transaction's first public message. The host's
        overrides (not ``counted``) neither count nor fill the hour: they are kept only
        behind mail kept already, so as not to overtake it.
        """
        if self.public is None:
            sent, waiting = self.deps.store.public_since(now - PUBLIC_WINDOW, PUBLIC_KINDS,
                                                         self.session, uncounted=(HOST_TOPIC,))
            self.public = PublicGate(self.deps.settings.limits.public_per_hour, sent, waiting)
        if not counted:
            return gathered_until(now) if self.public.waiting else None
        return gathered_until(now) if self.public.hold() else None

    def replies_since(self, address: str, since: datetime, kinds: tuple[str, ...]) -> int:
        """Count the mail of ``kinds`` to ``address`` alone since ``since`` (see the store).

        Asked of the store once per transaction; what the transaction queues is added.
        """
        key = (as_compared(address), kinds, since)
        if key not in self.reply_counts:
            self.commit()  # the count must see what was queued
            self.reply_counts[key] = self.deps.store.replies_since(address, since, kinds,
                                                                   self.session)
        return self.reply_counts[key]

    def count_replies_of(self, addresses: Sequence[str], since: datetime,
                         kinds: tuple[str, ...]) -> None:
        """Count the replies of several addresses at once (a batch's senders), for later."""
        self.commit()
        counts = self.deps.store.replies_since_each(addresses, since, kinds, self.session)
        for address, count in counts.items():
            self.reply_counts.setdefault((address, kinds, since), count)

    def _count_queued(self, message: Outgoing, now: datetime) -> None:
        """Add a message just queued to the reply counts it belongs to."""
        if len(message.recipients) != 1:
            return
        addressee = as_compared(message.recipients[0])
        for (address, kinds, since), count in self.reply_counts.items():
            if address == addressee and message.kind in kinds and now >= since:
                self.reply_counts[(address, kinds, since)] = count + 1

    def announce(self, events: Sequence[e.Event], state: GameState, before: GameState, *,
                 earlier: Sequence[e.Event] = ()) -> list[Outgoing]:
        """Compose the messages for events about to be appended after ``earlier`` ones.

        The key is the record number the first of them will take, so it is stable. The
        messages quote the public record's head once these events are in it.
        """
        key = f"e{self.seq() + 1 + len(earlier)}"
        return self.deps.announcer.messages(events, state, key, before,
                                            record=self.record_head([*earlier, *events]))

    def chain_links(self) -> chain.Links:
        """Where the record's chains end in this transaction (an older record linked first)."""
        if self.links is None:
            last, public = self._ends()
            if last is not None and last.hash is None:
                self._link_older_record()
                self.ends = None
                last, public = self._ends()
            full = chain.Head() if last is None else chain.Head(last.seq, last.hash or "")
            shown = chain.Head() if public is None or public.public_seq is None else \
                chain.Head(public.public_seq, public.public_hash or "")
            # Nothing is appended yet in this transaction: the state is the record's, and
            # its public ids are the ones the chain folded up to its end.
            state = self.state()
            self.links = chain.Links(full, shown, dict(state.public_ids), state.record_version)
            self.opened = shown
        return self.links

    def _link_older_record(self) -> None:
        """Link a record kept before the chains existed, exactly as if it had been new."""
        stored = self.deps.store.load_events(self.session)
        placed, _ = chain.link_all(chain.Links(), ((ev.seq, ev.data) for ev in stored))
        self.deps.store.set_links(self.session, [
            EventLinks(p.seq, p.hash, p.public_seq, p.public_hash) for p in placed])
        log.info("linked the %d events of an older record into the hash chains", len(placed))

    def record_head(self, events: Sequence[e.Event] = ()) -> tuple[int, str]:
        """Return the public record's head (number, hash) once ``events`` are appended."""
        links = self.chain_links()
        head = links.public
        for line in chain.public_lines_after(links, (event_to_json(ev) for ev in events)):
            head = chain.Head(line["seq"], line["hash"])
        return head.seq, head.hash


@contextmanager
def open_unit(deps: Deps) -> Iterator[UnitOfWork]:
    """Open one transaction of the game; the cached state moves on only when it commits."""
    with deps.store.transaction() as session:
        uow = UnitOfWork(deps, session)
        yield uow
        uow.commit()
    if uow.committing is not None:
        deps.states.known = uow.committing


@dataclass
class Batch:
    """What one unit of work has done so far: the state, the events and the mail they cause."""

    uow: UnitOfWork
    state: GameState
    events: list[e.Event]
    outgoing: list[Outgoing]
    note: str = ""
    status: str = ""
    reason: str | None = None  # why it was not acted on, as a short code (beside ``note``)
    notes: list[str] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)


def stored_record(deps: Deps, uow: UnitOfWork | None = None, *,
                  as_stored: bool = False) -> list[chain.StoredEvent]:
    """Return the whole record with each event's links as stored.

    A record kept before the chains, not linked yet (its next write links it), is
    linked here as that write will link it, unless ``as_stored`` (to verify it).
    """
    rows = deps.store.load_events(uow.session if uow is not None else None, links=True)
    unlinked = any(row.links is None or row.links.hash is None for row in rows)
    if unlinked and not as_stored:
        placed, _ = chain.link_all(chain.Links(), ((row.seq, row.data) for row in rows))
        return [chain.StoredEvent(row.seq, row.data, place)
                for row, place in zip(rows, placed, strict=True)]
    return [_as_stored(row) for row in rows]


def _as_stored(row: StoredRow) -> chain.StoredEvent:
    """Return a stored row as the chain reads it (unlinked: ``place`` None)."""
    return chain.StoredEvent(row.seq, row.data, None if row.links is None
                             or row.links.hash is None else
                             chain.Linked(row.seq, row.links.hash,
                                          row.links.public_seq, row.links.public_hash))


def public_record(deps: Deps, uow: UnitOfWork | None = None) -> list[dict[str, Any]]:
    """Return the public record, every game in this database, as its chained lines.

    Each line is an event's JSON with ``seq`` (its number in the public record),
    ``prev`` and ``hash`` (see ``speakerbot.engine.chain``). Sealed ballots and other
    private events are not in it; the ballots appear in the event closing their vote.
    """
    return list(chain.lines(stored_record(deps, uow), public=True))


def public_record_after(deps: Deps, start: chain.Bookmark | None = None,
                        ) -> tuple[list[dict[str, Any]], chain.Bookmark] | None:
    """Return the public record's lines after ``start`` (without one, all) and where they end.

    Only the events recorded after ``start.after`` are read, so that a reader keeping up
    with the record (the web archive) pays for what is new. None when one of them is not
    linked yet (a record kept before the chains, linked at its next write): read it whole.
    """
    if start is None:
        return chain.read_on(stored_record(deps), chain.Bookmark(), public=True)
    rows = deps.store.load_events(None, after=start.after, links=True)
    stored = [_as_stored(row) for row in rows]
    if any(event.place is None for event in stored):
        return None
    return chain.read_on(stored, start, public=True)


def _for_digests(recipients: Sequence[str], covered: Collection[str],
                 readers: Collection[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split a public message's recipients: those sent it now, those kept a copy.

    A digest reader (DIGEST ON; ``readers``) is kept a copy for the day's digest instead of
    sent the message; an address ``covered`` is neither. Read at every public message, as the
    observers are: a DIGEST command earlier in the transaction counts already.
    """
    wanted = [address for address in recipients if address not in covered]
    return (tuple(address for address in wanted if address not in readers),
            tuple(address for address in wanted if address in readers))
