"""What the test servers share: a free loopback port, a scratch directory, ``with``.

Dovecot, PostgreSQL and the SMTP sink each start and stop their own way; this module
holds the rest once, so that a server is a context manager doing ``start()`` and
``close()``, and a server with files keeps them in one temporary directory that is
deleted when it closes (or when the interpreter exits, if a test forgot to).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Self

from .ports import LOOPBACK, free_port


class LoopbackServer:
    """A server the tests run on ``host:port``, a free port of loopback unless given."""

    def __init__(self, port: int | None) -> None:
        self.host = LOOPBACK
        self.port = port if port is not None else free_port()

    def start(self) -> None:
        """Start the server; returns once it answers on ``port``."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop the server; what it keeps (files, captured mail) stays."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop the server for good."""
        self.stop()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class ScratchServer(LoopbackServer):
    """A loopback server whose files live in ``root``, a directory of its own.

    ``log_path`` is the server's log file in ``root``. ``close()`` stops the server and
    deletes ``root``; it is also registered to run at exit, since a test process that dies
    in the middle of a test would otherwise leave the directory (and the server) behind.
    """

    def __init__(self, port: int | None, *, prefix: str, log_name: str) -> None:
        super().__init__(port)
        self.root = Path(tempfile.mkdtemp(prefix=prefix))
        self.log_path = self.root / log_name
        atexit.register(self.close)

    def close(self) -> None:
        """Stop the server and delete its directory."""
        atexit.unregister(self.close)
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
