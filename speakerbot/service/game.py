"""The game service: one object the daemon and the command line go through."""


from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Self

from speakerbot.adapters.store import InboundRow, OutboxSummary, Store
from speakerbot.config import Settings
from speakerbot.engine import GameState, RandomSource, apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.publicity import RECORD_VERSION
from speakerbot.presets import load_preset
from speakerbot.service.base import _Known
from speakerbot.service.desk import DeskMixin
from speakerbot.service.outbox import Backlog, Outbox, OutboxPolicy, Sender, backlog
from speakerbot.service.policy import (
    ServiceError,
    _raise_rejection,
    not_a_player,
)


class GameService(DeskMixin):
    """Runs one game on one store. Thread-safe: every transaction holds one lock."""

    @classmethod
    def open(cls, settings: Settings, *, rng: RandomSource, upgrade: bool = False,
             clock: Callable[[], datetime] | None = None) -> GameService:
        """Open the configured game's database (bringing its schema up to date if asked).

        Without ``upgrade``, a database never initialised is refused (``ServiceError``).
        The store creates a SQLite file and its folder private (0600, 0700) on first use.
        """
        store = Store(settings.database.url)
        if upgrade:
            store.upgrade()
        elif not store.is_initialised():
            store.close()
            raise ServiceError("the database has no game yet: run speakerbot init first")
        if clock is None:
            return cls(store, settings, rng=rng)
        return cls(store, settings, rng=rng, clock=clock)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the game's database."""
        self.store.close()

    def delete_game(self) -> None:
        """Delete every table of this game and make them anew, empty (``init --force``)."""
        with self.lock:
            self.store.reset()
            self.store.upgrade()
            self._cache = _Known(-1, GameState(), None)

    def start_game(self) -> list[e.Event]:
        """Start the configured game (the store must be upgraded and empty)."""
        game = self.settings.game
        with self.lock, self._transaction() as session:
            state = self.state(session)
            if state.started:
                raise ServiceError("a game already exists in this database; "
                                   "use speakerbot init --force --yes to start over")
            command = c.StartGame(
                game.speaker, load_preset(game.ruleset), game.speaker_name,
                game.judge or "", game.judge_name or "", dict(self.settings.mechanics),
                game.open_registration, secrets.token_hex(8), record_version=RECORD_VERSION,
            )
            new, events = apply(state, command, self.clock(), self.rng,
                                 max_rule_bytes=self.settings.limits.max_rule_bytes)
            _raise_rejection(events)
            self._commit(session, events, new, [])
            return events

    def new_game(self, ruleset: str | None = None) -> list[e.Event]:
        """Start the next game in this database, once the last is over; announce it.

        The record keeps every game before it. The next game is played under ``ruleset``
        (default: the configured one), with a new game id; the active players of the last
        game are in it from the start, with no score.
        """
        with self.lock, self._transaction() as session:
            state = self.state(session)
            command = self._next_game(state, ruleset)
            if isinstance(command, str):
                raise ServiceError(command)
            new, events = apply(state, command, self.clock(), self.rng,
                                 max_rule_bytes=self.settings.limits.max_rule_bytes)
            _raise_rejection(events)
            self._commit(session, events, new, self._announce(events, new, state, session))
            return events

    def speaker_command(self, command: c.Command) -> list[e.Event]:
        """Apply an override from the command line as the Speaker; announce it."""
        if isinstance(command, c.AddPlayer):
            refused = not_a_player(command.address, self.settings.game)
            if refused is not None:
                raise ServiceError(refused)
        with self.lock, self._transaction() as session:
            state = self.state(session)
            new, events = apply(state, command, self.clock(), self.rng,
                                 max_rule_bytes=self.settings.limits.max_rule_bytes)
            _raise_rejection(events)
            self._commit(session, events, new, self._announce(events, new, state, session))
            return events

    # --- what the daemon asks of the game's storage ---

    def send_outbox(self, sender: Sender, policy: OutboxPolicy, *,
                    everything: bool = False) -> int:
        """Deliver the mail due now through ``sender``; return how many messages went."""
        return Outbox(self.store, policy, self.clock).send_due(sender, everything=everything)

    def next_wakes(self) -> dict[str, datetime | None]:
        """When the daemon must next wake: deadline, outbox try, retry, waiting request.

        And a request for confirmation that waits for ``[auth] confirm_gap``, and the end of
        the hour of the public mail kept to be gathered.
        """
        return {"deadline": self.next_deadline(),
                "outbox": self.store.next_outbox_attempt(),
                "inbound-retry": self.store.next_inbound_retry(),
                "confirm-request": self.next_request_due(),
                "gathering": self.store.next_gathering()}

    def change_mark(self) -> tuple[int, datetime | None, datetime | None]:
        """Return what another process's write changes (three indexed reads, no transaction).

        The record's last number, the outbox's next due time and the oldest mail waiting.
        The daemon compares it each second with what its last cycle left, so that a
        command-line write (``admin``, ``player add``, ``new-game``, ``inbound retry``) is
        acted on at once; the state itself is keyed by the record's last number.
        """
        return (self.store.last_event_seq(), self.store.next_outbox_attempt(),
                self.store.earliest_pending())

    def mail_due(self) -> bool:
        """Whether a stored message is due to be processed now (new, or its retry is due)."""
        return self.store.any_due_inbound(self.clock())

    def mail_waiting(self) -> bool:
        """Whether a stored message is still to be processed (new, or waiting for a retry)."""
        return self.store.earliest_pending() is not None

    def daemon_lock(self) -> AbstractContextManager[None]:
        """Hold the lock that lets one daemon only run this game."""
        return self.store.daemon_lock()

    # --- what the command line shows of the game's storage ---

    def outbox_summary(self) -> OutboxSummary:
        """Count the outbox's waiting and given-up mail, with the refusals."""
        return self.store.outbox_summary()

    def outbox_backlog(self, summary: OutboxSummary) -> Backlog:
        """Count ``summary``'s waiting mail by kind (results, distributions, ...) and age."""
        return backlog(summary, self.clock())

    def list_inbound(self, status: str | None = None, limit: int = 100) -> list[InboundRow]:
        """Return the newest stored messages (with ``status`` only, if given), newest first."""
        return self.store.list_inbound(status, limit=limit)

    def inbound(self, inbound_id: int) -> InboundRow:
        """Return one stored message; ``LookupError`` if there is none with that id."""
        return self.store.inbound(inbound_id)
