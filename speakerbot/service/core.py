"""The service layer: each inbound message, and each passing of time, is one transaction.

Load the game's state, apply, append the events, write every message they cause to the
outbox, mark the inbound message done, commit: all together or not at all. Nothing here
talks to a mail server; the daemon feeds messages in and the outbox sender delivers them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from speakerbot.adapters.store import (
    ConfirmationRow,
    InboundItem,
    InboundRow,
    Intake,
    OutgoingMail,
    Store,
    StoredInbound,
)
from speakerbot.config import Settings
from speakerbot.engine import GameState, RandomSource, apply, next_deadline, replay, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.authentication import Authentication, AuthPolicy, authenticate
from speakerbot.mail.inbound.reading import (
    NEVER_ANSWER,
    InboundMail,
    can_acknowledge,
    kilobytes,
    read_message,
)
from speakerbot.mail.inbound.redaction import RIGHT, WRONG, literal_mask, redact_message
from speakerbot.mail.inbound.translate import DigestRequest, Query, translate
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import (
    ANSWERING_KINDS,
    GameIdentity,
    Outgoing,
    Renderer,
    compose,
    message_id_for,
    when,
)
from speakerbot.mail.outbound.replies import Outcome, ReplyWriter, command_text, outcome_of
from speakerbot.presets import load_preset
from speakerbot.resources import templates_dir

log = logging.getLogger("speakerbot.service")


class ServiceError(Exception):
    """Something the operator must fix (no game yet, a game already there...)."""


@dataclass(frozen=True)
class Received:
    """A message as an inbound adapter hands it over, before intake reads it."""

    raw: bytes
    received_at: datetime
    source: str
    uidvalidity: int | None = None
    uid: int | None = None
    oversized: int | None = None


@dataclass(frozen=True)
class Processed:
    """What became of one inbound message."""

    inbound_id: int
    status: str  # processed | skipped | held | retry | set_aside
    applied: bool


class GameService:
    """Runs one game on one store. Thread-safe: every transaction holds one lock."""

    def __init__(self, store: Store, settings: Settings, *, rng: RandomSource,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.store = store
        self.settings = settings
        self.rng = rng
        self.clock = clock
        game = settings.game
        self.identity = GameIdentity(game.name, game.address, game.list)
        renderer = Renderer(templates_dir())
        self.announcer = Announcer(self.identity, renderer)
        self.replies = ReplyWriter(renderer, lang.help_text())
        self.auth_policy = AuthPolicy(settings.auth.require, settings.auth.authserv_id)
        self.retry_delays: tuple[float, ...] = RETRY_DELAYS
        # Codes and Message-IDs of requests for confirmation: unguessable, 128 bits each.
        self.new_secret: Callable[[], str] = lambda: secrets.token_hex(16)
        self.lock = threading.RLock()
        self._cache: tuple[int, GameState] = (-1, GameState())
        self._committing: tuple[int, GameState] | None = None

    # --- the game's state ---

    def state(self, session: Any = None) -> GameState:
        """Return the current state, rebuilt from the record when it has grown."""
        seq = self.store.last_event_seq(session)
        if self._cache[0] != seq:
            events = [event_from_json(row.data) for row in self.store.load_events(session)]
            self._cache = (seq, replay(events))
        return self._cache[1]

    def has_game(self) -> bool:
        """Tell whether a game has been started in this store."""
        return self.state().started

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        """Open a store transaction; the cached state moves on only when it commits."""
        self._committing = None
        try:
            with self.store.transaction() as session:
                yield session
            if self._committing is not None:
                self._cache = self._committing
        finally:
            self._committing = None

    def _commit(self, session: Any, events: Sequence[e.Event], state: GameState,
                outgoing: Sequence[Outgoing], *, inbound_id: int | None = None) -> None:
        """Append events and queue their messages, in the caller's transaction."""
        if events:
            seq = self.store.append_events(session, [event_to_json(ev) for ev in events],
                                           inbound_id=inbound_id)
            self._committing = (seq, state)  # the cache takes it once the commit succeeded
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
            self.store.enqueue(session, OutgoingMail(
                message_id, self.identity.address, message.recipients, raw, message.kind,
                inbound_id, now,
            ))

    def _announce(self, events: Sequence[e.Event], state: GameState, before: GameState,
                  session: Any, *, after: int = 0) -> list[Outgoing]:
        """Compose the messages for events about to be appended ``after`` others in this batch.

        The key is the record number the first of them will take, so it is stable.
        """
        key = f"e{self.store.last_event_seq(session) + 1 + after}"
        return self.announcer.messages(events, state, key, before)

    # --- operator commands ---

    def start_game(self) -> list[e.Event]:
        """Start the configured game (the store must be upgraded and empty)."""
        game = self.settings.game
        with self.lock, self._transaction() as session:
            state = self.state(session)
            if state.started:
                raise ServiceError("a game already exists in this database; "
                                   "use speakerbot init --force to start over")
            command = c.StartGame(
                game.speaker, load_preset(game.ruleset), game.speaker_name,
                game.judge or "", game.judge_name or "", dict(self.settings.mechanics),
                game.open_registration, secrets.token_hex(8),
            )
            new, events = apply(state, command, self.clock(), self.rng)
            _raise_rejection(events)
            self._commit(session, events, new, [])
            return events

    def speaker_command(self, command: c.Command) -> list[e.Event]:
        """Apply an override from the command line as the Speaker; announce it."""
        with self.lock, self._transaction() as session:
            state = self.state(session)
            new, events = apply(state, command, self.clock(), self.rng)
            _raise_rejection(events)
            self._commit(session, events, new, self._announce(events, new, state, session))
            return events

    # --- inbound mail ---

    def receive(self, raw: bytes, received_at: datetime, *, source: str,
                uidvalidity: int | None = None, uid: int | None = None,
                oversized: int | None = None) -> StoredInbound:
        """Store a message's raw bytes, first of all (a duplicate is stored once).

        The Speaker's password never reaches the database: it is checked here, its verdict
        kept in a column of its own, and the secret masked in the stored bytes. Whatever
        goes wrong while reading the message, its bytes are stored set aside with the error,
        so that no message can stop the mail behind it. ``oversized``: the message's size,
        when only its headers were fetched because it is over the size limit.
        """
        [stored] = self.receive_many([Received(raw, received_at, source, uidvalidity, uid,
                                               oversized)])
        return stored

    def receive_many(self, messages: Sequence[Received]) -> list[StoredInbound]:
        """Store several messages as ``receive`` does, in one transaction (an IMAP batch).

        Should the batch fail to store, each message is stored on its own, so that one
        bad message costs only itself.
        """
        items = [self._intake(message) for message in messages]
        try:
            return self.store.store_inbound_many(items)
        except Exception:
            if len(items) == 1 and items[0].set_aside is not None:
                raise  # already the plainest form: the database itself is failing
            log.exception("storing %d message(s) failed; each is stored on its own",
                          len(items))
        return [self._store_alone(item) for item in items]

    def _intake(self, message: Received) -> InboundItem:
        """Read a message once at intake: its password's verdict, sender and authentication."""
        raw = message.raw
        received_sha256 = hashlib.sha256(raw).hexdigest()
        try:
            redacted = redact_message(raw, self.settings.game.admin_password,
                                      max_bytes=self.settings.limits.max_message_size,
                                      max_command_lines=self.settings.limits.max_command_lines)
            verdict = self._authenticate(redacted.mail, message.received_at)
            intake = Intake(_printable(redacted.sender), redacted.body_sha256, redacted.verdict,
                            message.oversized, received_sha256, len(raw),
                            verdict.authenticated)
            stored, error = redacted.raw, None
        except Exception as failure:
            log.exception("reading a message at intake failed; it is stored set aside")
            intake = Intake(oversized=message.oversized, received_sha256=received_sha256,
                            size=len(raw))
            stored = literal_mask(raw, self.settings.game.admin_password)
            error = f"intake: {_describe(failure)}"
        return InboundItem(stored, message.received_at, message.source, message.uidvalidity,
                           message.uid, intake, error)

    def _store_alone(self, item: InboundItem) -> StoredInbound:
        """Store one message; if even that fails, store it set aside in its plainest form."""
        try:
            return self.store.store_inbound_many([item])[0]
        except Exception as failure:
            if item.set_aside is not None:
                raise  # already the plainest form: the database itself is failing
            log.exception("storing a message failed; it is stored set aside")
            intake = item.intake or Intake()
            plain = Intake(oversized=intake.oversized, received_sha256=intake.received_sha256,
                           size=intake.size)
            return self.store.store_inbound_many([dataclasses.replace(
                item, intake=plain, set_aside=f"store: {_describe(failure)}")])[0]

    def process_pending(self) -> list[Processed]:
        """Process every stored message that is due, in the order received.

        An authenticated message waiting to be retried holds back the later mail of its
        sender only, so that one sender's messages still apply in the order they were sent;
        an unauthenticated one (perhaps a forger's) holds back no one.
        """
        done = []
        with self.lock:
            now = self.clock()
            waiting = {sender for _, sender, at in self.store.retry_waiting()
                       if at is None or at > now}
            for row in self.store.pending_inbound(now):
                if row.sender in waiting:
                    continue
                done.append(self.process(row))
                if done[-1].status == "retry" and row.authenticated:
                    waiting.add(row.sender)  # a forger's failing mail holds back no one
        return done

    def process(self, row: InboundRow) -> Processed:
        """Process one message in one transaction; on failure, retry later or set it aside."""
        with self.lock:
            try:
                return self._process(row)
            except Exception as error:
                log.exception("processing inbound message %s failed", row.id)
                failed = self.store.record_inbound_failure(
                    row.id, _describe(error), now=self.clock(), delays=self.retry_delays)
                if failed.status == "set_aside":
                    self._tell_host_set_aside()
                return Processed(row.id, failed.status, False)

    def _process(self, row: InboundRow) -> Processed:
        mail = self._read(row)
        received = row.received_at
        with self._transaction() as session:
            start = self.state(session)
            # First let time pass up to the moment the message was received: deadlines
            # that fell before it are settled before it is read. Not past mail received
            # earlier and still waiting (a retry): its ballots must count.
            waiting = self.store.earliest_pending(session)
            until = received if waiting is None else min(received, waiting)
            state, tick_events = tick(start, until, self.rng)
            batch = _Batch(session, state, list(tick_events),
                           self._announce(tick_events, state, start, session))
            if mail.skipped in NEVER_ANSWER or not mail.sender:
                self._finish(batch, row, "skipped", mail.skipped or "no sender")
                return Processed(row.id, "skipped", False)
            if mail.sender in (self.settings.game.address, self.settings.game.list):
                # The game's own address, or its list: never a player, never answered.
                self._finish(batch, row, "skipped", "from the game's own address or list")
                return Processed(row.id, "skipped", False)
            before = len(batch.events)
            if row.oversized is not None:
                self._refuse_oversized(batch, row, mail)
            else:
                self._take(batch, row, mail)
            status = batch.status or "processed"
            self._finish(batch, row, status, batch.note)
            return Processed(row.id, status, len(batch.events) > before)

    def _finish(self, batch: _Batch, row: InboundRow, status: str, note: str = "") -> None:
        """Commit the batch's events and mail, and mark the message done (unless held)."""
        self._commit(batch.session, batch.events, batch.state, batch.outgoing,
                     inbound_id=row.id)
        for key in batch.digests:
            self._queue_digest(batch.session, batch.state, key)
        if status != "held":
            self.store.mark_inbound(batch.session, row.id, status, note)

    def _authenticate(self, mail: InboundMail, received: datetime) -> Authentication:
        """Whether the message may act for its From address.

        Beyond the Authentication-Results: a signed message sent to someone else, or long
        ago, may be replayed to the game, so it must name the game (or its list) in To or
        Cc and be dated within a day of its arrival.
        """
        verdict = authenticate(mail.sender, mail.auth_results, self.auth_policy)
        if not verdict.authenticated or self.auth_policy.require == "none":
            return verdict
        game = self.settings.game
        if not {game.address, game.list} & set(mail.recipients):
            return Authentication(True, False, None, "authenticated, but not addressed to "
                                  "the game in To or Cc: it may be a replay")
        if mail.date is None or abs(mail.date - received) > REPLAY_WINDOW:
            return Authentication(True, False, None, "authenticated, but not dated within a "
                                  "day of its arrival: it may be a replay")
        return verdict

    def _take(self, batch: _Batch, row: InboundRow, mail: InboundMail) -> None:
        """Decide whose message this is and what may be done with it."""
        sender = mail.sender or ""
        parsed = self._parse(mail)
        verdict = self._authenticate(mail, row.received_at)
        confirmed = self._confirmation(batch, row, mail, parsed)
        if confirmed is not None:
            self._release_held(batch, confirmed, row.received_at)
        trusted = verdict.authenticated or confirmed is not None
        wanting = [cmd for cmd in parsed.commands if not isinstance(cmd, _NEEDS_NO_TRUST)]
        joining = any(isinstance(cmd, lang.Join) for cmd in parsed.commands)
        if confirmed is not None and not parsed.errors and all(
                isinstance(cmd, lang.Confirm) for cmd in parsed.commands):
            batch.note = "a confirmation"
            return  # each message it released has had its own reply
        known = self._is_known(batch.state, sender)
        if not known and not joining and not (confirmed and not wanting):
            self._answer_stranger(batch, row, mail)
            batch.note = "not a player"
            return
        if trusted or not wanting:
            self._apply_trusted(batch, row, mail, parsed, row.received_at, trusted=trusted)
            return
        batch.note = f"not authenticated: {verdict.why}"
        if not known and (parsed.errors or mail.problem):
            # A JOIN with mistakes from an unverified address: no more than a stranger gets.
            self._answer_stranger(batch, row, mail)
        elif parsed.errors or mail.problem:
            # Nothing could be applied anyway: say what is wrong (to the From address only).
            self._apply_trusted(batch, row, mail, parsed, row.received_at, trusted=False)
        elif self.settings.auth.unauthenticated == "refuse" and not joining:
            body = self.replies.renderer.render("not_authenticated.txt",
                                                subject=_quoted(mail.subject))
            batch.outgoing += self._limited_reply(batch.session, mail, body, row)
        else:
            self._hold(batch, row, mail)

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

    # --- confirmations ---

    def _confirmation(self, batch: _Batch, row: InboundRow, mail: InboundMail,
                      parsed: lang.ParseResult) -> ConfirmationRow | None:
        """Return the open request this message confirms with its code, and use it up.

        The code must be in the message: on a CONFIRM line, or quoted in a reply to the
        request (a reply that leaves it out, or a bare "this was not me", confirms nothing).
        The request must be the sender's own and unexpired.
        """
        session, sender = batch.session, mail.sender or ""
        typed = [cmd.token for cmd in parsed.commands if isinstance(cmd, lang.Confirm)]
        quoted = [code.lower() for code in _CODE_ANYWHERE.findall(mail.body)]
        for token in dict.fromkeys([*typed, *quoted]):
            found = self.store.find_confirmation(
                session, hashlib.sha256(token.encode()).hexdigest())
            if found is None or found.address != sender:
                continue
            if found.status != "open" or found.expires_at <= row.received_at:
                batch.notes.append("that request for confirmation has expired or was used "
                                   "already; send your commands again")
                return None
            self.store.close_confirmation(session, found.id, "used", row.received_at)
            return found
        if typed:
            batch.notes.append("no request for confirmation has that code; nothing held "
                               "was done")
        return None

    def _release_held(self, batch: _Batch, confirmation: ConfirmationRow,
                      when: datetime) -> None:
        """Apply the messages a request listed, in the order received, at ``when``."""
        for row in self.store.held(batch.session, confirmation.id):
            mail = self._read(row)
            self._apply_trusted(batch, row, mail, self._parse(mail), when, trusted=True)
            self.store.mark_inbound(batch.session, row.id, "processed",
                                    f"confirmed by {confirmation.address}")

    def ask_waiting(self) -> None:
        """Send the requests for confirmation that waited for the rate limit."""
        if not self.store.held_waiting():
            return  # looked at without a write transaction: every tick comes here
        with self.lock, self._transaction() as session:
            now = self.clock()
            waiting = self.store.held_waiting(session)
            if not waiting:
                return
            state = self.state(session)
            batch = _Batch(session, state, [], [])
            for sender in dict.fromkeys(row.sender or "" for row in waiting):
                if sender and self._may_ask(session, sender, now):
                    self._ask(batch, sender, [r for r in waiting if r.sender == sender], now)
            self._commit(session, [], state, batch.outgoing)

    def _hold(self, batch: _Batch, row: InboundRow, mail: InboundMail) -> None:
        """Hold unauthenticated mail and ask its From address to confirm it.

        Each request lists the messages it releases, and its code releases those only. Mail
        that cannot be asked about at once (a request went to that address less than ten
        minutes ago, perhaps one a forger caused) waits, and is listed in a request of its
        own when the limit allows (at a tick). An address that is no player gets one
        request a day at most, and nothing that would be larger than its message.
        """
        session, sender, now = batch.session, mail.sender or "", row.received_at
        known = self._is_known(batch.state, sender)
        if not known and self._stranger_answered(session, sender):
            batch.note = "not authenticated; this address had its reply today"
            return
        batch.status = "held"
        if not self._may_ask(session, sender, now):
            if known:
                self.store.hold(session, row.id, None, HELD_WAITING)
            else:
                batch.status, batch.note = "", "not authenticated; no request (too many lately)"
            return
        if not self._ask(batch, sender, [row], now, fits=None if known else row):
            batch.status, batch.note = "", "not authenticated; a request would be larger than it"

    def _may_ask(self, session: Any, sender: str, now: datetime, *, gap: bool = True) -> bool:
        """At most one request to an address in ten minutes, and five a day."""
        if gap and self.store.confirmations_since(session, sender, now - CONFIRM_GAP):
            return False
        return self.store.confirmations_since(
            session, sender, now - timedelta(days=1)) < CONFIRM_PER_DAY

    def _ask(self, batch: _Batch, sender: str, rows: Sequence[InboundRow], now: datetime,
             *, fits: InboundRow | None = None) -> bool:
        """Send one request listing the commands of ``rows``, and hold them behind it.

        ``fits``: send it only if it costs no more bytes than this message (for an address
        that is no player). Returns False, holding nothing, when it would not fit.
        """
        token = self.new_secret()
        expires = now + timedelta(seconds=self.settings.auth.confirm_within)
        listed = []
        for held in rows:
            mail = self._read(held)
            parsed = self._parse(mail)
            listed.append((_quoted(mail.subject), [
                (command_text(cmd), self._deadline_note(batch.state, cmd))
                for cmd in parsed.commands if not isinstance(cmd, _NEEDS_NO_TRUST)]))
        body = self.replies.renderer.render("confirm_request.txt", messages=listed,
                                            token=token, expires=expires)
        # A random key: the request's Message-ID cannot be guessed from anything public.
        key = f"confirm:{self.new_secret()}"
        subject = "Please confirm your message" + ("s" if len(rows) > 1 else "")
        request = Outgoing("confirm", (sender,), subject, body, key)
        if fits is not None and not self._fits(request, fits):
            return False
        message_id = message_id_for(self.identity, f"{batch.state.game_id}|{key}")
        confirmation = self.store.add_confirmation(
            batch.session, address=sender,
            token_sha256=hashlib.sha256(token.encode()).hexdigest(),
            request_message_id=message_id, created_at=now, expires_at=expires)
        for held in rows:
            self.store.hold(batch.session, held.id, confirmation, HELD_LISTED)
        batch.outgoing.append(request)
        return True

    def _read(self, row: InboundRow) -> InboundMail:
        return read_message(row.raw, max_bytes=self.settings.limits.max_message_size,
                            loop_token=self.identity.loop_token)

    @staticmethod
    def _deadline_note(state: GameState, command: lang.Command) -> str:
        if isinstance(command, lang.Vote) and command.proposal in state.proposals:
            closes = state.proposals[command.proposal].closes_at
            if closes is not None:
                return f"Voting on proposal {command.proposal} closes {when(closes)}."
        return ""

    # --- replies ---

    def _answer_stranger(self, batch: _Batch, row: InboundRow, mail: InboundMail) -> None:
        """At most one short reply a day to an address that is no player, quoting nothing."""
        sender = mail.sender or ""
        if self._stranger_answered(batch.session, sender):
            return
        body = self.replies.renderer.render("stranger.txt", identity=self.identity,
                                            open_registration=batch.state.open_registration)
        reply = Outgoing("stranger", (sender,), "Not a player", body,
                         f"stranger:{row.message_id}:{row.id}")
        if self._fits(reply, row):
            batch.outgoing.append(reply)

    def _stranger_answered(self, session: Any, sender: str) -> bool:
        """Whether an address that is no player has had its one mail from us today."""
        return bool(self.store.replies_since(sender, _day_start(self.clock()), STRANGER_KINDS,
                                             session))

    def _fits(self, message: Outgoing, row: InboundRow) -> bool:
        """Whether a message costs no more bytes than the mail that caused it."""
        _, raw = compose(self.identity, message, self.clock())
        return len(raw) <= max(row.size or len(row.raw), row.oversized or 0)

    def _refuse_oversized(self, batch: _Batch, row: InboundRow, mail: InboundMail) -> None:
        """Tell a player, briefly, that their message was too large to read."""
        batch.note = f"too large: {row.oversized} bytes"
        if not self._is_known(batch.state, mail.sender or "") or not can_acknowledge(mail):
            return
        body = self.replies.renderer.render(
            "too_large.txt", subject=_quoted(mail.subject), size=kilobytes(row.oversized or 0),
            limit=kilobytes(self.settings.limits.max_message_size))
        batch.outgoing += self._limited_reply(batch.session, mail, body, row)

    # --- applying ---

    def _apply_trusted(self, batch: _Batch, row: InboundRow, mail: InboundMail,
                       parsed: lang.ParseResult, received: datetime, *, trusted: bool) -> None:
        """Apply a message's commands (if ``trusted``), and queue its reply and announcements."""
        before = batch.state
        admin_error = self._admin_refusal(batch, row, mail, parsed, received, trusted)
        state, events, reply, digest_asked = self._apply_mail(
            mail, parsed, batch.state, received, admin_error=admin_error, notes=batch.notes)
        batch.outgoing += self._announce(events, state, before, batch.session,
                                         after=len(batch.events))
        batch.events += events
        batch.state = state
        if reply is not None and can_acknowledge(mail):
            batch.outgoing += self._limited_reply(batch.session, mail, reply, row)
        if digest_asked:
            batch.digests.append(f"digest:{row.message_id}:{row.id}")

    def _admin_refusal(self, batch: _Batch, row: InboundRow, mail: InboundMail,
                       parsed: lang.ParseResult, received: datetime,
                       trusted: bool) -> str | None:
        """Return why the message's ADMIN commands may not run (None: they may)."""
        host = (mail.sender or "") == self.settings.game.speaker
        if row.password_verdict == WRONG and host and trusted:
            # Only mail the host's own mailbox sent: a forger cannot close ADMIN this way.
            self._count_wrong_password(batch, row.received_at)
        if not any(cmd.verb == "ADMIN" for cmd in parsed.commands):
            return None
        closed = self.store.get_meta("admin_closed_until", batch.session)
        if closed and datetime.fromisoformat(closed) > row.received_at:
            return (f"ADMIN by mail is closed until {when(datetime.fromisoformat(closed))} "
                    "after repeated wrong passwords")
        if not host or row.password_verdict != RIGHT:
            return ("admin commands are accepted only from the Speaker's address, in a "
                    "message with the right PASSWORD line")
        if not trusted:
            return "admin commands need mail your provider authenticates (or a confirmation)"
        if mail.date is None or abs(mail.date - row.received_at) > ADMIN_DATE_SKEW:
            return ("admin mail must carry a Date within a day of its arrival; an old "
                    "message sent again is not obeyed")
        return None

    def _count_wrong_password(self, batch: _Batch, at: datetime) -> None:
        """Five wrong passwords within an hour close ADMIN by mail for an hour."""
        session = batch.session
        recent = [t for t in (self.store.get_meta("wrong_passwords", session) or [])
                  if datetime.fromisoformat(t) > at - timedelta(hours=1)]
        recent.append(at.isoformat())
        self.store.set_meta(session, "wrong_passwords", recent[-WRONG_PASSWORDS:])
        closed = self.store.get_meta("admin_closed_until", session)
        if len(recent) >= WRONG_PASSWORDS and not (closed and
                                                   datetime.fromisoformat(closed) > at):
            until = at + timedelta(hours=1)
            self.store.set_meta(session, "admin_closed_until", until.isoformat())
            body = self.replies.renderer.render("admin_closed.txt", until=until)
            batch.outgoing.append(Outgoing("notice", (self.settings.game.speaker,),
                                           "ADMIN by mail closed for an hour", body,
                                           f"admin-closed:{until.isoformat()}"))

    def _apply_mail(
        self, mail: InboundMail, parsed: lang.ParseResult, state: GameState,
        received: datetime, *, admin_error: str | None = None,
        notes: Sequence[str] = (),
    ) -> tuple[GameState, list[e.Event], str | None, bool]:
        """Apply a message's commands all or nothing.

        Return the new state, the events, the reply, and whether it asked for the digest.
        """
        sender = mail.sender or ""
        if mail.problem:
            return state, [], self.replies.reply(state, sender, outcomes=(), errors=(),
                                                 ignored=(), answers=(), applied=False,
                                                 problem=mail.problem), False
        errors = [(err.line, err.text, err.reason) for err in parsed.errors]
        ignored = [(item.line, item.text) for item in parsed.ignored]
        commands: list[lang.Command] = [cmd for cmd in parsed.commands
                                        if not isinstance(cmd, lang.Confirm)]
        admin = [cmd for cmd in commands if cmd.verb == "ADMIN"]
        if admin and not errors and admin_error is not None:
            errors.append((admin[0].line, command_text(admin[0]), admin_error))
        if not errors:
            errors += self._proposal_limits(state, sender, commands, received)
        translated: list[tuple[lang.Command, c.Command | Query | DigestRequest]] = []
        for command in commands if not errors else ():
            try:
                translated.append((command, translate(command, sender)))
            except ValueError as error:
                errors.append((command.line, command_text(command), str(error)))
        if errors:
            return state, [], self.replies.reply(state, sender, outcomes=(), errors=errors,
                                                 ignored=ignored, answers=(), applied=False,
                                                 notes=notes), False
        work, applied = state, True
        events: list[e.Event] = []
        outcomes: list[Outcome] = []
        queries: list[str] = []
        digest_asked = False
        for command, action in translated:
            if isinstance(action, Query):
                queries.append(action.verb)
                continue
            if isinstance(action, DigestRequest):
                digest_asked = True
                outcomes.append(Outcome(command.line, command_text(command),
                                        "The digest is on its way to every player."))
                continue
            after, produced = apply(work, action, received, self.rng)
            outcomes.append(Outcome(command.line, command_text(command),
                                    outcome_of(produced, after, sender)))
            if any(isinstance(ev, e.CommandRejected) for ev in produced):
                applied = False
                # Nothing is applied, so the commands before this one were not done either.
                outcomes[:-1] = [Outcome(done.line, done.command, NOT_DONE)
                                 for done in outcomes[:-1]]
                break
            work, events = after, [*events, *produced]
        if not applied:
            work, events, digest_asked = state, [], False
        answers = [self.replies.answer(verb, work, sender) for verb in queries]
        reply = self.replies.reply(work, sender, outcomes=outcomes, errors=(), ignored=ignored,
                                   answers=answers, applied=applied, notes=notes)
        return work, events, reply, digest_asked

    def _proposal_limits(self, state: GameState, sender: str, commands: Sequence[lang.Command],
                         received: datetime) -> list[tuple[int, str, str]]:
        """Refuse PROPOSE blocks beyond ``[limits] proposals_per_message`` and ``_per_day``."""
        limits = self.settings.limits
        proposals = [cmd for cmd in commands if isinstance(cmd, lang.Propose)]
        if len(proposals) > limits.proposals_per_message:
            extra = proposals[limits.proposals_per_message]
            return [(extra.line, command_text(extra),
                     f"at most {limits.proposals_per_message} proposals in one message; send "
                     "the others in another message")]
        day = _day_start(received)
        today = sum(1 for p in state.proposals.values()
                    if p.proposer == sender and p.submitted_at >= day)
        if proposals and today + len(proposals) > limits.proposals_per_day:
            allowed = max(0, limits.proposals_per_day - today)
            extra = proposals[allowed]
            return [(extra.line, command_text(extra),
                     f"at most {limits.proposals_per_day} proposals a day from one player "
                     f"(you have made {today} today); send it again tomorrow (UTC)")]
        return []

    def _limited_reply(self, session: Any, mail: InboundMail, body: str,
                       row: InboundRow) -> list[Outgoing]:
        """Reply, unless the sender has had their replies for today (then one notice)."""
        sender = mail.sender or ""
        day = _day_start(self.clock())
        sent_today = self.store.replies_since(sender, day, session=session)
        limit = self.settings.limits.replies_per_day
        subject = mail.subject.strip() or "your message"
        if not subject.lower().startswith("re:"):
            subject = f"Re: {subject}"
        subject = subject if len(subject) <= 200 else subject[:197] + "..."
        if sent_today < limit:
            return [Outgoing("reply", (sender,), subject, body, f"reply:{row.message_id}:{row.id}",
                             in_reply_to=mail.message_id, references=mail.references)]
        if sent_today == limit:
            notice = self.replies.renderer.render("limit_notice.txt", limit=limit,
                                                  identity=self.identity)
            return [Outgoing("limit", (sender,), "No more replies today", notice,
                             f"limit:{row.message_id}:{row.id}", in_reply_to=mail.message_id)]
        return []

    def _tell_host_set_aside(self) -> None:
        """Tell the host about set-aside mail: at most one notice an hour, listing them."""
        # Looked at first without a write transaction: every tick comes here.
        last = self.store.get_meta("aside_notice_at")
        if last and datetime.fromisoformat(last) > self.clock() - timedelta(hours=1):
            return
        if not self.store.set_aside_since(int(self.store.get_meta("aside_notified_id") or 0)):
            return
        with self._transaction() as session:
            now = self.clock()
            last = self.store.get_meta("aside_notice_at", session)
            if last and datetime.fromisoformat(last) > now - timedelta(hours=1):
                return
            rows = self.store.set_aside_since(int(self.store.get_meta("aside_notified_id",
                                                                      session) or 0))
            if not rows:
                return
            state = self.state(session)
            body = self.replies.renderer.render("set_aside.txt", rows=rows)
            self._commit(session, [], state, [Outgoing(
                "notice", (self.settings.game.speaker,),
                "Mail set aside" if len(rows) > 1 else "A message was set aside", body,
                f"aside:{rows[-1].id}")])
            self.store.set_meta(session, "aside_notice_at", now.isoformat())
            self.store.set_meta(session, "aside_notified_id", rows[-1].id)

    def requeue(self, inbound_id: int) -> InboundRow:
        """Put a set-aside message back to be processed (``speakerbot inbound retry``)."""
        with self.lock:
            return self.store.requeue_inbound(inbound_id)

    # --- time ---

    def tick(self, now: datetime | None = None) -> list[e.Event]:
        """Settle everything due by ``now``: reminders, closes, judge deadlines. Idempotent.

        Never past a message received but not yet processed: a ballot that arrived before
        a deadline must be read before the vote closes.
        """
        with self.lock:
            return self._tick(now)

    def _tick(self, now: datetime | None) -> list[e.Event]:
        with self._transaction() as session:
            state = self.state(session)
            until = now or self.clock()
            waiting = self.store.earliest_pending()
            if waiting is not None:
                until = min(until, waiting)
            new, events = tick(state, until, self.rng)
            if events:
                self._commit(session, events, new, self._announce(events, new, state, session))
            # A confirmation received in time but not yet read must still find its request.
            self.store.expire_confirmations(session, until)
        # A notice held back by the hourly limit goes out once the hour has passed.
        self._tell_host_set_aside()
        self.ask_waiting()
        return events

    def next_deadline(self) -> datetime | None:
        """Return when the game next needs a tick."""
        return next_deadline(self.state())

    def send_digest(self, now: datetime | None = None) -> None:
        """Queue the digest: open business and what was decided since the last digest."""
        with self.lock, self._transaction() as session:
            state = self.state(session)
            if state.started:
                stamp = (now or self.clock()).strftime("%Y%m%d%H%M")
                self._queue_digest(session, state, f"digest:{stamp}")

    def _queue_digest(self, session: Any, state: GameState, key: str) -> None:
        """Queue a digest of everything since the last one, and move the mark."""
        since = int(self.store.get_meta("digest_seq", session) or 0)
        rows = self.store.load_events(session)
        recent = [event_from_json(row.data) for row in rows if row.seq > since]
        last = rows[-1].seq if rows else 0
        self._commit(session, [], state, [self.announcer.digest(state, recent, f"{key}:{last}")])
        self.store.set_meta(session, "digest_seq", last)


