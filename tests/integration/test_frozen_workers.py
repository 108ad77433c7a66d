"""A worker frozen (SIGSTOP) past its lease, then thawed, writes and sends nothing more.

Two real ``speakerbot run`` workers share three games through PostgreSQL (their shared
parts: failover_harness.py). The frozen one, continued, finds its game taken: nothing it
was about to write lands, and of a distribution it was sending, at most the copy it was in.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path

from tests.integration.failover_harness import (
    ALICE,
    ALPHA,
    BOB,
    CAROL,
    DAVE,
    LEASE,
    copies_each,
    hosting_for,
    replies,
    two_workers,
    wait_taken,
)
from tests.integration.game_harness import subject_of
from tests.integration.hosting_harness import Hosting
from tests.support.patience import patience
from tests.support.smtp_sink import SmtpSink


def test_a_frozen_worker_writes_nothing_more_for_the_game_it_lost(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    hosting = hosting_for(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    stop_workers.append(hosting)
    frozen, other = two_workers(hosting)

    frozen.signal(signal.SIGSTOP)
    log_before = len(frozen.log_text())
    wait_taken(hosting, ALPHA.id, other, timeout=patience(15))
    hosting.send(ALICE, ALPHA.address, "while frozen", "STATUS\n", worker=other)
    hosting.wait_reply("while frozen", ALICE)

    # Mail handed to the frozen worker's listener waits in the socket; thawed, the worker
    # stores it (any worker's listener does) and wakes the game's loop at once, which races
    # its round of leases: whichever comes first, the game is gone and nothing is written.
    handed = threading.Thread(target=hosting.send, args=(BOB, ALPHA.address, "after the thaw",
                                                         "STATUS\n"), kwargs={"worker": frozen})
    handed.start()
    frozen.signal(signal.SIGCONT)
    handed.join(patience(30))
    frozen.wait_log("let the game alpha go")
    hosting.wait_reply("after the thaw", BOB)
    hosting.send(CAROL, ALPHA.address, "last", "STATUS\n", worker=other)
    hosting.wait_reply("last", CAROL)

    since = frozen.log_text()[log_before:]
    assert "the game alpha sent" not in since, since
    assert "took the game alpha" not in since, since
    for subject, to in (("while frozen", ALICE), ("after the thaw", BOB), ("last", CAROL)):
        assert replies(hosting, subject, to) == 1, subject
    hosting.cli("record", "verify", game=ALPHA.id)
    for worker in hosting.workers:
        assert worker.stop() == 0



def test_a_worker_frozen_in_mid_send_sends_nothing_after_the_copy_it_was_in(
        tmp_path: Path, smtp_sink: SmtpSink, postgres_url: str,
        stop_workers: list[Hosting]) -> None:
    """Issue 37.2: the lease is asked before every copy, not once a batch.

    A relay that takes a second a copy; the holder is stopped (SIGSTOP) right after the first
    copy of a distribution went, the other worker takes the game and sends every copy, and
    the frozen one, continued, sends at most the copy whose SMTP transaction it was inside.
    """
    hosting = hosting_for(tmp_path, smtp_sink, postgres_url, lease=LEASE)
    stop_workers.append(hosting)
    frozen, other = two_workers(hosting)
    smtp_sink.slow_down(patience(1))  # slow enough to freeze the holder mid-distribution

    hosting.send(ALICE, ALPHA.address, "PROPOSE: Hum", "Players may hum.\n", worker=other)
    distribution = f"[{ALPHA.name}] Proposal 301: Hum"
    first = hosting.wait_for(lambda m: subject_of(m) == distribution)
    frozen.signal(signal.SIGSTOP)
    taken_before = len(smtp_sink.messages)
    frozen_peer = first.peer
    wait_taken(hosting, ALPHA.id, other, timeout=patience(20))

    players = (ALICE, BOB, CAROL, DAVE)
    for player in players:  # the new holder sends the whole distribution: it knows no better
        hosting.wait_for(lambda m, to=player: subject_of(m) == distribution  # type: ignore[misc]
                         and to in m.rcpt_tos and m.peer != frozen_peer)
    hosting.wait_reply("PROPOSE: Hum", ALICE)

    frozen.signal(signal.SIGCONT)
    frozen.wait_log("let the game alpha go")
    after = [m for m in smtp_sink.messages[taken_before:] if m.peer == frozen_peer]
    assert len(after) <= 1, [(subject_of(m), m.rcpt_tos) for m in after]
    by_frozen = [m for m in smtp_sink.messages if m.peer == frozen_peer]
    per_recipient = copies_each(hosting, distribution)
    assert set(players) <= set(per_recipient)
    twice = {r for r, count in per_recipient.items() if count > 1}
    assert all(count <= 2 for count in per_recipient.values()), per_recipient
    assert twice <= {r for m in by_frozen for r in m.rcpt_tos}, (twice, per_recipient)
    assert replies(hosting, "PROPOSE: Hum", ALICE) <= 2
    hosting.cli("record", "verify", game=ALPHA.id)
    for worker in hosting.workers:
        assert worker.stop() == 0

