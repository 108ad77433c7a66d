"""``GroupCommit``: callers that arrive while a commit is under way share the next one."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from speakerbot.service.grouping import GroupCommit
from tests.support.patience import patience


def test_a_caller_alone_commits_at_once_and_gets_its_own_result() -> None:
    group: GroupCommit[int, str] = GroupCommit()
    assert group.submit(7, lambda items: [f"stored {item}" for item in items]) == "stored 7"
    assert group.submit(8, lambda items: [f"stored {item}" for item in items]) == "stored 8"
    assert group.commits == 2


def test_callers_arriving_during_a_commit_share_the_next_one() -> None:
    group: GroupCommit[int, int] = GroupCommit()
    first_in = threading.Event()
    release = threading.Event()
    committed: list[list[int]] = []

    def commit(items: Sequence[int]) -> list[int]:
        committed.append(list(items))
        if items == [0]:
            first_in.set()
            # The first commit lasts until the four others are waiting behind it.
            assert release.wait(patience(10))
        return [item * 10 for item in items]

    with ThreadPoolExecutor(5) as pool:
        first = pool.submit(group.submit, 0, commit)
        assert first_in.wait(patience(10))
        others = [pool.submit(group.submit, n, commit) for n in range(1, 5)]
        # The four queue behind the commit under way (polled: nothing signals a queueing).
        deadline = time.monotonic() + patience(10)
        while group.waiting() < 4:
            assert time.monotonic() < deadline, group.waiting()
            time.sleep(0.005)
        release.set()
        assert first.result() == 0
        assert sorted(other.result() for other in others) == [10, 20, 30, 40]
    assert committed[0] == [0] and sorted(committed[1]) == [1, 2, 3, 4]
    assert group.commits == 2


def test_a_failed_commit_fails_each_of_its_callers_and_not_the_next() -> None:
    group: GroupCommit[int, int] = GroupCommit()

    def failing(items: Sequence[int]) -> list[int]:
        raise ConnectionError("the database went away")

    with pytest.raises(ConnectionError):
        group.submit(1, failing)
    assert group.submit(2, lambda items: list(items)) == 2


def test_a_commit_must_answer_each_item() -> None:
    group: GroupCommit[int, int] = GroupCommit()
    with pytest.raises(ValueError):  # zip(strict=True): a result short is no result
        group.submit(1, lambda items: [])
