"""The game service: the one front the daemon and the command line go through.

It opens a unit of work (``unit_of_work.open_unit``) under the game's lock and calls the
handler of each stage by name: ``intake``, ``processing``, ``ticks``, ``desk``, ``speaker``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from speakerbot.adapters.store import InboundRow, OutboxSummary, Store, StoredInbound
from speakerbot.config import Settings
from speakerbot.engine import GameState, chain, next_deadline
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import GameIdentity
from speakerbot.mail.outbound.replies import ReplyWriter
from speakerbot.service import desk, intake, looking, processing, speaker, ticks
from speakerbot.service.crashpoints import NO_CRASHES, CrashPoints
from speakerbot.service.deps import Entropy, FromDeps, game_deps, now_utc
from speakerbot.service.looking import ChangeMark
from speakerbot.service.outbox import Backlog, Outbox, OutboxPolicy, Sender, backlog
from speakerbot.service.policy import Processed, Received, ServiceError
from speakerbot.service.unit_of_work import (
    open_unit,
    public_record,
    public_record_after,
    stored_record,
)


class GameService(AbstractContextManager["GameService"]):
    """Runs one game on one store. Thread-safe: every transaction holds one lock."""

    store: FromDeps[Store] = FromDeps()
    settings: FromDeps[Settings] = FromDeps()
    rng: FromDeps[Entropy] = FromDeps()
    clock: FromDeps[Callable[[], datetime]] = FromDeps()
    retry_delays: FromDeps[tuple[float, ...]] = FromDeps()
    new_secret: FromDeps[Callable[[], str]] = FromDeps()
    crashpoints: FromDeps[CrashPoints] = FromDeps()
    identity: FromDeps[GameIdentity] = FromDeps()
    announcer: FromDeps[Announcer] = FromDeps()
    replies: FromDeps[ReplyWriter] = FromDeps()

    def __init__(self, store: Store, settings: Settings, *, rng: Entropy,
                 clock: Callable[[], datetime] = now_utc,
                 crashpoints: CrashPoints = NO_CRASHES) -> None:
        self.deps = game_deps(store, settings, rng=rng, clock=clock, crashpoints=crashpoints)
        self.states, self.lock = self.deps.states, self.deps.states.lock

    @classmethod
    def open(cls, settings: Settings, *, rng: Entropy, upgrade: bool = False,
             clock: Callable[[], datetime] = now_utc,
             crashpoints: CrashPoints = NO_CRASHES, engine: Engine | None = None) -> GameService:
        """Open the game's store, on the games' shared ``engine`` if any (no game: ServiceError)."""
        store = Store(settings.database.url, game=settings.game_id, engine=engine)
        if upgrade:
            store.upgrade()
        elif not store.is_initialised():
            store.close()
            raise ServiceError("the database has no game yet: run speakerbot init first")
        return cls(store, settings, rng=rng, clock=clock, crashpoints=crashpoints)

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the game's database."""
        self.store.close()

    def state(self) -> GameState:
        """Return the current state, rebuilt from the record when it has grown."""
        return self.states.state()

    def has_game(self) -> bool:
        """Tell whether a game has been started in this store."""
        return self.state().started

    def public_record(self) -> list[dict[str, Any]]:
        """Return the public record's chained lines (``unit_of_work.public_record``)."""
        return public_record(self.deps)

    def public_record_after(self, start: chain.Bookmark | None = None,
                            ) -> tuple[list[dict[str, Any]], chain.Bookmark] | None:
        """Return the public lines after ``start`` and where they end (``unit_of_work``)."""
        return public_record_after(self.deps, start)

    def stored_record(self, *, as_stored: bool = False) -> list[chain.StoredEvent]:
        """Return the whole record with each event's links (``unit_of_work.stored_record``)."""
        return stored_record(self.deps, as_stored=as_stored)

    def delete_game(self) -> None:
        """Delete every table of this game and make them anew, empty (``init --force``)."""
        with self.lock:
            self.store.reset()
            self.store.upgrade()
            self.states.forget()

    def start_game(self) -> list[e.Event]:
        """Start the configured game (``speaker.start_game``)."""
        with self.lock, open_unit(self.deps) as uow:
            return speaker.start_game(uow, self.deps)

    def import_game(self, path: Path) -> list[e.Event]:
        """Start the configured game from a hand-run game's snapshot (``speaker.import_game``)."""
        with self.lock, open_unit(self.deps) as uow:
            return speaker.import_game(uow, self.deps, path)

    def new_game(self, ruleset: str | None = None) -> list[e.Event]:
        """Start the next game, once the last is over (``speaker.new_game``)."""
        with self.lock, open_unit(self.deps) as uow:
            return speaker.new_game(uow, self.deps, ruleset)

    def speaker_command(self, command: c.Command) -> list[e.Event]:
        """Apply an override as the Speaker; announce it (``speaker.speaker_command``)."""
        with self.lock, open_unit(self.deps) as uow:
            return speaker.speaker_command(uow, self.deps, command)

    def host_command(self, words: Sequence[str] | str, text: str = "") -> desk.DeskOutcome:
        """Run one ADMIN command as the host (``desk.host_command``)."""
        return desk.host_command(self.deps, words, text)

    def lookup(self, verb: str, number: int | None = None) -> str:
        """Answer SHOW or HISTORY as the mail reply does (``desk.lookup``)."""
        return desk.lookup(self.deps, verb, number)

    def receive(self, raw: bytes, received_at: datetime, *, source: str,
                uidvalidity: int | None = None, uid: int | None = None,
                oversized: int | None = None, shares: int = 1) -> StoredInbound:
        """Store a message's raw bytes, first of all (``intake.receive``)."""
        return intake.receive(self.deps, raw, received_at, source=source, uidvalidity=uidvalidity,
                              uid=uid, oversized=oversized, shares=shares)

    def take_in(self, messages: Sequence[Received]) -> list[str]:
        """Store and process a batch of messages; their statuses (``intake.take_in``)."""
        return intake.take_in(self.deps, messages)

    def process_pending(self) -> list[Processed]:
        """Process every stored message that is due (``processing.process_pending``)."""
        return processing.process_pending(self.deps)

    def process(self, row: InboundRow) -> Processed:
        """Process one message in one transaction (``processing.process``)."""
        return processing.process(self.deps, row)

    def tick(self, now: datetime | None = None) -> list[e.Event]:
        """Settle everything due by ``now`` (``ticks.tick``)."""
        return ticks.tick(self.deps, now)

    def next_deadline(self) -> datetime | None:
        """Return when the game next needs a tick."""
        return next_deadline(self.state())

    def send_digest(self, now: datetime | None = None) -> None:
        """Queue the digest (``ticks.send_digest``)."""
        ticks.send_digest(self.deps, now)

    def requeue(self, inbound_id: int) -> InboundRow:
        """Put a set-aside message back to be processed (``speakerbot inbound retry``)."""
        with self.lock:
            return self.store.requeue_inbound(inbound_id)

    def send_outbox(self, sender: Sender, policy: OutboxPolicy, *, everything: bool = False,
                    may_send: Callable[[], bool] | None = None) -> int:
        """Deliver the mail due now (``may_send``: asked before each copy); say how many went."""
        return Outbox(self.store, policy, self.clock, self.crashpoints, identity=self.deps.identity,
                      may_send=may_send).send_due(sender, everything=everything)

    def next_wakes(self) -> dict[str, datetime | None]:
        """When the daemon must next wake: deadline, outbox, retry, request, gathering, digest."""
        return self.look()[1]

    def change_mark(self) -> ChangeMark:
        """Return what another process's write changes (``looking.change_mark``)."""
        return looking.change_mark(self.deps)

    def look(self) -> tuple[ChangeMark, dict[str, datetime | None]]:
        """Return the change mark and the next wake-ups (``looking.look``)."""
        return looking.look(self.deps)

    def mail_due(self) -> bool:
        """Whether a stored message is due to be processed now (new, or its retry is due)."""
        return self.store.any_due_inbound(self.clock())

    def daemon_lock(self) -> AbstractContextManager[None]:
        """Hold the lock that lets one daemon only run this game."""
        return self.store.daemon_lock()

    def outbox_summary(self) -> OutboxSummary:
        """Count the outbox's waiting and given-up mail, with the refusals."""
        return self.store.outbox_summary()

    def outbox_backlog(self, summary: OutboxSummary) -> Backlog:
        """Count ``summary``'s waiting mail by kind (results, distributions, ...) and age."""
        return backlog(summary, self.clock())

    def audience(self) -> tuple[dict[str, datetime], dict[str, datetime]]:
        """Return the observers, and the players marked unreachable, each with since when."""
        return self.store.observers(), self.store.unreachable()

    def remove_observer(self, address: str) -> bool:
        """Stop ``address`` observing (``speakerbot observers remove``); False: it was not."""
        with self.lock, self.store.transaction() as session:
            return bool(self.store.remove_observers(session, [address]))

    def list_inbound(self, status: str | None = None, limit: int = 100) -> list[InboundRow]:
        """Return the newest stored messages (with ``status`` only, if given), newest first."""
        return self.store.list_inbound(status, limit=limit)

    def inbound(self, inbound_id: int) -> InboundRow:
        """Return one stored message; ``LookupError`` if there is none with that id."""
        return self.store.inbound(inbound_id)
