"""Group commit: work that arrives together is made durable together, in one commit.

LMTP delivers a burst over several connections at once, each waiting for its message to be
stored before it may answer 250. Stored one by one, each pays a commit of its own (an fsync,
on SQLite in WAL mode with ``synchronous = FULL``). Here the first caller to find no commit
under way leads: it commits its own item and every item that arrived meanwhile, in one
transaction; the callers that arrive while it commits wait, and the first of them leads the
next commit with all of them. A caller alone waits for nothing: there is no timer, only the
commit in flight to gather behind.

Every caller returns only once the commit that holds its item is done, so nothing is
acknowledged before it is durable; should that commit fail, each of its callers gets the
error (the caller's ``commit`` decides whether a bad item fails the others: intake stores
each alone when a batch fails).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class _Slot(Generic[T, R]):
    item: T
    done: bool = False
    result: R | None = None
    error: BaseException | None = None


class GroupCommit(Generic[T, R]):
    """Commits the items of callers that arrive together, in one call of ``commit``."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._waiting: list[_Slot[T, R]] = []
        self._leading = False
        self.commits = 0
        """How many commits were made (for the benches and tests: items / commits)."""

    def waiting(self) -> int:
        """Return how many items wait for the next commit (not the one under way)."""
        with self._cond:
            return len(self._waiting)

    def submit(self, item: T, commit: Callable[[Sequence[T]], Sequence[R]]) -> R:
        """Return ``item``'s result from a ``commit`` of it and whatever arrived with it.

        ``commit`` takes the items in the order they arrived and returns one result each.
        """
        slot: _Slot[T, R] = _Slot(item)
        with self._cond:
            self._waiting.append(slot)
            while not slot.done:
                if self._leading:
                    self._cond.wait()
                else:
                    self._lead(commit)
        if slot.error is not None:
            raise slot.error
        return slot.result  # type: ignore[return-value]  # set with done, when no error

    def _lead(self, commit: Callable[[Sequence[T]], Sequence[R]]) -> None:
        """Commit every waiting item (the lock held on entry and on return, not between)."""
        group, self._waiting = self._waiting, []
        self._leading = True
        self._cond.release()
        try:
            results = commit([slot.item for slot in group])
            for slot, result in zip(group, results, strict=True):
                slot.result = result
        except BaseException as error:  # each caller raises it, the leader too
            for slot in group:
                slot.error = error
        finally:
            self._cond.acquire()
            self.commits += 1
            self._leading = False
            for slot in group:
                slot.done = True
            self._cond.notify_all()
