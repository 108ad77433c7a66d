"""Leases: which ``speakerbot run`` worker serves each game, when several share PostgreSQL.

A worker holds a game while the game's row in ``game_leases`` names it and has not expired;
it renews its leases every round (``balance()``), takes free or expired ones up to its fair
share, and gives the surplus back when more workers come. Every take counts the game's
epoch up by one: the fencing token. Each write transaction of a game begins with
``fence()``, which reads the game's row ``FOR KEY SHARE`` and fails unless this worker still
holds the lease under the epoch it took. That row lock lasts until the transaction ends, and
every take locks the row ``FOR UPDATE`` first, which conflicts with it: no take lands while
a write of the old holder is in flight, so no write of the old holder lands after a take.
The holder's own renewal, a plain update of columns that are not the key, does not conflict
with it, so a game whose writes follow one another keeps its lease.

Every time is the database's clock (``clock_timestamp()``): workers on several machines
disagree about the time, the one server does not. Everything is done inside transactions
(``SET LOCAL``, row locks), with no session state, so it works behind a pooler too.
PostgreSQL only: on SQLite one worker serves every game under the daemon lock.
"""

from __future__ import annotations

import math
import os
import secrets
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, bindparam, delete, func, literal, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from speakerbot.adapters.store.shared import SHARED_METADATA, game_leases, workers

# Who created the shared tables first; another worker starting at the same time waits.
_TABLES_LOCK_KEY = 0x5370_6B62_4C65_6173

# A worker unseen for this many leases is forgotten: its row only told who held what.
_FORGET_AFTER_LEASES = 100


class LeaseLost(RuntimeError):
    """The game's lease is no longer this worker's: it must not write for that game again."""


@dataclass(frozen=True)
class Holding:
    """A game this worker holds, under the epoch it took it with (its fencing token)."""

    game: str
    epoch: int


@dataclass(frozen=True)
class Holder:
    """Who holds a game (or held it last): for ``speakerbot games``."""

    game: str
    worker: str | None
    host: str | None
    pid: int | None
    expires_at: datetime | None
    live: bool


def _now() -> Any:
    # The server's clock, read afresh at each call (now() would stay at the transaction's
    # start, and a round that waited on a lock would renew leases into the past).
    return func.clock_timestamp()


