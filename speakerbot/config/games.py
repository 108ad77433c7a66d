"""Many games in one file: the ``Games`` of a configuration, and how they are read.

A file holds one [game] section (one game, whose id is ``main``) or one [[games]] table
per game. Each game becomes one full ``Settings``: its own [game], [mechanics] and [imap]
(written [games.mechanics] and [games.imap]), and the shared sections, the very same
objects in every game's Settings. ``parse_games`` is pure apart from reading
``<key>_file`` secrets; ``speakerbot.config.loading`` reads the file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from msgspec import UnsetType

from speakerbot.adapters.imap.records import ImapSettings
from speakerbot.adapters.smtp import SmtpSettings
from speakerbot.addresses import canonical_address
from speakerbot.config import sections
from speakerbot.config.checks import Checker
from speakerbot.config.records import (
    DEFAULT_GAME_ID,
    GAME_ENV,
    ConfigError,
    GameSettings,
    MissingValue,
    Settings,
)
from speakerbot.config.schema import FileTables, GameTable, ImapTable, game_key, read_file_tables

__all__ = ["GameNotChosen", "Games", "UnknownGame", "parse_games"]

_Section = TypeVar("_Section")


class UnknownGame(ConfigError):
    """A game was asked for by an id the configuration does not hold."""


class GameNotChosen(ConfigError):
    """A per-game command was given no game, and the configuration holds several."""


@dataclass(frozen=True)
class Games:
    """Every game of one configuration file, in the order the file gives them."""

    path: Path
    games: tuple[Settings, ...]
    named: bool = False
    """Whether the file names its games (``[[games]]``): then, on PostgreSQL, several workers
    share them through leases; a file with one ``[game]`` runs exactly as before ids."""

    def ids(self) -> tuple[str, ...]:
        """Return the games' ids, in the file's order."""
        return tuple(settings.game_id for settings in self.games)

    def get(self, game_id: str) -> Settings:
        """Return the game ``game_id``; raise UnknownGame, naming the known ids, if none."""
        for settings in self.games:
            if settings.game_id == game_id:
                return settings
        raise UnknownGame(f"there is no game {game_id!r} in this configuration; the games "
                          f"are {', '.join(self.ids())}", path=self.path)

    def select(self, game_id: str | None) -> Settings:
        """Return the game ``game_id``; None: the only game, or raise GameNotChosen."""
        if game_id is not None:
            return self.get(game_id)
        if len(self.games) == 1:
            return self.games[0]
        raise GameNotChosen(f"this configuration holds {len(self.games)} games "
                            f"({', '.join(self.ids())}); give --game ID or {GAME_ENV} to "
                            "choose one", path=self.path)

    def by_address(self, address: str) -> Settings | None:
        """Return the game whose own address is ``address`` (compared canonically), or None.

        Only the game's address: its mailing list is where it writes, not where it reads.
        """
        wanted = canonical_address(address)
        if wanted is None:
            return None
        return next((settings for settings in self.games if settings.game.address == wanted),
                    None)

    @property
    def shared(self) -> Settings:
        """Return the first game's Settings, for the sections every game shares."""
        return self.games[0]


class _Game(NamedTuple):
    """One game's own part of the file, checked: what is not shared."""

    game_id: str
    check: Checker
    game: GameSettings
    mechanics: dict[str, str]
    imap: ImapTable | UnsetType


def parse_games(data: Mapping[str, Any], path: Path,
                environ: Mapping[str, str] | None = None) -> Games:
    """Check a parsed configuration table and build every game's Settings.

    Raise ConfigError, naming the file and the key, if anything is wrong. ``environ``
    (default: none) supplies the secrets the file does not hold.
    """
    environ = {} if environ is None else environ
    tables = read_file_tables(data, path)
    check = Checker(path, environ)
    own = _own_parts(tables, path, environ)
    _check_distinct(own)
    limits = sections.limits(check, tables.limits)
    database = sections.database(check, tables.database)
    # A mail section's missing password waits for run: init, status and the rest need none.
    imaps = [_mail(partial(_imap, part)) for part in own]
    lmtp = None if isinstance(tables.lmtp, UnsetType) else sections.lmtp(check, tables.lmtp)
    smtp, smtp_missing = _mail(partial(_smtp, check, tables, [p.game.address for p in own]))
    auth = sections.auth(check, tables.auth)
    site = sections.site(check, tables.site)
    workers = sections.workers(check, tables.workers)
    metrics = sections.metrics(check, tables.metrics)
    return Games(path, tuple(
        Settings(path, part.game, part.mechanics, limits, database, imap, lmtp, smtp, auth,
                 site, imap_missing + smtp_missing, game_id=part.game_id, workers=workers,
                 metrics=metrics)
        for part, (imap, imap_missing) in zip(own, imaps, strict=True)
    ), named=not isinstance(tables.games, UnsetType))


def _own_parts(tables: FileTables, path: Path, environ: Mapping[str, str]) -> list[_Game]:
    """Check each game's own [game] and [mechanics]: one [game], or each [[games]] table."""
    if isinstance(tables.games, UnsetType):
        assert isinstance(tables.game, GameTable)  # read_file_tables saw to it
        listed: list[tuple[str, int | None, GameTable, dict[str, Any], ImapTable | UnsetType]]
        listed = [(DEFAULT_GAME_ID, None, tables.game, tables.mechanics, tables.imap)]
    else:
        listed = [(table.id, index, table, table.mechanics, table.imap)
                  for index, table in enumerate(tables.games)]
    parts = []
    for game_id, index, table, mechanics, imap in listed:
        check = Checker(path, environ, index)
        parts.append(_Game(game_id, check, sections.game(check, table),
                           check.mechanics(mechanics), imap))
    return parts


