"""Workers share games through leases on a real PostgreSQL: spread, failover and fencing.

Leases of a second or two (times the run's SLOWDOWN, tests/support/patience.py), so that a
lease runs out within a test; every wait is for a condition, with a deadline. The last tests
run real worker processes (``tests/support/lease_worker.py``) and kill or freeze one of them.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, func, insert, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from speakerbot.adapters.store import make_engine
from speakerbot.adapters.store.leases import Holder, Holding, LeaseLost, Leases
from speakerbot.adapters.store.shared import game_leases, workers
from tests.support.lease_worker import WRITES_METADATA, lease_writes
from tests.support.patience import patience

pytestmark = pytest.mark.integration

GAMES = ("main", "newcomers", "next")
ROOT = Path(__file__).resolve().parents[2]


def wait_until(what: str, done: Callable[[], object], timeout: float, *seen: object) -> None:
    """Wait until ``done()`` is true; past the deadline, fail, showing ``seen``."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}: {seen}"
        time.sleep(0.05)


@pytest.fixture
def engine(postgres_url: str) -> Iterator[Engine]:
    made = make_engine(postgres_url)
    WRITES_METADATA.create_all(made)
    yield made
    made.dispose()


LEASE = patience(1)
"""The lease of the workers made here, unless a test names its own."""


def worker(engine: Engine, name: str, lease: float = LEASE) -> Leases:
    leases = Leases(engine, lease=lease, worker=name, host=f"{name}.example", pid=100)
    leases.ensure_tables()
    return leases


def counts(*leases: Leases) -> list[int]:
    """How many games each worker holds, by the database, in the order given."""
    held = [holder.worker for holder in leases[0].holders() if holder.live]
    return [held.count(one.worker) for one in leases]


def settle(*leases: Leases, want: list[int], timeout: float = patience(10)) -> None:
    """Play rounds, each worker in turn, until the workers hold ``want`` games each."""

    def round_then_check() -> bool:
        for one in leases:
            one.balance(GAMES)
        return counts(*leases) == want

    wait_until(f"holdings {want}", round_then_check, timeout)


def test_leases_need_postgresql() -> None:
    with pytest.raises(ValueError, match="PostgreSQL only"):
        Leases(create_engine("sqlite://"), lease=10)


def test_one_worker_takes_all_three_games(engine: Engine) -> None:
    alone = worker(engine, "alone")
    alone.ensure_tables()  # twice: the second finds the tables
    held = alone.balance(GAMES)
    assert held == {game: Holding(game, 1) for game in GAMES}
    assert alone.balance(GAMES) == held  # renewed, not taken again
    holders = alone.holders()
    assert [(h.game, h.worker, h.host, h.pid, h.live) for h in holders] == [
        (game, "alone", "alone.example", 100, True) for game in sorted(GAMES)
    ]
    assert all(h.expires_at is not None for h in holders)


def test_two_workers_hold_two_and_one(engine: Engine) -> None:
    first, second = worker(engine, "first"), worker(engine, "second")
    assert len(first.balance(GAMES)) == 3
    settle(first, second, want=[2, 1])
    for _ in range(3):  # and it stays so
        held = [set(first.balance(GAMES)), set(second.balance(GAMES))]
        assert sorted(map(len, held)) == [1, 2]
        assert held[0] | held[1] == set(GAMES)


def test_a_new_worker_gets_its_half_of_a_hundred_games_at_its_next_round(engine: Engine) -> None:
    games = [f"game-{number:03}" for number in range(100)]
    first, second = worker(engine, "first", lease=30), worker(engine, "second", lease=30)
    assert len(first.balance(games)) == 100
    assert second.balance(games) == {}  # seen now; nothing free yet
    kept = first.balance(games)  # the surplus given back at once
    taken = second.balance(games)
    assert (len(kept), len(taken)) == (50, 50)
    assert set(kept) | set(taken) == set(games)


def test_three_workers_hold_one_each(engine: Engine) -> None:
    trio = [worker(engine, name) for name in ("one", "two", "three")]
    assert len(trio[0].balance(GAMES)) == 3
    settle(*trio, want=[1, 1, 1])
    held = [set(one.balance(GAMES)) for one in trio]
    assert set.union(*held) == set(GAMES)