class Leases:
    """The leases of one worker process: take, renew, fence, release."""

    def __init__(
        self,
        engine: Engine,
        *,
        lease: float,
        worker: str | None = None,
        host: str | None = None,
        pid: int | None = None,
    ) -> None:
        if engine.dialect.name != "postgresql":
            raise ValueError(
                "workers share games through PostgreSQL only: on SQLite one worker serves "
                "every game"
            )
        if not lease > 0:
            raise ValueError(f"the lease must be some seconds, not {lease!r}")
        self.engine = engine
        self.lease = lease
        self.worker: str = worker or secrets.token_hex(8)
        self.host = host or socket.gethostname()
        self.pid = os.getpid() if pid is None else pid
        self._span = timedelta(seconds=lease)
        self._lease_ms = str(max(1, round(lease * 1000)))
        # Built once: every write transaction of every game held runs it. The time-out is
        # set (as SET LOCAL does) in the same statement: one round trip.
        self._fencing = (
            select(
                func.set_config("idle_in_transaction_session_timeout", self._lease_ms, True),
                game_leases.c.worker,
                game_leases.c.epoch,
                (game_leases.c.expires_at > _now()).label("fresh"),
            )
            .where(game_leases.c.game == bindparam("game"))
            .with_for_update(read=True, key_share=True)
        )

    # -- Tables and this worker's row ---------------------------------------------------

    def ensure_tables(self) -> None:
        """Create the shared tables if they are missing (two workers at once: one does)."""
        with self.engine.begin() as conn:
            conn.execute(select(func.pg_advisory_xact_lock(_TABLES_LOCK_KEY)))
            SHARED_METADATA.create_all(conn, checkfirst=True)

    def heartbeat(self) -> None:
        """Say that this worker lives: its row, with ``seen_at`` now."""
        with self.engine.begin() as conn:
            self._bound(conn)
            self._beat(conn)

    def _beat(self, conn: Connection) -> None:
        row = insert(workers).values(
            worker=self.worker,
            host=self.host,
            pid=self.pid,
            started_at=_now(),
            seen_at=_now(),
        )
        conn.execute(
            row.on_conflict_do_update(
                index_elements=[workers.c.worker], set_={"seen_at": row.excluded.seen_at}
            )
        )

    def _bound(self, conn: Connection | Session) -> None:
        # A worker frozen inside a transaction (SIGSTOP, a paused VM) would hold its row
        # locks, and keep every taker out, for ever: the server cuts such a session off
        # after a lease. A round never waits longer than a lease for a lock either.
        self._set_local(conn, "idle_in_transaction_session_timeout")
        self._set_local(conn, "lock_timeout")

    def _set_local(self, conn: Connection | Session, setting: str) -> None:
        # set_config(..., true) is SET LOCAL with a bound value: gone at the transaction's end.
        conn.execute(select(func.set_config(setting, self._lease_ms, True)))

    # -- The round ----------------------------------------------------------------------

    def balance(self, games: Sequence[str]) -> dict[str, Holding]:
        """Play one round, in one short transaction, and return the games held after it.

        Says this worker lives, renews its leases, takes free or expired games up to its
        fair share (the games over the live workers, rounded up) and, holding more than
        that, gives the surplus back so that a new worker gets its share. Games it holds that are
        not in ``games`` are given back. Call it every lease/3; a round that fails (the
        connection was cut) raises the database's error, and the next one starts afresh.
        """
        wanted = sorted(set(games))
        with self.engine.begin() as conn:
            self._bound(conn)
            self._beat(conn)
            self._forget_the_dead(conn)
            self._add_games(conn, wanted)
            self._renew(conn, wanted)
            held = self._held(conn, wanted)
            share = math.ceil(len(wanted) / self._live_workers(conn)) if wanted else 0
            if len(held) < share:
                held.update(self._take(conn, wanted, share - len(held)))
            elif len(held) > share:
                for game in self._give_back(conn, held, len(held) - share):
                    del held[game]
            return {game: Holding(game, epoch) for game, epoch in held.items()}

    def _forget_the_dead(self, conn: Connection) -> None:
        conn.execute(
            delete(workers).where(workers.c.seen_at < _now() - self._span * _FORGET_AFTER_LEASES)
        )

    def _add_games(self, conn: Connection, wanted: list[str]) -> None:
        if wanted:
            rows = [
                {"game": game, "worker": None, "epoch": 0, "expires_at": None} for game in wanted
            ]
            conn.execute(insert(game_leases).values(rows).on_conflict_do_nothing())

    def _mine(self, *where: Any) -> Any:
        # This worker's rows that no other transaction has locked: a game is not given back
        # in the middle of a write of its own (FOR UPDATE conflicts with the fence's lock);
        # an idle game goes instead, or a later round gives it back.
        return (
            select(game_leases.c.game)
            .where(game_leases.c.worker == self.worker, *where)
            .with_for_update(skip_locked=True)
        )

    def _renew(self, conn: Connection, wanted: list[str]) -> None:
        # A plain update: its lock does not conflict with the FOR KEY SHARE of this worker's
        # own writes in flight, so a busy game is renewed like an idle one. A lease that has
        # run out is not renewed but taken again, under a new epoch.
        conn.execute(
            update(game_leases)
            .where(
                game_leases.c.worker == self.worker,
                game_leases.c.expires_at > _now(),
                game_leases.c.game.in_(wanted),
            )
            .values(expires_at=_now() + self._span)
        )
        # A game no longer wanted here goes back at once, for a worker that serves it.
        conn.execute(
            update(game_leases)
            .where(game_leases.c.game.in_(self._mine(game_leases.c.game.not_in(wanted))))
            .values(worker=None, expires_at=_now())
        )

    def _held(self, conn: Connection, wanted: list[str]) -> dict[str, int]:
        rows = conn.execute(
            select(game_leases.c.game, game_leases.c.epoch).where(
                game_leases.c.worker == self.worker,
                game_leases.c.expires_at > _now(),
                game_leases.c.game.in_(wanted),
            )
        )
        return {game: epoch for game, epoch in rows}

    def _live_workers(self, conn: Connection) -> int:
        count = conn.execute(
            select(func.count()).select_from(workers).where(workers.c.seen_at > _now() - self._span)
        ).scalar_one()
        return max(1, int(count))

    def _take(self, conn: Connection, wanted: list[str], room: int) -> dict[str, int]:
        # FOR UPDATE, which conflicts with a fence's FOR KEY SHARE; SKIP LOCKED: two workers
        # taking at once each get other games, and a game whose old holder is still writing
        # is left for a later round. Every take must lock so: fencing rests on it.
        free = (
            select(game_leases.c.game)
            .where(
                game_leases.c.game.in_(wanted),
                or_(game_leases.c.worker.is_(None), game_leases.c.expires_at <= _now()),
            )
            .order_by(game_leases.c.game)
            .limit(room)
            .with_for_update(skip_locked=True)
        )
        taken = conn.execute(
            update(game_leases)
            .where(game_leases.c.game.in_(free))
            .values(
                worker=self.worker,
                epoch=game_leases.c.epoch + 1,
                expires_at=_now() + self._span,
            )
            .returning(game_leases.c.game, game_leases.c.epoch)
        )
        return {game: epoch for game, epoch in taken}

    def _give_back(self, conn: Connection, held: dict[str, int], surplus: int) -> list[str]:
        # The whole surplus at once: with a hundred games, a worker that has just started
        # gets its half at its next round, not one game a round for fifty rounds. A game
        # with a write in flight is skipped (SKIP LOCKED), and given back at a later round.
        last = (
            self._mine(game_leases.c.game.in_(sorted(held)))
            .order_by(game_leases.c.game.desc())
            .limit(surplus)
        )
        given = conn.execute(
            update(game_leases)
            .where(game_leases.c.game.in_(last))
            .values(worker=None, expires_at=_now())
            .returning(game_leases.c.game)
        )
        return list(given.scalars())

    # -- Fencing, release, and who holds what --------------------------------------------

    def fence(self, conn: Connection | Session, holding: Holding) -> None:
        """Make sure, inside a game's write transaction, that this worker still holds it.

        Call it first in every write transaction of the game. Raises ``LeaseLost`` unless
        the game's lease names this worker, under ``holding.epoch``, and has not expired.
        The row stays locked (``FOR KEY SHARE``) until the transaction ends, so no other
        worker takes the game while this write is in flight; a transaction left idle longer
        than a lease (the process frozen) is cut off by the server.
        """
        row = conn.execute(self._fencing, {"game": holding.game}).first()
        if row is None or row.worker != self.worker or row.epoch != holding.epoch:
            raise LeaseLost(f"game {holding.game!r}: another worker has taken it")
        if not row.fresh:
            raise LeaseLost(f"game {holding.game!r}: the lease ran out")

    def release(self, game: str) -> None:
        """Let a game go at once (it is free for any worker, without waiting for the lease)."""
        with self.engine.begin() as conn:
            self._bound(conn)
            conn.execute(
                update(game_leases)
                .where(game_leases.c.game == game, game_leases.c.worker == self.worker)
                .values(worker=None, expires_at=_now())
            )

    def release_all(self) -> None:
        """Let every game go and forget this worker: at a clean shutdown."""
        with self.engine.begin() as conn:
            self._bound(conn)
            conn.execute(
                update(game_leases)
                .where(game_leases.c.worker == self.worker)
                .values(worker=None, expires_at=_now())
            )
            conn.execute(delete(workers).where(workers.c.worker == self.worker))

    def holders(self) -> list[Holder]:
        """Every game's lease with its worker's host and pid, by game id."""
        live = (game_leases.c.worker.is_not(None)) & (game_leases.c.expires_at > _now())
        query = (
            select(
                game_leases.c.game,
                game_leases.c.worker,
                workers.c.host,
                workers.c.pid,
                game_leases.c.expires_at,
                func.coalesce(live, literal(False)).label("live"),
            )
            .select_from(game_leases.outerjoin(workers, workers.c.worker == game_leases.c.worker))
            .order_by(game_leases.c.game)
        )
        with self.engine.connect() as conn:
            return [Holder(*row) for row in conn.execute(query)]
