"""A worker process for the lease tests: it plays rounds and writes, fenced, for its games.

``python -m tests.support.lease_worker URL LEASE WORKER GAME...`` loops for ever: for every
game it held after the last round it writes one row into ``lease_writes`` in a fenced
transaction, then plays a round (``Leases.balance``) and waits a third of the lease. It
prints, one line each, flushed: ``holds G...`` whenever what it holds changes, ``lost G``
when a fenced write raised ``LeaseLost``, ``cut G`` (or ``cut round``) when the server had
cut its connection, and ``round`` after each round played. Writing before the round is
what a daemon frozen between a round and its mail would do on waking: use the holding it
had.
"""

from __future__ import annotations

import sys
import time

from sqlalchemy import BigInteger, Column, Engine, Identity, MetaData, Table, Text, insert
from sqlalchemy.exc import DBAPIError

from speakerbot.adapters.store import make_engine
from speakerbot.adapters.store.leases import Holding, LeaseLost, Leases

WRITES_METADATA = MetaData()

lease_writes = Table(
    "lease_writes",
    WRITES_METADATA,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column("game", Text, nullable=False),
    Column("worker", Text, nullable=False),
    Column("epoch", BigInteger, nullable=False),
)
"""What the workers wrote, in order: the rows a game's writes stand for in these tests."""


def write(engine: Engine, leases: Leases, holding: Holding) -> None:
    """Write one row for ``holding.game`` in a transaction fenced by its lease."""
    with engine.begin() as conn:
        leases.fence(conn, holding)
        conn.execute(
            insert(lease_writes).values(
                game=holding.game, worker=leases.worker, epoch=holding.epoch
            )
        )


def _say(line: str) -> None:
    print(line, flush=True)


def main(argv: list[str]) -> None:
    """Run the worker until it is killed."""
    url, lease, worker, *games = argv
    engine = make_engine(url)
    leases = Leases(engine, lease=float(lease), worker=worker)
    leases.ensure_tables()
    held: dict[str, Holding] = {}
    said: list[str] | None = None
    while True:
        for game, holding in list(held.items()):
            try:
                write(engine, leases, holding)
            except LeaseLost:
                _say(f"lost {game}")
                del held[game]
            except DBAPIError:
                _say(f"cut {game}")
        try:
            held = leases.balance(games)
            _say("round")
        except DBAPIError:
            _say("cut round")
        if sorted(held) != said:
            said = sorted(held)
            _say(" ".join(["holds", *said]))
        time.sleep(float(lease) / 3)


if __name__ == "__main__":
    main(sys.argv[1:])