def test_a_heartbeat_alone_makes_a_worker_count(engine: Engine) -> None:
    holder, newcomer = worker(engine, "holder"), worker(engine, "newcomer")
    assert len(holder.balance(GAMES)) == 3
    newcomer.heartbeat()  # seen, holding nothing: the holder's share is now two
    assert len(holder.balance(GAMES)) == 2
    assert len(holder.balance(GAMES)) == 2  # and keeps two
    assert [h.worker for h in holder.holders()].count(None) == 1


def test_a_worker_long_unseen_is_forgotten(engine: Engine) -> None:
    gone, here = worker(engine, "gone"), worker(engine, "here")
    gone.heartbeat()
    here.heartbeat()
    with engine.begin() as conn:
        conn.execute(
            update(workers)
            .where(workers.c.worker == "gone")
            .values(seen_at=func.clock_timestamp() - timedelta(seconds=99 * LEASE))
        )
    here.balance(GAMES)
    with engine.connect() as conn:
        assert conn.execute(select(workers.c.worker)).scalars().all() == ["gone", "here"]
        conn.execute(
            update(workers)
            .where(workers.c.worker == "gone")
            .values(seen_at=func.clock_timestamp() - timedelta(seconds=101 * LEASE))
        )
        conn.commit()
    here.balance(GAMES)
    with engine.connect() as conn:
        assert conn.execute(select(workers.c.worker)).scalars().all() == ["here"]


def test_a_silent_worker_loses_its_games_and_its_fence_fails(engine: Engine) -> None:
    silent, other = worker(engine, "silent"), worker(engine, "other")
    before = silent.balance(GAMES)
    assert other.balance(GAMES) == {}  # all three are held, and fresh

    wait_until("the other worker to take every game", lambda: len(other.balance(GAMES)) == 3,
               patience(10))
    after = other.balance(GAMES)
    assert {game: h.epoch for game, h in after.items()} == {
        game: h.epoch + 1 for game, h in before.items()
    }
    for holding in before.values():
        with engine.begin() as conn, pytest.raises(LeaseLost, match="taken"):
            silent.fence(conn, holding)
    for holding in after.values():  # in a Session, as the store's transactions are
        with Session(engine) as session, session.begin():
            other.fence(session, holding)
        with Session(engine) as session, session.begin(), pytest.raises(LeaseLost):
            silent.fence(session, Holding(holding.game, holding.epoch))


def test_a_lapsed_lease_fails_the_fence_even_when_nobody_took_it(engine: Engine) -> None:
    lapsed = worker(engine, "lapsed")
    holding = lapsed.balance(["main"])["main"]
    wait_until("the lease to run out", lambda: not lapsed.holders()[0].live,
               patience(5))
    with engine.begin() as conn, pytest.raises(LeaseLost, match="ran out"):
        lapsed.fence(conn, holding)
    assert lapsed.balance(["main"]) == {"main": Holding("main", holding.epoch + 1)}


def test_a_write_in_flight_keeps_the_taker_out_until_it_commits(engine: Engine) -> None:
    old, taker = worker(engine, "old"), worker(engine, "taker")
    holding = old.balance(["main"])["main"]
    order: list[str] = []
    rounds: list[dict[str, Holding]] = []
    stop = threading.Event()

    def take() -> None:
        while not stop.is_set():
            rounds.append(taker.balance(["main"]))
            if "main" in rounds[-1]:
                order.append("taken")
                return
            stop.wait(0.05)

    thread = threading.Thread(target=take, daemon=True)
    with engine.connect() as conn, conn.begin():
        old.fence(conn, holding)
        conn.execute(insert(lease_writes).values(game="main", worker="old", epoch=holding.epoch))
        thread.start()

        expired_at: list[int] = []  # how many rounds the taker had played then

        def expired_and_tried() -> bool:
            # Busy, not idle: the server cuts a transaction left idle for a lease.
            conn.execute(select(1))
            assert order == [], "the taker took the game while a write held it"
            if not expired_at and not old.holders()[0].live:
                expired_at.append(len(rounds))
            # The round after the one in progress began once the lease had run out.
            return bool(expired_at) and len(rounds) >= expired_at[0] + 3

        try:
            wait_until("the lease to run out under the write", expired_and_tried, patience(10))
            assert order == [] and all(r == {} for r in rounds)
        except BaseException:
            stop.set()
            raise
        # Said before the commit: the taker can only say "taken" after it.
        order.append("committed")
    thread.join(patience(10))
    stop.set()
    assert order == ["committed", "taken"]
    assert rounds[-1] == {"main": Holding("main", holding.epoch + 1)}
    with engine.connect() as conn:
        written = conn.execute(select(lease_writes.c.worker, lease_writes.c.epoch)).all()
    assert written == [("old", holding.epoch)]


