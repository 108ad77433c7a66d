"""The archive's pages: from the games gathered out of the public record to files.

``build_site`` returns ``{relative path: bytes}``; nothing is written here (see
``speakerbot.site.writer``). The current game (the record's last) is at the root; each
earlier one under ``games/<id>/`` with the same layout; ``games.html`` lists them all and
``record.jsonl`` is the whole public record, one compact JSON line per event, as given.
Every link is relative, so the archive works under any address and from a folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.rereading import in_force
from speakerbot.mail.outbound.compose import format_time, points
from speakerbot.site.archive import HISTORY_PAGE, OWN_FILES, Entry, GameArchive
from speakerbot.site.chart import scores_chart
from speakerbot.site.feeds import game_feed, rule_feeds
from speakerbot.site.folding import read_games
from speakerbot.site.search import search_files

__all__ = ["HISTORY_PAGE", "build_site"]

_SAFE_FOLDER = re.compile(r"[^A-Za-z0-9_-]")

RECENT = timedelta(days=14)
"""A rule changed within this time before the build is marked as changed on the ruleset."""


def build_site(lines: Sequence[Mapping[str, Any]], templates: Path, *, name: str,
               address: str = "", now: datetime | None = None,
               url: str = "") -> dict[str, bytes]:
    """Render the archive of every game in the public record's ``lines``.

    ``templates`` is the folder of the site's templates and stylesheet; ``name`` and
    ``address`` are the game's name and address as configured (the address, where players
    write, is the one address the archive shows). ``now`` is the build's time, from which
    the rules changed lately are told; without it, the record's last event's. ``url`` is
    the site's public address (``[site] url``), for the feeds' links; "" for none. Returns
    every file, by its path relative to the site.
    """
    environment = _environment(str(templates))
    games = read_games(lines)
    _name_folders(games)
    if now is None:
        stamps = [entry.at for game in games for entry in game.timeline if entry.at]
        now = max(stamps) if stamps else datetime(1970, 1, 1, tzinfo=UTC)
    files: dict[str, bytes] = {
        OWN_FILES["record"]: record_bytes(lines),
        OWN_FILES["style"]: environment.get_template("style.css").render().encode("utf-8"),
    }
    common = {"site_name": name, "games": games, "game_address": address,
              "built_at": now, "recent_since": now - RECENT, "site_url": url.rstrip("/")}
    for game in games:
        past = game is not games[-1]
        pages = _GamePages(environment, game, past, common, nested=True)
        files.update((f"games/{game.folder}/{path}", content)
                     for path, content in pages.render_all())
        if not past:
            # The current game is also at the root, where players bookmark it; mail links
            # to its games/<id>/ copy, which stays where it is once the next game begins.
            files.update(_GamePages(environment, game, past, common).render_all())
    files.update(search_files(games))
    top = _Page(environment, common, games[-1] if games else None, False)
    files[OWN_FILES["games"]] = top.render("games.html", OWN_FILES["games"])
    if not games:
        files[OWN_FILES["home"]] = top.render("empty.html", OWN_FILES["home"])
    return files


def render_standalone(templates: Path, template: str, **context: Any) -> dict[str, bytes]:
    """Render one page outside any game's archive, with the stylesheet beside it."""
    environment = _environment(str(templates))
    page = environment.get_template(template).render(
        top="", root="", game=None, past=False, games=[], **context)
    return {"index.html": page.encode("utf-8"),
            OWN_FILES["style"]: environment.get_template("style.css").render().encode("utf-8")}


def mechanics_in_force(game: GameArchive) -> list[tuple[str, str, int | None, str]]:
    """Return each mechanic the game plays by, and where it comes from.

    Each as (what it is, its value, the rule it is from, and in words: the rule's words it
    is read from, or who set it).
    """
    if game.state.mechanics is None:
        return []
    rows = []
    for found in in_force(game.state):
        # Set by the host or a proposal: that, not the rule it would otherwise come from.
        rule = found.rule if found.origin.startswith("rule") else None
        said = f"“{found.words}”" if found.words else ("" if rule is not None else found.origin)
        rows.append((PARAMETERS[found.name].description, found.value, rule, said))
    return rows


def record_bytes(lines: Sequence[Mapping[str, Any]]) -> bytes:
    """Return the record as JSONL: each line compact, keys as given, ASCII only.

    Non-ASCII characters are escaped so that no reader can split a line at a Unicode line
    separator inside a proposal's text; the hash covers the parsed values, not the bytes.
    """
    return b"".join(json.dumps(line, separators=(",", ":")).encode("ascii") + b"\n"
                    for line in lines)


