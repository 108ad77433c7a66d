"""Mail that arrives together is processed together: one transaction for a pass's messages.

The service on a real SQLite file (WAL, ``synchronous = FULL``), as LMTP's bursts reach it:
the messages stored, then ``process_pending``. Commits are counted on the engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from speakerbot.adapters.store import InboundRow
from speakerbot.service import Processed, processing
from tests.support.mailgame import ALICE, BOB, CAROL, MailGame, MakeMailGame, mail_games

pytestmark = pytest.mark.integration


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    with mail_games(tmp_path) as make:
        made: MakeMailGame = make
        game = made()
        game.send(ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every vote.\n")
        yield game


def _commits(game: MailGame) -> list[int]:
    counted = [0]

    def commit(connection: object) -> None:
        counted[0] += 1

    event.listen(game.store.engine, "commit", commit)
    return counted


def test_a_burst_is_processed_in_one_transaction(game: MailGame) -> None:
    for voter in (ALICE, BOB, CAROL):
        game.receive(voter, "vote", "VOTE 301 FOR\n")
    commits = _commits(game)
    done = game.process()
    assert [item.status for item in done] == ["processed"] * 3
    # The starts counted (one commit), then the three messages (one more).
    assert commits[0] == 2, commits
    assert set(game.service.state().proposals[301].ballots) == {ALICE, BOB, CAROL}


def test_a_burst_larger_than_a_batch_goes_in_batches(game: MailGame,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processing, "BATCH", 2)
    for voter in (ALICE, BOB, CAROL):
        game.receive(voter, "status", "STATUS\n")
    commits = _commits(game)
    assert [item.status for item in game.process()] == ["processed"] * 3
    assert commits[0] == 4, commits  # two batches: each its starts and its messages


def test_a_batch_that_fails_is_processed_one_message_at_a_time(
        game: MailGame, monkeypatch: pytest.MonkeyPatch) -> None:
    for voter in (ALICE, BOB, CAROL):
        game.receive(voter, "vote", "VOTE 301 AGAINST\n")
    real = processing.handle_message

    def failing_for_bob(uow: object, deps: object, row: InboundRow,
                        *args: object) -> Processed:
        if row.sender == BOB:
            raise RuntimeError("a fault while processing Bob's message")
        return real(uow, deps, row, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(processing, "handle_message", failing_for_bob)
    done = game.process()
    # The batch rolled back whole; each was then processed alone: Bob's costs only itself.
    assert [item.status for item in done] == ["processed", "retry", "processed"]
    assert set(game.service.state().proposals[301].ballots) == {ALICE, CAROL}


def test_a_lost_database_connection_is_not_counted_against_the_message(
        game: MailGame, monkeypatch: pytest.MonkeyPatch) -> None:
    # The server restarted under a connection used a moment ago (not tested on its way out
    # of the pool): the failure is the database's, so the message keeps its clean slate and
    # holds back nobody; the next pass processes it.
    game.receive(BOB, "vote", "VOTE 301 AGAINST\n")
    real = processing.handle_message

    def connection_cut(uow: object, deps: object, row: InboundRow, *args: object) -> Processed:
        raise OperationalError("SELECT 1", {}, ConnectionError("server closed the connection"),
                               connection_invalidated=True)

    monkeypatch.setattr(processing, "handle_message", connection_cut)
    with pytest.raises(OperationalError):
        game.process()
    [waiting] = game.store.pending_inbound()
    assert (waiting.status, waiting.attempts, waiting.error) == ("new", 0, None)
    monkeypatch.setattr(processing, "handle_message", real)
    assert [item.status for item in game.process()] == ["processed"]
    assert set(game.service.state().proposals[301].ballots) == {BOB}
