"""The web archive from the command line and in the daemon.

``speakerbot site build OUTDIR`` writes the archive once; ``speakerbot site serve`` builds
it into a temporary folder and serves it on loopback for a preview. ``SiteKeeper`` is the
daemon's part: with ``[site] dir`` set, it brings the archive up to date whenever the
public record has grown, writing only the pages the new events change.
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
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from speakerbot.config import ConfigError, Settings
from speakerbot.engine import chain
from speakerbot.entrypoints.cli import CliError
from speakerbot.entrypoints.opening import settings_from
from speakerbot.resources import templates_dir
from speakerbot.service import GameService, ServiceError
from speakerbot.site import (
    HostedGame,
    KeptSite,
    SiteWriteError,
    build_host_index,
    build_site,
    is_updatable,
    update_site,
    write_beside,
    write_site,
)

log = logging.getLogger("speakerbot.entrypoints.site")

USER_ERRORS: tuple[type[Exception], ...] = (CliError, ConfigError, ServiceError, SiteWriteError)
"""Errors the user can fix: printed without a traceback, exit status 2."""


def render(settings: Settings, lines: list[dict[str, Any]]) -> dict[str, bytes]:
    """Return the archive's files for the public record's ``lines``.

    No clock: the rules "changed lately" are told as of the record's last event, so that
    the same record always gives the same bytes (and the daemon's kept archive equals it).
    """
    return build_site(lines, templates_dir() / "site", name=settings.game.name,
                      address=settings.game.address, url=settings.site.url or "")


def kept_site(settings: Settings) -> KeptSite:
    """Return an empty archive to keep up with the record, as ``render`` would build it."""
    return KeptSite(templates_dir() / "site", name=settings.game.name,
                    address=settings.game.address, url=settings.site.url or "")


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
    """Keeps ``[site] dir`` up to date for the daemon, page by page as the record grows.

    The service's state is a new object after every transaction that committed; only then
    is the public record read, from the line after the last one folded. The first time (or
    when the folder is missing or not speakerbot's build) the archive is built whole and
    swapped in; after that only the pages the new lines change are written, each swapped
    in on its own, and ``record.jsonl`` is extended. Should an update fail, the archive is
    built whole at once; should that fail too, it is logged and tried again after the next
    change: the archive must never stop the game.
    """

    def __init__(self, settings: Settings, service: GameService) -> None:
        self.settings = settings
        self.service = service
        self.target = settings.site.dir
        self._seen: object = None
        self._site: KeptSite | None = None  # what the folder holds, once it was built whole
        self._place: chain.Bookmark | None = None  # where the record was read up to

    def refresh(self) -> bool:
        """Bring the archive up to date if the public record has grown; return whether it was."""
        if self.target is None:
            return False
        with self.service.lock:
            state = self.service.state()
            if state is self._seen:
                return False
            self._seen = state
            kept = self._site if self._site is not None and is_updatable(self.target) else None
            read = self.service.public_record_after(self._place if kept is not None else None)
        if kept is None or read is None:
            return self._rebuild(None if kept is not None else read)
        lines, place = read
        if not lines:  # sealed ballots and the like: nothing public, read past them
            self._place = place
            return False
        started = time.perf_counter()
        try:
            update = kept.update(lines)
            update_site(update.files, self.target, removed=update.removed, record=update.record)
        except Exception:
            log.exception("could not update the web archive in %s: building it whole",
                          self.target)
            return self._rebuild(None)
        self._place = place
        log.info("updated the web archive in %s (%d new public events, %d files) in %.3f s",
                 self.target, len(lines), len(update.files), time.perf_counter() - started)
        return True

    def _rebuild(self, read: tuple[list[dict[str, Any]], chain.Bookmark] | None) -> bool:
        """Build the archive whole from the whole record (``read``, else read now), swap it in."""
        assert self.target is not None
        self._site = None
        started = time.perf_counter()
        try:
            if read is None:
                with self.service.lock:
                    read = self.service.public_record_after(None)
            assert read is not None  # a whole reading links what is not linked yet
            lines, place = read
            site = kept_site(self.settings)
            write_site(site.build(lines), self.target)
        except Exception:
            log.exception("could not rebuild the web archive in %s", self.target)
            return False
        self._site, self._place = site, place
        log.info("rebuilt the web archive in %s (%d public events) in %.2f s", self.target,
                 len(lines), time.perf_counter() - started)
        return True