def test_a_write_left_idle_past_the_lease_is_cut_off_by_the_server(engine: Engine) -> None:
    frozen, taker = worker(engine, "frozen"), worker(engine, "taker")
    holding = frozen.balance(["main"])["main"]
    with engine.connect() as conn:
        conn.begin()
        frozen.fence(conn, holding)
        # Nothing more is sent on it, as from a process stopped inside its transaction:
        # only the server's idle timeout can free the row for the taker.
        wait_until("the taker to take the game", lambda: "main" in taker.balance(["main"]),
                   patience(10))
        with pytest.raises(DBAPIError):
            conn.execute(insert(lease_writes).values(game="main", worker="frozen", epoch=1))
    with engine.connect() as conn:
        assert conn.execute(select(lease_writes.c.worker)).all() == []


def test_a_busy_game_s_lease_is_renewed_while_its_writes_run(engine: Engine) -> None:
    busy = worker(engine, "busy", lease=5)
    holding = busy.balance(["main"])["main"]
    first = busy.holders()[0].expires_at
    assert first is not None
    with engine.connect() as conn, conn.begin():
        busy.fence(conn, holding)
        # The same worker's round, while its own write holds the row: renewed, not skipped.
        assert busy.balance(["main"]) == {"main": holding}
        renewed = busy.holders()[0].expires_at
        assert renewed is not None and renewed > first
        conn.execute(insert(lease_writes).values(game="main", worker="busy", epoch=holding.epoch))
    with engine.begin() as conn:
        busy.fence(conn, holding)  # the same epoch: nobody took it


def test_release_hands_games_over_at_once(engine: Engine) -> None:
    leaving, staying = worker(engine, "leaving", lease=30), worker(engine, "staying", lease=30)
    assert len(leaving.balance(GAMES)) == 3
    leaving.release("main")
    assert [(h.worker, h.live) for h in leaving.holders() if h.game == "main"] == [(None, False)]
    assert staying.balance(GAMES) == {"main": Holding("main", 2)}
    leaving.release_all()
    assert set(staying.balance(GAMES)) == set(GAMES)  # a lone live worker's share: all
    with engine.connect() as conn:
        names = conn.execute(select(workers.c.worker)).scalars().all()
        epochs = dict(conn.execute(select(game_leases.c.game, game_leases.c.epoch)).all())
    assert names == ["staying"]
    assert epochs == {game: 2 for game in GAMES}


# --- Real worker processes ------------------------------------------------------------------


class WorkerProcess:
    """``tests/support/lease_worker.py`` in a process of its own, its lines read as they come."""

    def __init__(self, url: str, name: str, lease: float) -> None:
        self.name = name
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.lease_worker", url, str(lease), name, *GAMES],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def signal(self, number: signal.Signals) -> None:
        self.process.send_signal(number)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGCONT)
        self.process.kill()
        self.process.wait(patience(10))
        self._reader.join(patience(10))


@pytest.fixture
def start_worker(postgres_url: str) -> Iterator[Callable[[str, float], WorkerProcess]]:
    started: list[WorkerProcess] = []

    def start(name: str, lease: float) -> WorkerProcess:
        started.append(WorkerProcess(postgres_url, name, lease))
        return started[-1]

    yield start
    for process in started:
        process.kill()


def live_holders(leases: Leases) -> dict[str, Holder]:
    return {holder.game: holder for holder in leases.holders() if holder.live}


