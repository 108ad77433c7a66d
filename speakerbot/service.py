"""The service layer: each inbound message, and each passing of time, is one transaction.

Load the game's state, apply, append the events, write every message they cause to the
outbox, mark the inbound message done, commit: all together or not at all. Nothing here
talks to a mail server; the daemon feeds messages in and the outbox sender delivers them.
"""

from __future__ import annotations

import dataclasses
import hmac
import logging
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from speakerbot.adapters.store import InboundRow, OutgoingMail, Store, StoredInbound
from speakerbot.config import Settings
from speakerbot.engine import GameState, RandomSource, apply, next_deadline, replay, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.mail import language as lang
from speakerbot.mail.announcements import Announcer
from speakerbot.mail.outgoing import GameIdentity, Outgoing, Renderer, compose
from speakerbot.mail.reading import NEVER_ANSWER, InboundMail, can_acknowledge, read_message
from speakerbot.mail.replies import Outcome, ReplyWriter, command_text, outcome_of
from speakerbot.mail.translate import DigestRequest, Query, translate
from speakerbot.presets import load_preset
from speakerbot.resources import templates_dir

log = logging.getLogger("speakerbot.service")


class ServiceError(Exception):
    """Something the operator must fix (no game yet, a game already there...)."""


@dataclass(frozen=True)
class Processed:
    """What became of one inbound message."""

    inbound_id: int
    status: str  # processed | skipped | retry | set_aside
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
            message_id, raw = compose(self.identity, keyed, now)
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
                uidvalidity: int | None = None, uid: int | None = None) -> StoredInbound:
        """Store a message's raw bytes, first of all (a duplicate is stored once).

        The Speaker's password never reaches the database: a message with a PASSWORD line
        is stored with that line replaced by the verdict of checking it.
        """
        raw = without_password(raw, self.settings.game.admin_password,
                               max_bytes=self.settings.limits.max_message_size)
        return self.store.store_inbound(raw, received_at, source=source,
                                        uidvalidity=uidvalidity, uid=uid)

    def process_pending(self) -> list[Processed]:
        """Process every stored message not yet processed, in the order received."""
        done = []
        with self.lock:
            for row in self.store.pending_inbound():
                done.append(self.process(row))
                if done[-1].status == "retry":
                    break  # keep the order received: later mail waits for this one
        return done

    def process(self, row: InboundRow) -> Processed:
        """Process one message in one transaction; on failure, count it and maybe set it aside."""
        with self.lock:
            try:
                return self._process(row)
            except Exception as error:
                log.exception("processing inbound message %s failed", row.id)
                failed = self.store.record_inbound_failure(row.id, f"{type(error).__name__}: "
                                                                   f"{error}")
                if failed.status == "set_aside":
                    self._tell_speaker_set_aside(failed, error)
                return Processed(row.id, failed.status, False)

    def _process(self, row: InboundRow) -> Processed:
        limits = self.settings.limits
        mail = read_message(row.raw, max_bytes=limits.max_message_size,
                            loop_token=self.identity.loop_token)
        received = row.received_at
        with self._transaction() as session:
            start = self.state(session)
            # First let time pass up to the moment the message was received: deadlines
            # that fell before it are settled before it is read.
            state, tick_events = tick(start, received, self.rng)
            outgoing = self._announce(tick_events, state, start, session)
            if mail.skipped in NEVER_ANSWER or not mail.sender:
                self._commit(session, tick_events, state, outgoing, inbound_id=row.id)
                self.store.mark_inbound(session, row.id, "skipped", mail.skipped or "no sender")
                return Processed(row.id, "skipped", False)
            before_commands = state
            state, events, reply, digest_asked = self._apply_mail(mail, state, received)
            all_events = [*tick_events, *events]
            outgoing += self._announce(events, state, before_commands, session,
                                       after=len(tick_events))
            if reply is not None and can_acknowledge(mail):
                outgoing += self._limited_reply(session, mail, reply, row)
            self._commit(session, all_events, state, outgoing, inbound_id=row.id)
            if digest_asked:
                self._queue_digest(session, state, f"digest:{row.message_id}")
            self.store.mark_inbound(session, row.id, "processed")
            return Processed(row.id, "processed", bool(events))

    def _apply_mail(
        self, mail: InboundMail, state: GameState, received: datetime
    ) -> tuple[GameState, list[e.Event], str | None, bool]:
        """Apply a message's commands all or nothing.

        Return the new state, the events, the reply, and whether it asked for the digest.
        """
        sender = mail.sender or ""
        if mail.problem:
            return state, [], self.replies.reply(state, sender, outcomes=(), errors=(),
                                                 ignored=(), answers=(), applied=False,
                                                 problem=mail.problem), False
        parsed = lang.parse_commands(mail.subject, mail.body,
                                     max_command_lines=self.settings.limits.max_command_lines)
        errors = [(err.line, err.text, err.reason) for err in parsed.errors]
        ignored = [(item.line, item.text) for item in parsed.ignored]
        admin = [cmd for cmd in parsed.commands if cmd.verb == "ADMIN"]
        if admin and not errors and not self._admin_allowed(sender, parsed.password, state):
            errors.append((admin[0].line, command_text(admin[0]),
                           "admin commands are accepted only from the Speaker's address, in a "
                           "message with the right PASSWORD line"))
        translated: list[tuple[lang.Command, c.Command | Query | DigestRequest]] = []
        for command in parsed.commands if not errors else ():
            try:
                translated.append((command, translate(command, sender)))
            except ValueError as error:
                errors.append((command.line, command_text(command), str(error)))
        if errors:
            return state, [], self.replies.reply(state, sender, outcomes=(), errors=errors,
                                                 ignored=ignored, answers=(), applied=False), False
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
                                   answers=answers, applied=applied)
        return work, events, reply, digest_asked

    def _admin_allowed(self, sender: str, password: str | None, state: GameState) -> bool:
        # receive() has already checked the password and left only its verdict.
        return sender == state.speaker and password == PASSWORD_RIGHT

    def _limited_reply(self, session: Any, mail: InboundMail, body: str,
                       row: InboundRow) -> list[Outgoing]:
        """Reply, unless the sender has had their replies for today (then one notice)."""
        sender = mail.sender or ""
        day = self.clock().astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        sent_today = self.store.replies_since(sender, day)
        limit = self.settings.limits.replies_per_day
        subject = mail.subject.strip() or "your message"
        if not subject.lower().startswith("re:"):
            subject = f"Re: {subject}"
        if sent_today < limit:
            return [Outgoing("reply", (sender,), subject, body, f"reply:{row.message_id}",
                             in_reply_to=mail.message_id, references=mail.references)]
        if sent_today == limit:
            notice = self.replies.renderer.render("limit_notice.txt", limit=limit,
                                                  identity=self.identity)
            return [Outgoing("limit", (sender,), "No more replies today", notice,
                             f"limit:{row.message_id}", in_reply_to=mail.message_id)]
        return []

    def _tell_speaker_set_aside(self, row: InboundRow, error: Exception) -> None:
        body = self.replies.renderer.render(
            "set_aside.txt", row=row, error=f"{type(error).__name__}: {error}")
        with self._transaction() as session:
            state = self.state(session)
            speaker = state.speaker or self.settings.game.speaker
            self._commit(session, [], state, [Outgoing(
                "notice", (speaker,), "A message was set aside", body, f"aside:{row.id}")])

    # --- time ---

    def tick(self, now: datetime | None = None) -> list[e.Event]:
        """Settle everything due by ``now``: reminders, closes, judge deadlines. Idempotent.

        Never past a message received but not yet processed: a ballot that arrived before
        a deadline must be read before the vote closes.
        """
        with self.lock, self._transaction() as session:
            state = self.state(session)
            until = now or self.clock()
            waiting = self.store.earliest_pending()
            if waiting is not None:
                until = min(until, waiting)
            new, events = tick(state, until, self.rng)
            if events:
                self._commit(session, events, new, self._announce(events, new, state, session))
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
PASSWORD_RIGHT = "[checked by speakerbot: right]"
PASSWORD_WRONG = "[checked by speakerbot: wrong]"
PASSWORD_REMOVED = "[removed by speakerbot]"
# In mail that cannot be read, a password may stand in clear or be encoded.
_MAY_HIDE_PASSWORD = (b"password", b"base64", b"quoted-printable")
_MIME_HEADERS = ("content-type", "content-transfer-encoding", "mime-version",
                 "content-disposition")
