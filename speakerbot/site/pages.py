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
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.rereading import in_force
from speakerbot.mail.outbound.compose import format_time, points
from speakerbot.site.archive import (
    CHANGES_PAGE,
    HISTORY_PAGE,
    LATEST,
    LIST_PAGE,
    OWN_FILES,
    Entry,
    GameArchive,
    PlayerRecord,
    ProposalRecord,
    page_count,
)
from speakerbot.site.chart import charted, scores_chart
from speakerbot.site.feeds import game_feed, rule_feed
from speakerbot.site.folding import read_games
from speakerbot.site.ruleset import KeptRuleset
from speakerbot.site.search import KeptIndex, game_index, touched_documents
from speakerbot.site.texts import mailto
from speakerbot.site.touching import Touched

__all__ = ["HISTORY_PAGE", "Keeping", "SiteRenderer", "build_site", "last_moment", "record_bytes"]

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
    the rules changed lately are told; without it (as every build of speakerbot's own),
    the record's last event's, so that the pages depend on the record alone. ``url`` is
    the site's public address (``[site] url``), for the feeds' links; "" for none. Returns
    every file, by its path relative to the site.
    """
    games = read_games(lines)
    site = SiteRenderer(templates, games, name=name, address=address, url=url,
                        now=last_moment(games) if now is None else now)
    return site.everything(lines)


def last_moment(games: Sequence[GameArchive]) -> datetime:
    """Return the time of the record's latest event (the epoch for a record without one)."""
    stamps = [entry.at for game in games for entry in game.timeline if entry.at]
    return max(stamps) if stamps else datetime(1970, 1, 1, tzinfo=UTC)


@dataclass
class Keeping:
    """What a site kept page by page holds between updates, so as not to make it again.

    By game's number: the search index, kept as its documents change; each rule's part
    of the ruleset (``KeptRuleset``), kept as long as it reads the same.
    """

    indexes: dict[int, KeptIndex] = field(default_factory=dict)
    rules: dict[int, KeptRuleset] = field(default_factory=dict)


class SiteRenderer:
    """Renders the pages of the games folded from a record, all of them or some."""

    def __init__(self, templates: Path, games: list[GameArchive], *, name: str,
                 address: str, url: str, now: datetime, kept: Keeping | None = None) -> None:
        self.environment = _environment(str(templates))
        self.games = games
        self.kept = kept if kept is not None else Keeping()
        self.whole = kept is None  # each page made afresh, as build_site does
        _name_folders(games)
        self.recent_since = now - RECENT
        self.common = {"site_name": name, "games": games, "game_address": address,
                       "built_at": now, "recent_since": self.recent_since,
                       "site_url": url.rstrip("/")}

    def everything(self, lines: Sequence[Mapping[str, Any]]) -> dict[str, bytes]:
        """Return every file of the site, the record's ``lines`` as ``record.jsonl``."""
        files: dict[str, bytes] = {OWN_FILES["record"]: record_bytes(lines)}
        for game in self.games:
            found = self.pages(game, Touched.all_of(game))
            files.update((path, content) for path, content in found.items()
                         if content is not None)
        files.update(self.top())
        return files

    def pages(self, game: GameArchive, touch: Touched) -> dict[str, bytes | None]:
        """Render the ``touch``ed pages of ``game``, in each copy of it; None: no such file.

        Every game is under ``games/<folder>/``; the current one is at the root as well.
        """
        past = game is not self.games[-1]
        # The chart is the same file in both copies, and the costliest to draw: drawn once;
        # so is what the ruleset shows (the same from both copies' rules/).
        chart = scores_chart(game) if "chart" in touch.own else None
        ruleset = self._ruleset(game, touch) if "rules" in touch.own else {}
        found: dict[str, bytes | None] = {
            f"games/{game.folder}/{path}": content for path, content in _GamePages(
                self.environment, game, past, self.common, nested=True).render(
                    touch, chart, ruleset)}
        if not past:
            # The current game is also at the root, where players bookmark it; mail links
            # to its games/<id>/ copy, which stays where it is once the next game begins.
            found.update(_GamePages(self.environment, game, past, self.common).render(
                touch, chart, ruleset))
        if "search" in touch.own:  # the index beside each copy of the game
            index = self._index(game, touch)
            found.update((f"games/{game.folder}/{path}", content)
                         for path, content in index.items())
            if not past:
                found.update(index)
        return found

    def _index(self, game: GameArchive, touch: Touched) -> dict[str, bytes | None]:
        """Return the files of the game's search index that ``touch`` may change."""
        if self.whole:
            return dict(game_index(game))
        held = self.kept.indexes.get(game.number)
        if held is None or touch.everything:
            held, files = KeptIndex.of(game)
            self.kept.indexes[game.number] = held
            return files
        return held.refresh(touched_documents(game, touch.rules.values(), touch.proposals,
                                              touch.cfjs))

    def _ruleset(self, game: GameArchive, touch: Touched) -> dict[str, Any]:
        """Return what the ruleset shows: the mechanics, the rules to jump to, the rules.

        The ruleset is made again after every event (it marks the rules changed lately)
        and holds every rule: each rule's part is kept (``KeptRuleset``), so that its cost
        hardly grows with it.
        """
        held = self.kept.rules.get(game.number)
        if held is None or touch.everything:
            held = self.kept.rules[game.number] = KeptRuleset(
                self.environment.get_template("_ruleset.html").module)
        jump, sections = held.show(game, touch.rules.values(), self.recent_since)
        return {"mechanics": mechanics_in_force(game), "jump": jump, "sections": sections}

    def top(self) -> dict[str, bytes]:
        """Render the site's own files beside the games': the games, the style (a home page)."""
        games = self.games
        top = _Page(self.environment, self.common, games[-1] if games else None, False)
        files = {OWN_FILES["games"]: top.page("games.html", OWN_FILES["games"]),
                 OWN_FILES["style"]: self.environment.get_template("style.css").render().encode(
                     "utf-8")}
        if not games:
            files[OWN_FILES["home"]] = top.page("empty.html", OWN_FILES["home"])
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


def _list_path(folder: str, number: int) -> str:
    """Return page ``number`` of a long list: ``proposals/list/3.html``, ``players/a/3.html``.

    Under a folder of its own, whose names (numbers) no page of the game's takes.
    """
    return f"{folder}/list/{number}.html" if folder == "proposals" else f"{folder}/{number}.html"


def _neighbours(folder: str, number: int, count: int) -> dict[str, str]:
    """Return the pages a list's page ``number`` of ``count`` links to (``pager``)."""
    return {"first": _list_path(folder, 1),
            "previous": _list_path(folder, number - 1) if number > 1 else "",
            "following": _list_path(folder, number + 1) if number < count else ""}


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
    environment.filters.update(when=format_time, points=points, mailto=mailto,
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

    def page(self, template: str, path: str, **context: Any) -> bytes:
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

    def render(self, touch: Touched, chart: bytes | None,
               ruleset: Mapping[str, Any]) -> Iterator[tuple[str, bytes | None]]:
        """Yield (path, bytes) for each page of ``touch``; None for a chart with no players.

        ``chart`` is the game's chart (``scores_chart``), drawn when ``touch`` names it;
        ``ruleset`` what the ruleset shows (``SiteRenderer._ruleset``), when it names it.
        """
        game = self.archive
        if "chart" in touch.own:
            yield OWN_FILES["chart"], chart
        if "home" in touch.own:
            yield self._own("home", "home.html", latest=game.latest_closed(5),
                            open=game.open_proposals(), chart=bool(charted(game)),
                            open_cfjs=[cfj for cfj in game.cfjs.values() if not cfj.judgement],
                            latest_history=self._history_path(self._history_count()))
        if "rules" in touch.own:
            yield self._own("rules", "rules.html", **ruleset)
        if "initial" in touch.own:
            yield self._own("initial", "initial.html")
        for rule in touch.rules.values():
            yield rule.page, self.page("rule.html", rule.page, rule=rule)
        yield from self._records(touch)
        for number in sorted(touch.history):
            yield self._history(number)
        yield from self._feeds(touch)
        if "search" in touch.own:
            yield self._own("search", "search.html")

    def _records(self, touch: Touched) -> Iterator[tuple[str, bytes]]:
        """Yield the pages of the proposals, CFJs and players of ``touch``, and their lists."""
        game = self.archive
        if "proposals" in touch.own:
            yield self._proposals()
        for name in ("cfjs", "players"):
            if name in touch.own:
                yield self._own(name, f"{name}.html")
        for number in sorted(touch.proposals & set(game.proposals)):
            path = f"proposals/{number}.html"
            yield path, self.page("proposal.html", path, proposal=game.proposals[number])
        for number in sorted(touch.proposal_pages):
            yield self._proposal_page(number)
        for number in sorted(touch.cfjs & set(game.cfjs)):
            path = f"cfjs/{number}.html"
            yield path, self.page("cfj.html", path, cfj=game.cfjs[number])
        for address in touch.players:
            player = game.players.get(address)
            if player is not None:
                yield self._player(player)
        for address, number in sorted(touch.change_pages):
            player = game.players.get(address)
            if player is not None:
                yield self._changes_page(player, number)

    def _proposals(self) -> tuple[str, bytes]:
        """Render the list of proposals: the open ones, the newest others, the pages."""
        game = self.archive
        done: list[ProposalRecord] = []
        for proposal in reversed(game.proposals.values()):
            if len(done) == LATEST:
                break
            if proposal.status != "open":
                done.append(proposal)
        numbers = game.sequence
        pages = [(_list_path("proposals", page), numbers[(page - 1) * LIST_PAGE],
                  numbers[min(page * LIST_PAGE, len(numbers)) - 1])
                 for page in range(1, page_count(len(numbers)) + 1)]
        return self._own("proposals", "proposals.html", open=game.open_proposals(),
                         done=done, inactive=len(numbers) - len(game.open), pages=pages)

    def _proposal_page(self, number: int) -> tuple[str, bytes]:
        """Render page ``number`` of every proposal (``proposals/list/<number>.html``)."""
        count = page_count(len(self.archive.proposals))
        path = _list_path("proposals", number)
        return path, self.page("proposal_list.html", path, number=number,
                               proposals=self.archive.proposal_page(number),
                               **_neighbours("proposals", number, count))

    def _player(self, player: PlayerRecord) -> tuple[str, bytes]:
        """Render a player's page: their record, their newest changes and proposals.

        The changes since the last full page of them (``players/<slug>/<n>``), at least
        the latest ``LATEST``: a close writes this page, and a page of changes only once
        it fills, rather than both each time.
        """
        game, folder = self.archive, player.page.removesuffix(".html")
        proposed = game.proposed.get(player.address, [])
        full = len(player.changes) // CHANGES_PAGE
        start = max(0, min(full * CHANGES_PAGE, len(player.changes) - LATEST))
        # The first and the latest full page: each links to the one before and after it.
        pages = [(number, _list_path(folder, number)) for number in sorted({1, full})] if (
            full) else []
        return player.page, self.page(
            "player.html", player.page, player=player, changes=player.changes[start:],
            pages=pages, own=[game.proposals[number] for number in proposed[-LATEST:]],
            proposed=len(proposed))

    def _changes_page(self, player: PlayerRecord, number: int) -> tuple[str, bytes]:
        """Render full page ``number`` of a player's changes of score (``players/<slug>/<n>``).

        The last full page leads on to the player's page, which shows the newer changes.
        """
        folder = player.page.removesuffix(".html")
        path = _list_path(folder, number)
        changes = player.changes[(number - 1) * CHANGES_PAGE:number * CHANGES_PAGE]
        full = len(player.changes) // CHANGES_PAGE
        neighbours = _neighbours(folder, number, full)
        if number == full:
            neighbours["following"] = player.page
        return path, self.page("player_changes.html", path, player=player, number=number,
                               changes=changes, newest=number == full, **neighbours)

    def _own(self, name: str, template: str, **context: Any) -> tuple[str, bytes]:
        """Render one of the site's own pages (``OWN_FILES``) from ``template``."""
        path = OWN_FILES[name]
        return path, self.page(template, path, **context)

    def _feeds(self, touch: Touched) -> Iterator[tuple[str, bytes]]:
        """Yield the game's feed and the touched rules' (``speakerbot.site.feeds``)."""
        game, name = self.archive, str(self.common["site_name"])
        url, nested = str(self.common["site_url"]), self.nested or self.past
        if "feed" in touch.own:
            yield OWN_FILES["feed"], game_feed(game, name=name, url=url, nested=nested)
        for rule in touch.rules.values():
            yield rule.feed, rule_feed(game, rule, name=name, url=url, nested=nested)

    def _history_count(self) -> int:
        return max(1, -(-len(self.archive.timeline) // HISTORY_PAGE))

    @staticmethod
    def _history_path(number: int) -> str:
        return OWN_FILES["history"] if number == 1 else f"history/{number}.html"

    def _history(self, number: int) -> tuple[str, bytes]:
        """Render the timeline's page ``number``: ``history/index.html`` is the first (oldest).

        A page links to the first, the one before and the one after, never to the last: a
        page that is full and followed by another never changes again.
        """
        timeline = self.archive.timeline
        entries: list[Entry] = timeline[(number - 1) * HISTORY_PAGE:number * HISTORY_PAGE]
        path = self._history_path(number)
        following = self._history_path(number + 1) if number < self._history_count() else ""
        return path, self.page("history.html", path, entries=entries, number=number,
                               first=self._history_path(1),
                               previous=self._history_path(number - 1) if number > 1 else "",
                               following=following)