class _Route(NamedTuple):
    """An address mail reaches a game by: its ``address`` or its ``list``, and whose it is."""

    game: str
    key: str
    address: str


# A game's return paths are <its local part up to "+">+bounce-<token>@<its domain>
# (speakerbot.mail.verp): its bounces come back through them to the game's own mailbox.
_RETURN_TAG = "bounce-"


def _routes(part: _Game) -> list[_Route]:
    """Return the addresses that reach the game: its own, and its list's if it has one."""
    routes = [_Route(part.game_id, "address", part.game.address)]
    if part.game.list is not None:
        routes.append(_Route(part.game_id, "list", part.game.list))
    return routes


def _mailbox(address: str) -> str:
    """Return the mailbox mail to a canonical address comes to: the local part up to its ``+``.

    Mail servers deliver ``local+tag@domain`` to ``local@domain``, and a game's return paths
    are ``local+bounce-...@domain``; the addresses were made canonical when checked
    (:mod:`speakerbot.addresses`), so case is no difference either.
    """
    local, _, domain = address.rpartition("@")
    return f"{local.partition('+')[0]}@{domain}"


def _tag(address: str) -> str:
    """Return the ``+tag`` of an address's local part, without its ``+`` ('' for none)."""
    return address.rpartition("@")[0].partition("+")[2]


def _check_distinct(parts: list[_Game]) -> None:
    """Refuse two games with one id, or an address or list of one that reaches another's.

    Each game's address and list are compared with every other game's as mail reaches
    them (:func:`_mailbox`): two games with one mailbox would read each other's mail and
    bounces. A game's address in the form of a return path is refused on its own.
    """
    for later, part in enumerate(parts):
        for first, earlier in enumerate(parts[:later]):
            if part.game_id == earlier.game_id:
                raise part.check.fail("game", "id", f"the id {part.game_id!r} is given twice "
                                      f"({game_key(first)} and {game_key(later)}); each "
                                      "game's id must be its own")
            for mine in _routes(part):
                for theirs in _routes(earlier):
                    if _mailbox(mine.address) == _mailbox(theirs.address):
                        both = (f"{game_key(first)}.{theirs.key} and "
                                f"{game_key(later)}.{mine.key}")
                        raise part.check.fail("game", mine.key, _clash(mine, theirs, both))
    # After the pairs: where another game is at fault, the fault names both games' keys.
    for part in parts:
        if _tag(part.game.address).startswith(_RETURN_TAG):
            raise part.check.fail("game", "address", f"{part.game.address} has the form of "
                                  "a return path (local+bounce-...@domain), through which "
                                  "bounces come back; give the game an address without "
                                  f"+{_RETURN_TAG}")


def _clash(mine: _Route, theirs: _Route, both: str) -> str:
    """Say how ``mine`` comes to the mailbox of ``theirs``, another game's, naming ``both`` keys."""
    if mine.address == theirs.address:
        return f"{_same(mine, theirs)} ({both})"
    box = _mailbox(mine.address)
    local, _, domain = box.rpartition("@")
    said = (f"{mine.address} and {theirs.address}, the {theirs.key} of the game "
            f"{theirs.game!r}, come to one mailbox ({both}): ")
    bounce = next((route for route in (mine, theirs)
                   if _tag(route.address).startswith(_RETURN_TAG)), None)
    if bounce is not None:
        return (f"{said}{bounce.address} has the form of the return paths of a game at {box} "
                f"({local}+bounce-...@{domain}), through which its bounces come back; each "
                "game needs a mailbox of its own")
    return (f"{said}mail servers deliver {local}+anything@{domain} to {box}, and the return "
            f"paths of a game there are {local}+bounce-...@{domain}; each game needs an "
            "address and a list that differ from every other game's before the +")


def _same(mine: _Route, theirs: _Route) -> str:
    """Say that ``mine`` is the very address or list of another game, ``theirs``."""
    if mine.key == theirs.key == "address":
        return (f"{mine.address} is the address of the games {theirs.game!r} and "
                f"{mine.game!r}; each game needs its own")
    if mine.key == "address":
        return (f"{mine.address} is the list of the game {theirs.game!r}; the game "
                f"{mine.game!r} needs an address of its own")
    if theirs.key == "address":
        return (f"{mine.address} is the address of the game {theirs.game!r}, not a list of "
                f"the game {mine.game!r}")
    return (f"{mine.address} is the list of the games {theirs.game!r} and {mine.game!r}; "
            "each game needs a list of its own")


def _imap(part: _Game) -> ImapSettings | None:
    """Build a game's own [imap] ([games.imap]), if it has one."""
    if isinstance(part.imap, UnsetType):
        return None
    return sections.imap(part.check, part.imap, part.game.address)


def _smtp(check: Checker, tables: FileTables, addresses: list[str]) -> SmtpSettings | None:
    """Build the shared [smtp]; its login defaults to the game's address only with one game."""
    if isinstance(tables.smtp, UnsetType):
        return None
    smtp = sections.smtp(check, tables.smtp, addresses[0])
    if len(addresses) > 1 and smtp.username and isinstance(tables.smtp.username, UnsetType):
        raise check.fail("smtp", "username", "required with a password when the file holds "
                         "several games: the shared server's login is no one game's address")
    return smtp


def _mail(build: Callable[[], _Section | None],
          ) -> tuple[_Section | None, tuple[MissingValue, ...]]:
    """Build a mail section, keeping its missing value for ``run`` to raise."""
    try:
        return build(), ()
    except MissingValue as error:
        return None, (error,)