# The first word (any leading white space or quote marks aside, as the parser strips them),
# then a colon or white space, then the secret.
_LINE = re.compile(r"^(?P<lead>[\s>]*)(?P<word>[^\s:]+)(?P<gap>\s*:\s*|\s+)(?P<secret>\S.*?)\s*$")
MASK = "********"


def _redact_line(line: str, expected: str) -> tuple[str, bool]:
    """Replace the secret of a PASSWORD line (read as the parser reads it) or of a near miss."""
    match = _LINE.match(line)
    if match is None:
        return line, False
    word = match["word"].upper()
    if word == "PASSWORD":
        right = hmac.compare_digest(match["secret"].encode(), expected.encode())
        verdict = PASSWORD_RIGHT if right else PASSWORD_WRONG
    elif len(word) >= 6 and lang.one_edit_apart(word, "PASSWORD"):
        verdict = PASSWORD_REMOVED  # a misspelled PASSWORD line still holds the secret
    else:
        return line, False
    return match["lead"] + match["word"] + match["gap"] + verdict, True


def without_password(raw: bytes, expected: str, *, max_bytes: int) -> bytes:
    """Return the message with every PASSWORD line's secret replaced by the check's verdict.

    The original header block is kept byte for byte (Message-ID, From, Auto-Submitted... all
    still count); the body becomes the decoded plain text with the verdicts in it. A message
    without a PASSWORD line comes back unchanged. One that cannot be read and might hold a
    password (the word, or an encoded body) keeps only its headers.
    """
    # Decode first: a base64 or quoted-printable body hides the word from a byte search.
    mail = read_message(raw, max_bytes=max_bytes)
    if mail.problem is None:
        lines = [_redact_line(line, expected) for line in mail.body.split("\n")]
        body = "\n".join(line for line, _ in lines)
        # The secret written anywhere else (say, as a reason) is masked too.
        anywhere = re.compile(r"(?<!\w)" + re.escape(expected) + r"(?!\w)") if expected else None
        body, masked = anywhere.subn(MASK, body) if anywhere else (body, 0)
        if not masked and not any(changed for _, changed in lines):
            return raw
    elif not any(word in raw.lower() for word in _MAY_HIDE_PASSWORD):
        return raw
    else:
        body = ("[speakerbot kept no body: the message could not be read and may have held "
                "the Speaker's password]\n")
    head = _header_block(raw)
    mime = (b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Transfer-Encoding: 8bit\r\nX-Speakerbot-Redacted: password\r\n")
    text = body.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")
    return head + mime + b"\r\n" + text


def _header_block(raw: bytes) -> bytes:
    """Return the message's header lines, CRLF-ended, without the MIME ones."""
    end = min((i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0),
              default=len(raw))
    kept: list[bytes] = []
    keep = True
    for line in raw[:end].replace(b"\r\n", b"\n").split(b"\n"):
        if line[:1] in (b" ", b"\t"):
            if keep:
                kept.append(line)
            continue
        name = line.split(b":", 1)[0].strip().lower().decode("ascii", "replace")
        keep = name not in _MIME_HEADERS
        if keep:
            kept.append(line)
    return b"".join(line + b"\r\n" for line in kept)


def _raise_rejection(events: Sequence[e.Event]) -> None:
    for event in events:
        if isinstance(event, e.CommandRejected):
            remedy = f" ({event.remedy})" if event.remedy else ""
            raise ServiceError(f"{event.reason}{remedy}")
