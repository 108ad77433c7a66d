"""A counting SMTP relay in a process of its own, as a real relay (Postfix) runs beside the
Speaker: its CPU is not the Speaker's, and it does not take the Speaker's GIL.

It offers PIPELINING, takes every message, keeps none, and counts the messages it took in
a small file both processes map (``received``). Run as a script, it is the relay itself:
``relay_process.py PORT COUNTER-FILE``, serving until its standard input closes.
"""

from __future__ import annotations

import mmap
import socket
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
_COUNT = struct.Struct("<q")


class _Counting:
    """aiosmtpd hooks: offer PIPELINING; count each message taken."""

    def __init__(self, counter: mmap.mmap) -> None:
        self.counter = counter
        self.taken = 0

    async def handle_EHLO(self, server: Any, session: Any, envelope: Any, hostname: str,
                          responses: list[str]) -> list[str]:
        """Offer PIPELINING, as Postfix and the hosted relays do."""
        session.host_name = hostname
        return [*responses[:-1], "250-PIPELINING", responses[-1]]

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """Count the message; accept it."""
        self.taken += 1
        _COUNT.pack_into(self.counter, 0, self.taken)  # one writer: this event loop
        return "250 OK"


def serve(port: int, counter_file: Path) -> None:
    """Be the relay on ``port`` until standard input closes."""
    from aiosmtpd.controller import Controller

    with counter_file.open("r+b") as file, mmap.mmap(file.fileno(), _COUNT.size) as counter:
        controller = Controller(_Counting(counter), hostname=HOST, port=port)
        controller.start()
        print("ready", flush=True)
        sys.stdin.read()
        controller.stop()


class RelayProcess:
    """The relay's process: ``host`` and ``port`` to send to, ``received()`` so far."""

    def __init__(self) -> None:
        with socket.socket() as probe:  # a free port on loopback
            probe.bind((HOST, 0))
            self.port = int(probe.getsockname()[1])
        self.host = HOST
        self._folder = tempfile.TemporaryDirectory()
        counter_file = Path(self._folder.name) / "taken"
        counter_file.write_bytes(bytes(_COUNT.size))
        self._file = counter_file.open("rb")
        self._counter = mmap.mmap(self._file.fileno(), _COUNT.size, access=mmap.ACCESS_READ)
        self._from = 0
        self._process = subprocess.Popen(
            [sys.executable, __file__, str(self.port), str(counter_file)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        if self._process.stdout.readline().strip() != "ready":
            self.close()
            raise RuntimeError("the relay process did not start")

    def received(self) -> int:
        """Return how many messages the relay has taken since the last ``clear``."""
        return int(_COUNT.unpack_from(self._counter, 0)[0]) - self._from

    def clear(self) -> None:
        """Count from nought again."""
        self._from += self.received()

    def cpu_seconds(self) -> float:
        """Return the CPU seconds the relay's process has used so far."""
        # Here, not at the top: run as a script, the relay itself has no need of it.
        from bench.processes import cpu_seconds

        return cpu_seconds(self._process.pid)

    def close(self) -> None:
        """Stop the relay and its process."""
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(30)
        self._counter.close()
        self._file.close()
        self._folder.cleanup()

    def __enter__(self) -> RelayProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]))
