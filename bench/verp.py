"""What VERP costs: one public message sent to N recipients, in chunks or a copy each.

A real SMTP relay on loopback (aiosmtpd, accepting everything and keeping nothing) and the
real outbox on SQLite (WAL, synchronous=FULL). Printed side by side for each N:

- **chunks**: the outbox without VERP, as before issue 29: one transaction per chunk of
  ``max_recipients`` (50) envelope recipients, all from the game's address;
- **VERP 1by1**: a copy per recipient from its own return path, each command waiting for
  its answer (as before issue 41);
- **VERP piped**: the same copies, each transaction's MAIL FROM, RCPT TO and DATA sent in
  one group (RFC 2920 PIPELINING, which the relay offers here as real relays do) and the
  message's bytes quoted once for every copy (what the Speaker does now).

Each figure is the best of ``--rounds`` runs: seconds to send the message, transactions,
and bytes handed to the relay.

Run: .venv/bin/python bench/verp.py [--recipients 65 500] [--rounds 3] [--body-kb 4]
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

from speakerbot.adapters.smtp import SmtpSender, SmtpSettings
from speakerbot.adapters.store import OutgoingMail, Store, sqlite_url
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, compose
from speakerbot.service.outbox import Outbox, OutboxPolicy

GAME = "nomic@bench.test"
IDENTITY = GameIdentity("Bench Nomic", GAME, secret="the bench's secret")
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)


class Counting:
    """An aiosmtpd handler that counts transactions and bytes, and keeps nothing."""

    def __init__(self) -> None:
        self.transactions = 0
        self.size = 0

    async def handle_EHLO(self, server: Any, session: Any, envelope: Any, hostname: str,
                          responses: list[str]) -> list[str]:
        """Offer PIPELINING, as Postfix and the hosted relays do."""
        session.host_name = hostname
        return [*responses[:-1], "250-PIPELINING", responses[-1]]

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """Count the message; accept it."""
        self.transactions += 1
        self.size += len(envelope.content)  # the bytes on the wire, once per transaction
        return "250 OK"


def one_send(port: int, handler: Counting, recipients: int, body_kb: int,
             way: str) -> tuple[float, int, int]:
    """Queue one public message to ``recipients`` players and send it; time the sending."""
    players = tuple(f"player{n:04}@players.test" for n in range(recipients))
    body = ("The proposal's text, as long as a real one. " * 24 + "\n") * body_kb
    _, raw = compose(IDENTITY, Outgoing("announcement", players, "Proposal 301: Tea", body,
                                        "bench", public=True), T0)
    with tempfile.TemporaryDirectory() as folder, \
            Store(sqlite_url(Path(folder) / "game.db")) as store:
        store.upgrade()
        with store.transaction() as session:
            store.enqueue(session, OutgoingMail("<bench@bench.test>", GAME, players, raw,
                                                "announcement", None, T0))
        outbox = Outbox(store, OutboxPolicy(give_up_after=86400.0), lambda: T0,
                        identity=None if way == "chunks" else IDENTITY)
        sender = SmtpSender(SmtpSettings("127.0.0.1", port, "none"),
                            pipelining=way == "VERP piped")
        handler.transactions = handler.size = 0
        start = time.perf_counter()
        assert outbox.send_due(sender) == 1
        return time.perf_counter() - start, handler.transactions, handler.size


def main() -> None:
    """Print chunks against VERP, one by one and pipelined, for each number of recipients."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipients", type=int, nargs="+", default=[65, 500])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--body-kb", type=int, default=4)
    args = parser.parse_args()
    handler = Counting()
    with socket.socket() as probe:  # a free port on loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        print(f"{'recipients':>10}  {'way':<11} {'seconds':>8} {'transactions':>13} "
              f"{'bytes to relay':>15}")
        for count in args.recipients:
            for way in ("chunks", "VERP 1by1", "VERP piped"):
                runs = [one_send(port, handler, count, args.body_kb, way)
                        for _ in range(args.rounds)]
                seconds = min(run[0] for run in runs)
                _, transactions, size = runs[-1]
                print(f"{count:>10}  {way:<11} {seconds:>8.3f} {transactions:>13} {size:>15,}")
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
