"""The archive kept up to date line by line: only the pages new events change.

``KeptSite.build(lines)`` renders the whole site, as ``build_site`` does, and keeps what
it folded; ``KeptSite.update(new lines)`` folds the lines that followed onto the same
games (``folding.RecordFold``), asks ``touching`` which pages they may change, renders
those and returns the files whose bytes differ from what the site holds (a digest of each
is kept), the files that are gone and the lines to append to ``record.jsonl``. The site
kept this way equals, byte for byte, a full build of the same record. Pure: no files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from speakerbot.site.archive import OWN_FILES
from speakerbot.site.folding import RecordFold
from speakerbot.site.pages import Keeping, SiteRenderer, last_moment, record_bytes
from speakerbot.site.touching import Mentions, Touched, snapshot, touched

__all__ = ["KeptSite", "SiteUpdate"]


@dataclass
class SiteUpdate:
    """What the site's folder needs after new lines: files to write, files to remove.

    ``record`` is the new lines of ``record.jsonl``, to append to it.
    """

    files: dict[str, bytes] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    record: bytes = b""


class KeptSite:
    """The archive of a public record that goes on growing, kept page by page."""

    def __init__(self, templates: Path, *, name: str, address: str = "", url: str = "") -> None:
        self.templates = templates
        self.settings = {"name": name, "address": address, "url": url}
        self.record = RecordFold()
        self.kept = Keeping()
        self.mentions: dict[int, Mentions] = {}  # by game's number
        self.digests: dict[str, bytes] = {}
        self.now: datetime | None = None  # the record's latest moment, as the pages tell it

    def build(self, lines: Sequence[Mapping[str, Any]]) -> dict[str, bytes]:
        """Fold the whole record afresh and return every file of its site."""
        self.record = RecordFold()
        self.kept = Keeping()
        self.mentions = {}
        self.record.fold(lines)
        games = self.record.games
        self.now = last_moment(games)
        files = self._renderer().everything(lines)
        self.digests = {path: _digest(content) for path, content in files.items()
                        if path != OWN_FILES["record"]}
        return files

    def update(self, lines: Sequence[Mapping[str, Any]]) -> SiteUpdate:
        """Fold the lines that followed the last ones; return what of the site changed."""
        if not lines:
            return SiteUpdate()
        games = self.record.games
        current = games[-1] if games else None
        before = snapshot(current) if current is not None else None
        folded = self.record.fold(lines)
        games = self.record.games
        moments = [item.entry.at for item in folded if item.entry.at is not None]
        now = max([*moments, *([self.now] if self.now is not None else [])], default=None)
        moved, self.now = now != self.now, now
        site = self._renderer()
        if current is None or before is None or games[-1] is not current:
            # A game began: every page of the last one now knows it is past, and every
            # page says how many games there are.
            return self._whole(site, record_bytes(lines))
        touch = touched(current, before, [item for item in folded if item.game is current],
                        self.mentions.setdefault(current.number, Mentions()))
        if touch.everything:  # a rule's page moved, or a name every page may show
            return self._whole(site, record_bytes(lines))
        found = site.pages(current, touch)
        if moved:  # every game's ruleset marks the rules changed lately, as of now
            for game in games[:-1]:
                found.update(site.pages(game, Touched({"rules"})))
        found.update(site.top())
        return self._changes(found, record_bytes(lines))

    def _whole(self, site: SiteRenderer, record: bytes) -> SiteUpdate:
        """Render every page again; what the site holds and the new build lacks goes."""
        found: dict[str, bytes | None] = {}
        for game in site.games:
            found.update(site.pages(game, Touched.all_of(game)))
        found.update(site.top())
        found.update((path, None) for path in set(self.digests) - set(found))
        return self._changes(found, record)

    def _changes(self, found: Mapping[str, bytes | None], record: bytes) -> SiteUpdate:
        """Return the files of ``found`` that differ from the site's, and keep their digests."""
        update = SiteUpdate(record=record)
        for path, content in found.items():
            if content is None:
                if self.digests.pop(path, None) is not None:
                    update.removed.add(path)
                continue
            digest = _digest(content)
            if self.digests.get(path) != digest:
                self.digests[path] = digest
                update.files[path] = content
        return update

    def _renderer(self) -> SiteRenderer:
        games = self.record.games
        now = self.now if self.now is not None else last_moment(games)
        return SiteRenderer(self.templates, games, now=now, kept=self.kept, **self.settings)


def _digest(content: bytes) -> bytes:
    return hashlib.blake2b(content, digest_size=16).digest()
