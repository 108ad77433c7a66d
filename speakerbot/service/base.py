"""What every part of the service shares: the store, the settings, the state, one transaction."""


from __future__ import annotations

import copy
import dataclasses
import itertools
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, NamedTuple

from speakerbot.adapters.store import (
    EventLinks,
    InboundRow,
    OutgoingMail,
    Store,
)
from speakerbot.addresses import as_compared
from speakerbot.config import Settings
from speakerbot.engine import GameState, RandomSource, chain, evolve
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.publicity import RECORD_VERSION
from speakerbot.engine.snapshot import SnapshotError, decode_state, encode_state
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.authentication import (
    Authentication,
    AuthPolicy,
    authenticate_mail,
)
from speakerbot.mail.inbound.reading import (
    InboundMail,
    read_message,
)
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import (
    ANSWERING_KINDS,
    GameIdentity,
    Outgoing,
    Renderer,
    compose,
)
from speakerbot.mail.outbound.replies import ReplyWriter
from speakerbot.presets import PresetError, load_preset
from speakerbot.resources import templates_dir
from speakerbot.service.policy import (
    ANSWER_KINDS,
    GIVE_WAY_SECONDS,
    PUBLIC_KINDS,
    PUBLIC_WINDOW,
    RETRY_DELAYS,
    Known,
    PublicGate,
    gathered_until,
    log,
)
from speakerbot.service.snapshots import snapshot_format


class _Known(NamedTuple):
    """The state after event ``seq`` of the record, and that event's chain hash."""

    seq: int
    state: GameState
    hash: str | None