def _name_folders(games: list[GameArchive]) -> None:
    """Give each game its folder under ``games/``: its id, made safe for a path."""
    taken: set[str] = set()
    for game in games:
        folder = _SAFE_FOLDER.sub("", game.game_id)[:40] or f"game-{game.number}"
        while folder in taken:
            folder += f"-{game.number}"
        taken.add(folder)
        game.folder = folder


@lru_cache(maxsize=4)
def _environment(folder: str) -> Environment:
    """Return the Jinja2 environment of the site's templates, escaping all HTML."""
    environment = Environment(
        loader=FileSystemLoader(folder), undefined=StrictUndefined, autoescape=True,
        trim_blocks=True, lstrip_blocks=True, auto_reload=False, keep_trailing_newline=True,
    )
    environment.filters.update(when=format_time, points=points,
                               signed=lambda value: points(value, signed=True))
    return environment


@dataclass
class _Page:
    """Renders one page, with the relative links from where it stands."""

    environment: Environment
    common: Mapping[str, Any]
    game: GameArchive | None
    past: bool
    nested: bool = False  # under games/<id>/ (every past game; the current one's copy too)

    def render(self, template: str, path: str, **context: Any) -> bytes:
        """Render ``template`` as the page at ``path`` (relative to its game's root)."""
        root = "../" * path.count("/")
        top = root + ("../../" if self.past or self.nested else "")
        html = self.environment.get_template(template).render(
            **self.common, game=self.game, past=self.past, root=root, top=top, **context)
        return html.encode("utf-8")


class _GamePages(_Page):
    """Every page of one game."""

    def __init__(self, environment: Environment, game: GameArchive, past: bool,
                 common: Mapping[str, Any], *, nested: bool = False) -> None:
        super().__init__(environment, common, game, past, nested)
        self.archive = game

    def render_all(self) -> Iterator[tuple[str, bytes]]:
        """Yield (path, bytes) for every page of the game."""
        game = self.archive
        chart = scores_chart(game)
        if chart is not None:
            yield OWN_FILES["chart"], chart
        closed = sorted((p for p in game.proposals.values() if p.closed is not None),
                        key=lambda p: (p.ended_at, p.number), reverse=True)
        yield self._own("home", "home.html", latest=closed[:5], chart=chart is not None)
        yield self._own("rules", "rules.html", mechanics=mechanics_in_force(game))
        yield self._own("initial", "initial.html")
        for rule in game.all_rules():
            yield rule.page, self.render("rule.html", rule.page, rule=rule)
        yield self._own("proposals", "proposals.html")
        for proposal in game.proposals.values():
            path = f"proposals/{proposal.number}.html"
            yield path, self.render("proposal.html", path, proposal=proposal)
        yield self._own("cfjs", "cfjs.html")
        for cfj in game.cfjs.values():
            path = f"cfjs/{cfj.number}.html"
            yield path, self.render("cfj.html", path, cfj=cfj)
        yield self._own("players", "players.html")
        for player in game.players.values():
            yield player.page, self.render("player.html", player.page, player=player)
        yield from self._history()
        yield from self._feeds()
        yield self._own("search", "search.html")

    def _own(self, name: str, template: str, **context: Any) -> tuple[str, bytes]:
        """Render one of the site's own pages (``OWN_FILES``) from ``template``."""
        path = OWN_FILES[name]
        return path, self.render(template, path, **context)

    def _feeds(self) -> Iterator[tuple[str, bytes]]:
        """Yield the game's feed and each rule's (``speakerbot.site.feeds``)."""
        game, name = self.archive, str(self.common["site_name"])
        url, nested = str(self.common["site_url"]), self.nested or self.past
        yield OWN_FILES["feed"], game_feed(game, name=name, url=url, nested=nested)
        yield from rule_feeds(game, name=name, url=url, nested=nested)

    def _history(self) -> Iterator[tuple[str, bytes]]:
        """Yield the timeline's pages: ``history/index.html`` is the first (oldest)."""
        timeline = self.archive.timeline
        count = max(1, -(-len(timeline) // HISTORY_PAGE))
        paths = [OWN_FILES["history"], *(f"history/{k}.html" for k in range(2, count + 1))]
        for number, path in enumerate(paths, start=1):
            entries: list[Entry] = timeline[(number - 1) * HISTORY_PAGE:number * HISTORY_PAGE]
            yield path, self.render("history.html", path, entries=entries, number=number,
                                    pages=paths)
