"""Free loopback TCP ports, and what the test servers share about missing binaries."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from .patience import patience

LOOPBACK = "127.0.0.1"

INSTALL_HINT = "run `bash scripts/install-system-deps` (as root or with sudo) to install it"


class MissingServerBinary(RuntimeError):
    """A server program the integration tests need is not installed on this machine."""


def free_port(host: str = LOOPBACK) -> int:
    """Return a TCP port on ``host`` that nothing listens on right now.

    The port is found by binding to port 0 and closing the socket again, so another
    process could take it before the caller binds it; on a test machine that is rare.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
    return port


def wait_for_port(
    port: int,
    host: str = LOOPBACK,
    *,
    timeout: float = patience(15),
    greeting: bytes | None = None,
    check: Callable[[], None] | None = None,
) -> None:
    """Block until a TCP connection to ``host:port`` succeeds, or raise ``TimeoutError``.

    With ``greeting``, the connection must also send a first line starting with
    those bytes (an IMAP server accepts connections before it can log anyone in,
    and sends its greeting only once it can). ``check`` is called before each
    attempt and may raise to give up early, e.g. when the server process died.
    """
    deadline = time.monotonic() + timeout
    delay = 0.01
    last_error: OSError | None = None
    while True:
        if check is not None:
            check()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(
                f"nothing accepted connections on {host}:{port} within {timeout:g}s"
                + (f" (last error: {last_error})" if last_error else "")
            )
        try:
            with socket.create_connection((host, port), timeout=remaining) as sock:
                if greeting is None:
                    return
                line = sock.makefile("rb").readline()
                if line.startswith(greeting):
                    return
                last_error = OSError(f"unexpected greeting {line!r}")
        except OSError as exc:
            last_error = exc
        # A connection poll: the server has not bound its port yet.
        time.sleep(min(delay, max(deadline - time.monotonic(), 0)))
        delay = min(delay * 2, 0.2)
