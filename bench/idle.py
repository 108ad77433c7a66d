"""Idle benchmark: the daemon's resident memory and CPU while it waits for mail.

Starts ``speakerbot run`` on a real Dovecot (IMAP IDLE) and an SMTP sink, lets it settle,
then prints its resident set (now and at its peak) and the CPU it used over a quiet spell.
The goal: under 80 MB, and next to no CPU (it should sleep in IDLE, woken only by mail,
its deadlines and the IDLE refresh).

Run: .venv/bin/python bench/idle.py [--quiet-seconds N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench.processes import cpu_seconds
from tests.integration.game_harness import RunningGame
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink


def _memory(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {name: value.strip() for name, _, value in (line.partition(":") for line in lines)
            if name in ("VmRSS", "VmHWM")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quiet-seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dovecot = DovecotServer()
        dovecot.start()
        try:
            with SmtpSink() as sink:
                game = RunningGame(Path(tmp), dovecot, sink, f"sqlite:///{tmp}/game.db",
                                   "nomicam")
                game.cli("init")
                game.start()
                game.wait_log("running the game")
                assert game.process is not None
                pid = game.process.pid
                time.sleep(5)  # let start-up settle
                before = cpu_seconds(pid)
                time.sleep(args.quiet_seconds)
                cpu = cpu_seconds(pid) - before
                memory = _memory(pid)
                game.stop()
        finally:
            dovecot.close()
    print(f"idle daemon: resident {memory['VmRSS']} (peak {memory['VmHWM']}); "
          f"{cpu:.2f} s of CPU over {args.quiet_seconds:.0f} quiet seconds "
          "(the goal: under 80 MB)")


if __name__ == "__main__":
    main()
