"""The metrics listener: Prometheus text at /metrics and a health check at /healthz.

It knows nothing of the games: it serves what a ``prometheus_client`` registry collects at
each scrape, and asks ``health`` (a callable giving the reasons for being unhealthy, none
when all is well) at each /healthz, answering 200 "ok" or 503 with the reasons, one a line.
It runs on a thread of its own, so that a slow scrape never holds up a game's loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

log = logging.getLogger("speakerbot.adapters.metrics")


class MetricsServer:
    """Serves ``registry`` at /metrics and ``health`` at /healthz on ``host``:``port``.

    ``port`` 0 takes a free port (``port`` tells which once started).
    """

    def __init__(self, host: str, port: int, registry: CollectorRegistry,
                 health: Callable[[], list[str]]) -> None:
        self.host = host
        self.port = port
        self.registry = registry
        self.health = health
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Bind and serve on a daemon thread (``OSError`` if the address cannot be had)."""
        server = ThreadingHTTPServer((self.host, self.port), _handler(self))
        server.daemon_threads = True
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(target=server.serve_forever, name="metrics",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = None

    def answer(self, path: str) -> tuple[int, str, bytes]:
        """Return the status, content type and body for a GET of ``path``."""
        path = path.split("?", 1)[0]
        if path == "/metrics":
            return 200, CONTENT_TYPE_LATEST, generate_latest(self.registry)
        if path == "/healthz":
            faults = self.health()
            if faults:
                return 503, "text/plain; charset=utf-8", "\n".join(faults).encode() + b"\n"
            return 200, "text/plain; charset=utf-8", b"ok\n"
        return 404, "text/plain; charset=utf-8", b"not found: try /metrics or /healthz\n"


def _handler(server: MetricsServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the name http.server calls
            try:
                status, kind, body = server.answer(self.path)
            except Exception as error:  # the database away: say so, and stay up
                log.warning("metrics: could not answer %s: %s", self.path, error)
                status, kind = 503, "text/plain; charset=utf-8"
                body = f"could not read the games: {error}\n".encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # a scrape every few seconds would drown the log

    return Handler