class ServiceBase:
    """Runs one game on one store. Thread-safe: every transaction holds one lock."""

    def __init__(self, store: Store, settings: Settings, *, rng: RandomSource,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.store = store
        self.settings = settings
        self.rng = rng
        self.clock = clock
        game = settings.game
        secret = store.message_id_secret() if store.is_initialised() else ""
        self.identity = GameIdentity(game.name, game.address, game.list, secret,
                                     settings.site.url)
        renderer = Renderer(templates_dir())
        self.announcer = Announcer(self.identity, renderer)
        self.replies = ReplyWriter(renderer, lang.help_text())
        self.auth_policy = AuthPolicy(settings.auth.require, settings.auth.authserv_id)
        self.retry_delays: tuple[float, ...] = RETRY_DELAYS
        # Codes and Message-IDs of requests for confirmation: unguessable, 128 bits each.
        self.new_secret: Callable[[], str] = lambda: secrets.token_hex(16)
        self.lock = threading.RLock()
        # Mail waiting for the lock, so that a backlog of deadlines settled in several
        # transactions lets it in between them (the lock itself is not fair).
        self._turns = threading.Condition()
        self._waiting_for_lock = 0
        self._cache = _Known(-1, GameState(), None)
        self._committing: _Known | None = None
        # The record's last number as this transaction sees it: read once per transaction.
        self._unit_seq: int | None = None
        # What intake read of the messages stored in this transaction (by inbound id).
        self._known: dict[int, Known] = {}
        # Replies counted in this transaction (address, kinds, since): counted once, then
        # kept up to date as this transaction queues more.
        self._reply_counts: dict[tuple[str, tuple[str, ...], datetime], int] = {}
        # Mail this transaction queued, written to the outbox together before it commits
        # (or before the outbox is read in it).
        self._queued: list[OutgoingMail] = []
        # Where the record's hash chains end, as this transaction has left them.
        self._links: chain.Links | None = None
        # The hour's public mail as this transaction sees it: counted at its first public
        # message, then kept up to date ([limits] public_per_hour).
        self._public: PublicGate | None = None

    def state(self, session: Any = None) -> GameState:
        """Return the current state, rebuilt from the record when it has grown.

        With ``session`` (the transaction in hand): the state as this transaction has left
        it, with whatever it applied so far.
        """
        seq = self._seq(session) if session is not None else self.store.last_event_seq()
        if self._committing is not None and self._committing.seq == seq:
            return self._committing.state
        known = self._cache  # read once: another thread may replace it meanwhile
        if known.seq != seq:
            known = self._caught_up(known, session) or self._rebuilt(seq, session)
            self._cache = known
        return known.state

    @contextmanager
    def _intake_lock(self) -> Iterator[None]:
        """Hold the lock for mail coming in: a backlog being settled gives way to it."""
        with self._turns:
            self._waiting_for_lock += 1
        try:
            self.lock.acquire()
        finally:
            with self._turns:
                self._waiting_for_lock -= 1
                self._turns.notify_all()
        try:
            yield
        finally:
            self.lock.release()

    def _give_way(self) -> None:
        """Let mail waiting for the lock have it first (called without holding it)."""
        with self._turns:
            self._turns.wait_for(lambda: self._waiting_for_lock == 0, timeout=GIVE_WAY_SECONDS)

    def _caught_up(self, known: _Known, session: Any) -> _Known | None:
        """Move the state known on by the events since (another process wrote them).

        Only if the event it was known at is still the record's, with the same hash: the
        chain then vouches for everything before it. None otherwise (rebuild it instead).
        """
        if known.seq <= 0 or not known.hash:
            return None
        rows = self.store.load_events(session, after=known.seq - 1, links=True)
        if not rows or rows[0].seq != known.seq or rows[0].links is None \
                or rows[0].links.hash != known.hash:
            return None
        state = copy.deepcopy(known.state)
        for row in rows[1:]:
            evolve(state, event_from_json(row.data))
        last = rows[-1]
        return _Known(last.seq, state, last.links.hash if last.links else None)

    def _rebuilt(self, seq: int, session: Any) -> _Known:
        """Rebuild the state from the latest snapshot this code wrote and the tail after it.

        A snapshot of other code, of another record or that cannot be read is ignored: the
        state is then rebuilt from the whole record, and (outside a transaction) a new
        snapshot is kept for the next start.
        """
        state, after, hash_ = GameState(), 0, None
        found = self.store.latest_snapshot(snapshot_format(), seq, session)
        if found is not None:
            try:
                state, after, hash_ = decode_state(found.data), found.seq, found.hash
            except SnapshotError as error:
                log.warning("ignored the snapshot at event %d: %s", found.seq, error)
        rows = self.store.load_events(session, after=after, links=True)
        for row in rows:
            evolve(state, event_from_json(row.data))
        if rows:
            after, hash_ = rows[-1].seq, rows[-1].links.hash if rows[-1].links else None
        every = self.settings.database.snapshot_every
        if session is None and every and hash_ and len(rows) >= every:
            self._keep_snapshot(after, hash_, state)
        return _Known(after, state, hash_)

    def _keep_snapshot(self, seq: int, hash_: str, state: GameState,
                       session: Any = None) -> None:
        """Write the state after event ``seq`` out whole (in its own transaction if none)."""
        # A shortcut for the next start: never worth failing the game's own transaction for.
        # In it, the snapshot is written in a savepoint, so a failure undoes only that.
        try:
            data = encode_state(state)
            if session is not None:
                with session.begin_nested():
                    self.store.save_snapshot(session, seq, snapshot_format(), hash_, data)
                return
            with self.store.transaction() as own:
                self.store.save_snapshot(own, seq, snapshot_format(), hash_, data)
        except Exception as error:
            log.warning("could not keep a snapshot of the state at event %d: %s", seq, error)

    def public_record(self, session: Any = None) -> list[dict[str, Any]]:
        """Return the public record, every game in this database, as its chained lines.

        Each line is an event's JSON with ``seq`` (its number in the public record),
        ``prev`` and ``hash`` (see ``speakerbot.engine.chain``). Sealed ballots and other
        private events are not in it; the ballots appear in the event closing their vote.
        """
        return list(chain.lines(self.stored_record(session), public=True))

    def stored_record(self, session: Any = None, *,
                      as_stored: bool = False) -> list[chain.StoredEvent]:
        """Return the whole record with each event's links as stored.

        A record kept before the chains, not linked yet (its next write links it), is
        linked here as that write will link it, unless ``as_stored`` (to verify it).
        """
        rows = self.store.load_events(session, links=True)
        unlinked = any(row.links is None or row.links.hash is None for row in rows)
        if unlinked and not as_stored:
            placed, _ = chain.link_all(chain.Links(), ((row.seq, row.data) for row in rows))
            return [chain.StoredEvent(row.seq, row.data, place)
                    for row, place in zip(rows, placed, strict=True)]
        return [chain.StoredEvent(row.seq, row.data, None if row.links is None
                                  or row.links.hash is None else
                                  chain.Linked(row.seq, row.links.hash,
                                               row.links.public_seq, row.links.public_hash))
                for row in rows]

    def _next_game(self, state: GameState, ruleset: str | None) -> c.StartGame | str:
        """Return the command that starts the next game, or why it cannot start now.

        The next game may start once the last is over, under the configured preset or the
        one named; the last game's active players are in it from the start.
        """
        if not state.started:
            return "the database has no game yet: run speakerbot init first"
        if not state.ended:
            return "the current game is not over: end it first with ADMIN END GAME"
        try:
            preset = load_preset(ruleset or self.settings.game.ruleset)
        except PresetError as error:
            return str(error)
        game = self.settings.game
        players = tuple((player.address, player.name) for player in state.players.values()
                        if player.active)
        return c.StartGame(game.speaker, preset, game.speaker_name, game.judge or "",
                           game.judge_name or "", dict(self.settings.mechanics),
                           game.open_registration, secrets.token_hex(8), players,
                           RECORD_VERSION)

    def has_game(self) -> bool:
        """Tell whether a game has been started in this store."""
        return self.state().started

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        """Open a store transaction; the cached state moves on only when it commits."""
        self._committing, self._unit_seq, self._links = None, None, None
        self._reply_counts, self._queued, self._public = {}, [], None
        try:
            with self.store.transaction() as session:
                yield session
                self._write_queued(session)
            if self._committing is not None:
                self._cache = self._committing
        finally:
            self._committing, self._unit_seq, self._links = None, None, None
            self._reply_counts, self._queued, self._public = {}, [], None

    def _write_queued(self, session: Any) -> None:
        """Write the mail queued so far in this transaction to the outbox."""
        queued, self._queued = self._queued, []
        self.store.enqueue_many(session, queued)

    def _replies_since(self, session: Any, address: str, since: datetime,
                       kinds: tuple[str, ...]) -> int:
        """Count the mail of ``kinds`` to ``address`` alone since ``since`` (see the store).

        Asked of the store once per transaction; what the transaction queues is added.
        """
        key = (as_compared(address), kinds, since)
        if key not in self._reply_counts:
            self._write_queued(session)  # the count must see them
            self._reply_counts[key] = self.store.replies_since(address, since, kinds, session)
        return self._reply_counts[key]

    def _count_replies_of(self, session: Any, addresses: Sequence[str], since: datetime,
                          kinds: tuple[str, ...]) -> None:
        """Count the replies of several addresses at once (a batch's senders), for later."""
        self._write_queued(session)
        counts = self.store.replies_since_each(addresses, since, kinds, session)
        for address, count in counts.items():
            self._reply_counts.setdefault((address, kinds, since), count)

    def _count_queued(self, message: Outgoing, now: datetime) -> None:
        """Add a message just queued to the reply counts it belongs to."""
        if len(message.recipients) != 1:
            return
        addressee = as_compared(message.recipients[0])
        for (address, kinds, since), count in self._reply_counts.items():
            if address == addressee and message.kind in kinds and now >= since:
                self._reply_counts[(address, kinds, since)] = count + 1
    def _seq(self, session: Any) -> int:
        """Return the record's last number in the transaction in hand (one query for it)."""
        if self._unit_seq is None:
            self._unit_seq = self.store.last_event_seq(session)
        return self._unit_seq

    def _commit(self, session: Any, events: Sequence[e.Event], state: GameState,
                outgoing: Sequence[Outgoing], *, inbound_id: int | None = None,
                gather: bool = True) -> None:
        """Append events and queue their messages, in the caller's transaction.

        Public mail beyond the hour's limit is kept to be gathered (``gather``: unless it
        is the gathering itself).
        """
        if events:
            data = [event_to_json(ev) for ev in events]
            links = self._chain_links(session)
            placed, self._links = chain.link_all(
                links, zip(itertools.count(links.full.seq + 1), data, strict=False))
            seq = self.store.append_events(session, data, inbound_id=inbound_id, links=[
                EventLinks(p.seq, p.hash, p.public_seq, p.public_hash) for p in placed])
            self._unit_seq = seq
            # The cache takes it once the commit succeeded.
            self._committing = _Known(seq, state, placed[-1].hash)
            every = self.settings.database.snapshot_every
            if every and seq // every > (seq - len(events)) // every:
                self._keep_snapshot(seq, placed[-1].hash, state, session)
        now = self.clock()
        for message in outgoing:
            # The game's own id makes Message-IDs unique across games on one address.
            keyed = dataclasses.replace(message, key=f"{state.game_id}|{message.key}")
            try:
                message_id, raw = compose(self.identity, keyed, now)
            except Exception:
                if message.kind not in ANSWERING_KINDS:
                    raise  # the game's own mail is never dropped: the transaction fails
                # An answer that cannot be written (a sender's header the mail library
                # refuses) is dropped: it must not stop the message being applied.
                log.exception("dropped an answer to %s that could not be composed",
                              message.recipients)
                continue
            held = self._held_until(session, now) if message.public and gather else None
            self._queued.append(OutgoingMail(
                message_id, self.identity.address, message.recipients, raw, message.kind,
                inbound_id, now, priority=1 if message.kind in ANSWER_KINDS else 0,
                gathered_until=held,
            ))
            self._count_queued(message, now)

    def _held_until(self, session: Any, now: datetime) -> datetime | None:
        """Return until when a public message queued ``now`` is kept (None: it goes now).

        The hour's count is read at the transaction's first public message.
        """
        if self._public is None:
            sent, waiting = self.store.public_since(now - PUBLIC_WINDOW, PUBLIC_KINDS, session)
            self._public = PublicGate(self.settings.limits.public_per_hour, sent, waiting)
        return gathered_until(now) if self._public.hold() else None

    def _announce(self, events: Sequence[e.Event], state: GameState, before: GameState,
                  session: Any, *, earlier: Sequence[e.Event] = ()) -> list[Outgoing]:
        """Compose the messages for events about to be appended after ``earlier`` ones.

        The key is the record number the first of them will take, so it is stable. The
        messages quote the public record's head once these events are in it.
        """
        key = f"e{self._seq(session) + 1 + len(earlier)}"
        return self.announcer.messages(events, state, key, before,
                                       record=self._record_head(session, [*earlier, *events]))

    def _chain_links(self, session: Any) -> chain.Links:
        """Where the record's chains end in this transaction (an older record linked first)."""
        if self._links is None:
            last, public = self.store.chain_ends(session)
            if last is not None and last.hash is None:
                self._link_older_record(session)
                last, public = self.store.chain_ends(session)
            full = chain.Head() if last is None else chain.Head(last.seq, last.hash or "")
            shown = chain.Head() if public is None or public.public_seq is None else \
                chain.Head(public.public_seq, public.public_hash or "")
            # Nothing is appended yet in this transaction: the state is the record's, and
            # its public ids are the ones the chain folded up to its end.
            state = self.state(session)
            self._links = chain.Links(full, shown, dict(state.public_ids),
                                      state.record_version)
        return self._links

    def _link_older_record(self, session: Any) -> None:
        """Link a record kept before the chains existed, exactly as if it had been new."""
        stored = self.store.load_events(session)
        placed, _ = chain.link_all(chain.Links(), ((ev.seq, ev.data) for ev in stored))
        self.store.set_links(session, [EventLinks(p.seq, p.hash, p.public_seq, p.public_hash)
                                       for p in placed])
        log.info("linked the %d events of an older record into the hash chains", len(placed))

    def _record_head(self, session: Any, events: Sequence[e.Event] = ()) -> tuple[int, str]:
        """Return the public record's head (number, hash) once ``events`` are appended."""
        links = self._chain_links(session)
        head = links.public
        for line in chain.public_lines_after(links, (event_to_json(ev) for ev in events)):
            head = chain.Head(line["seq"], line["hash"])
        return head.seq, head.hash

    def _read(self, row: InboundRow) -> InboundMail:
        return read_message(row.raw, max_bytes=self.settings.limits.max_message_size,
                            loop_token=self.identity.loop_token)

    def _parse(self, mail: InboundMail) -> lang.ParseResult:
        if mail.problem:
            return lang.ParseResult((), (), ())
        return lang.parse_commands(mail.subject, mail.body,
                                   max_command_lines=self.settings.limits.max_command_lines)

    def _is_known(self, state: GameState, sender: str) -> bool:
        """Whether mail from ``sender`` may be answered in full: a player, the host, the Speaker."""
        player = state.players.get(sender)
        return (player is not None and player.active) or sender in (
            self.settings.game.speaker, state.speaker, state.host)

    def _authenticate(self, mail: InboundMail, received: datetime) -> Authentication:
        """Whether the message may act for its From address (``authenticate_mail``)."""
        game = self.settings.game
        return authenticate_mail(
            mail.sender, mail.auth_results, self.auth_policy, recipients=mail.recipients,
            date=mail.date, received=received,
            game_addresses=[a for a in (game.address, game.list) if a])