NOT_DONE = "Not done: a later command was refused, so nothing in the message was applied."
RETRY_DELAYS = (30.0, 60.0, 120.0, 240.0, 480.0)
"""Seconds a failing message waits before each retry: 15.5 minutes in all, then set aside."""
CONFIRM_GAP = timedelta(minutes=10)
"""At most one request for confirmation to an address in this long..."""
CONFIRM_PER_DAY = 5
"""...and at most this many in a day."""
ADMIN_DATE_SKEW = timedelta(days=1)
"""ADMIN mail must be dated within this of its arrival: an old message replayed is not obeyed."""
HELD_LISTED = "held for confirmation"
HELD_WAITING = "held until a request may be sent"
REPLAY_WINDOW = timedelta(days=1)
"""Authenticated mail must be dated within this of its arrival (else it may be a replay)."""
_CODE_ANYWHERE = re.compile(r"CONFIRM\s+([0-9A-Fa-f]{32})\b")
STRANGER_KINDS = ("stranger", "confirm")
"""What an address that is no player may get from us: one of these a day, in all."""
WRONG_PASSWORDS = 5
"""This many wrong passwords within an hour close ADMIN by mail for an hour."""
# Commands that change nothing and whose answer goes only to the From address's real owner.
_NEEDS_NO_TRUST = (lang.Status, lang.Rules, lang.Scores, lang.Help, lang.Confirm)
_MESSAGE_ID = re.compile(r"<[^<>\s]+>")


@dataclass
class _Batch:
    """What one transaction has done so far: the state, the events and the mail they cause."""

    session: Any
    state: GameState
    events: list[e.Event]
    outgoing: list[Outgoing]
    note: str = ""
    status: str = ""
    notes: list[str] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)


def _describe(error: BaseException) -> str:
    """Describe an error for the inbound table: one line, no NUL, at most 500 characters."""
    text = f"{type(error).__name__}: {error}".replace("\x00", "\\0")
    text = " ".join(text.split())
    return text if len(text) <= 500 else text[:497] + "..."


def _printable(sender: str | None) -> str | None:
    """Return the sender if it can be stored as it is (no control characters), else None."""
    if sender is None or not sender.isprintable():
        return None
    return sender


def _day_start(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _quoted(subject: str) -> str:
    """Quote a subject as a reply names it: in quotes, cut short (it is the sender's text)."""
    text = " ".join(subject.split()) or "(no subject)"
    return f"\"{text if len(text) <= 60 else text[:57] + '...'}\""


def _raise_rejection(events: Sequence[e.Event]) -> None:
    for event in events:
        if isinstance(event, e.CommandRejected):
            remedy = f" ({event.remedy})" if event.remedy else ""
            raise ServiceError(f"{event.reason}{remedy}")