def test_a_killed_worker_s_games_go_to_the_other_within_two_leases(
    engine: Engine, start_worker: Callable[[str, float], WorkerProcess]
) -> None:
    lease = patience(2)
    watcher = worker(engine, "watcher", lease)
    doomed, survivor = start_worker("doomed", lease), start_worker("survivor", lease)
    wait_until(
        "both workers to hold games",
        lambda: (
            {h.worker for h in live_holders(watcher).values()} == {"doomed", "survivor"}
            and len(live_holders(watcher)) == 3
        ),
        patience(30),
    )
    doomed.signal(signal.SIGKILL)
    killed = time.monotonic()
    wait_until(
        "the survivor to hold every game",
        lambda: [h.worker for h in live_holders(watcher).values()] == ["survivor"] * 3,
        patience(30),
    )
    assert time.monotonic() - killed < 2 * lease
    # The worker says so once its round has committed, which the watcher may see first.
    holds = f"holds {' '.join(sorted(GAMES))}"
    wait_until("the survivor to say it holds every game", lambda: holds in survivor.lines,
               patience(10), survivor.lines)


def test_a_frozen_worker_never_writes_for_its_game_again(
    engine: Engine, start_worker: Callable[[str, float], WorkerProcess]
) -> None:
    lease = patience(1.5)
    frozen, other = start_worker("frozen", lease), start_worker("other", lease)
    wait_until(
        "the frozen worker to hold a game and write for it",
        lambda: _written_by(engine, "frozen"),
        patience(30),
    )
    frozen.signal(signal.SIGSTOP)
    before = {g: epoch for g, (w, epoch) in _leases(engine).items() if w == "frozen"}
    assert before, frozen.lines
    wait_until(
        "the other worker to take the frozen one's games and write for them",
        lambda: all(_taken_over(engine, "other", g, epoch) for g, epoch in before.items()),
        patience(30),
    )
    thawed = len(frozen.lines)  # what it said before the stop was read long ago
    frozen.signal(signal.SIGCONT)
    # Thawed, its next write for a game it lost is refused: by the fence ("lost"), or, when
    # it was stopped inside that write's transaction (as a busy machine makes likelier), by
    # the server, which cut the transaction left idle past a lease ("cut"). Stopped at the
    # start of a round, before its transaction was bounded, it learns from that round that
    # the game is gone and never tries the old holding: then two whole rounds after the
    # thaw (each after the writes of its holding) show it had every chance to write.
    wait_until(
        "the frozen worker to find a lease lost, or to go round twice after the thaw",
        lambda: any(line.split()[1] in before for line in frozen.lines
                    if line.startswith(("lost ", "cut ")))
        or frozen.lines[thawed:].count("round") >= 2,
        patience(30),
        frozen.lines,
    )
    for game, old in before.items():
        writes = _writes(engine, game)
        taken = writes.index(next(w for w in writes if w[0] == "other" and w[1] > old))
        # No write under the frozen worker's epoch after the other took the game; and no
        # write ever under an older epoch than one before it.
        assert ("frozen", old) not in writes[taken:], writes
        assert [epoch for _, epoch in writes] == sorted(epoch for _, epoch in writes), writes
    assert not [line for line in other.lines if line.startswith("lost ")], other.lines


def _taken_over(engine: Engine, name: str, game: str, epoch: int) -> bool:
    """Whether ``name`` holds ``game`` under an epoch above ``epoch``, and wrote under it."""
    holder, now = _leases(engine)[game]
    return holder == name and now > epoch and _written_by(engine, name, game, above=epoch)


def _writes(engine: Engine, game: str) -> list[tuple[str, int]]:
    """Who wrote for ``game``, and under which epoch, in order."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(lease_writes.c.worker, lease_writes.c.epoch)
            .where(lease_writes.c.game == game)
            .order_by(lease_writes.c.id)
        )
        return [(worker, epoch) for worker, epoch in rows]


def _leases(engine: Engine) -> dict[str, tuple[str | None, int]]:
    """Each game's holder (live or not) and epoch."""
    with engine.connect() as conn:
        rows = conn.execute(select(game_leases.c.game, game_leases.c.worker, game_leases.c.epoch))
        return {game: (worker, epoch) for game, worker, epoch in rows}


def _written_by(engine: Engine, name: str, game: str | None = None, *, above: int = 0) -> bool:
    """Whether ``name`` wrote (for ``game``, under an epoch above ``above``)."""
    query = (
        select(func.count())
        .select_from(lease_writes)
        .where(lease_writes.c.worker == name, lease_writes.c.epoch > above)
    )
    if game is not None:
        query = query.where(lease_writes.c.game == game)
    with engine.connect() as conn:
        count = conn.execute(query).scalar_one()
    return int(count) > 0
