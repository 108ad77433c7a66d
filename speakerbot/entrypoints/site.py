"""The web archive from the command line and in the daemon.

``speakerbot site build OUTDIR`` writes the archive once; ``speakerbot site serve`` builds
it into a temporary folder and serves it on loopback for a preview. ``SiteKeeper`` is the
daemon's part: with ``[site] dir`` set, it rebuilds the archive whenever the public record
has grown, and swaps it in whole.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import random
import shutil
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from speakerbot.config import ConfigError, Settings
from speakerbot.entrypoints.cli import CliError
from speakerbot.entrypoints.opening import settings_from
from speakerbot.resources import templates_dir
from speakerbot.service import GameService, ServiceError
from speakerbot.site import (
    HostedGame,
    SiteWriteError,
    build_host_index,
    build_site,
    write_beside,
    write_site,
)

log = logging.getLogger("speakerbot.entrypoints.site")

USER_ERRORS: tuple[type[Exception], ...] = (CliError, ConfigError, ServiceError, SiteWriteError)
"""Errors the user can fix: printed without a traceback, exit status 2."""


def render(settings: Settings, lines: list[dict[str, Any]]) -> dict[str, bytes]:
    """Return the archive's files for the public record's ``lines``."""
    return build_site(lines, templates_dir() / "site", name=settings.game.name,
                      address=settings.game.address, now=datetime.now(UTC),
                      url=settings.site.url or "")


def _public_record(args: argparse.Namespace) -> tuple[Settings, list[dict[str, Any]]]:
    settings = settings_from(args)
    # Building reads the record and draws nothing: no randomness is needed.
    with GameService.open(settings, rng=random.Random(0)) as service:
        return settings, service.public_record()


def site_build(args: argparse.Namespace) -> int:
    """Write the archive to OUTDIR, swapped in whole (``speakerbot site build OUTDIR``)."""
    started = time.perf_counter()
    settings, lines = _public_record(args)
    files = render(settings, lines)
    write_site(files, Path(args.outdir))
    print(f"wrote {len(files)} files ({len(lines)} public events) to {args.outdir} "
          f"in {time.perf_counter() - started:.2f} s")
    return 0


class _Quiet(SimpleHTTPRequestHandler):
    """Serves the archive; ``.jsonl`` as text, so that a browser shows the record."""

    # The base declares it as an instance attribute, so it is overridden the same way.
    extensions_map = {  # noqa: RUF012
        **SimpleHTTPRequestHandler.extensions_map, ".jsonl": "text/plain; charset=utf-8"}

    def log_message(self, format: str, *args: Any) -> None:
        """Log each request at debug level rather than on standard error."""
        log.debug(format, *args)


def site_serve(args: argparse.Namespace) -> int:
    """Build the archive into a temporary folder and serve it on 127.0.0.1 until Ctrl-C."""
    settings, lines = _public_record(args)
    folder = Path(tempfile.mkdtemp(prefix="speakerbot-site-"))
    try:
        write_site(render(settings, lines), folder / "site")
        handler = functools.partial(_Quiet, directory=str(folder / "site"))
        try:
            server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
        except OSError as error:
            raise CliError(f"cannot listen on 127.0.0.1:{args.port}: {error.strerror}") from None
        with server:
            print(f"serving the archive at http://127.0.0.1:{server.server_address[1]}/ "
                  "(Ctrl-C stops)", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                server.serve_forever()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def write_host_index(games: Sequence[Settings], folder: Path) -> None:
    """Write the index page of a host's games into ``folder``, beside their archives."""
    hosted = [HostedGame(settings.game_id, settings.game.name, settings.game.address)
              for settings in games]
    write_beside(build_host_index(hosted, templates_dir() / "site", name="Games"), folder)


class SiteKeeper:
    """Keeps ``[site] dir`` up to date for the daemon: rebuilt when the record grew.

    The service's state is a new object after every transaction that committed; only then
    is the public record read, and only when it has more lines than the last build is the
    archive rebuilt. A failed build is logged and tried again after the next change: the
    archive must never stop the game.
    """

    def __init__(self, settings: Settings, service: GameService) -> None:
        self.settings = settings
        self.service = service
        self.target = settings.site.dir
        self._seen: object = None
        self._built = -1

    def refresh(self) -> bool:
        """Rebuild the archive if the public record has grown; return whether it was."""
        if self.target is None:
            return False
        with self.service.lock:
            state = self.service.state()
            if state is self._seen:
                return False
            self._seen = state
            lines = self.service.public_record()
        if len(lines) == self._built:
            return False
        started = time.perf_counter()
        try:
            write_site(render(self.settings, lines), self.target)
        except Exception:
            log.exception("could not rebuild the web archive in %s", self.target)
            return False
        self._built = len(lines)
        log.info("rebuilt the web archive in %s (%d public events) in %.2f s", self.target,
                 len(lines), time.perf_counter() - started)
        return True
