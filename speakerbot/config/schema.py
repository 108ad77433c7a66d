"""The configuration file's shape, declared once as msgspec structs.

Each section is a struct with ``forbid_unknown_fields``: its fields are the keys the
section accepts (``KEYS`` is read from them), their types are checked by
``msgspec.convert`` and the whole-number ranges by ``Meta(ge=, le=)``. A key whose
check needs more than a type (a duration, a size, an address, a secret that may come
from a file or the environment) is typed as what TOML gives and checked by hand in
``speakerbot.config.checks``; its ``Meta(extra=...)`` says what the key expects, so the
message for a wrong type is written once, here.

msgspec's own messages (``Expected `int`, got `str` - at `$.imap.port```) are
translated by :func:`read_file_tables` into the wording users have always seen
(``[imap] port: expected a whole number from 1 to 65535, not 'abc'``), naming the key.
[mechanics] stays a free table: its keys are the engine's mechanics, checked by hand.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, cast

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType
from msgspec import inspect as schema_info

from speakerbot.adapters.transport import SECURITY_MODES
from speakerbot.config.records import ConfigError, LimitsSettings
from speakerbot.engine.mechanics import PARAMETERS

__all__ = [
    "AUTHSERV_WANTED",
    "DURATION_WANTED",
    "GAMES_KEYS",
    "KEYS",
    "SIZE_WANTED",
    "AuthTable",
    "DatabaseTable",
    "FileTables",
    "GameTable",
    "GamesTable",
    "ImapTable",
    "LimitsTable",
    "LmtpTable",
    "MetricsTable",
    "SiteTable",
    "SmtpTable",
    "WorkersTable",
    "expected_one_of",
    "game_key",
    "read_file_tables",
    "shown",
    "suggest",
]

DURATION_WANTED = 'a duration in quotes such as "60s", "5m" or "1h"'
SIZE_WANTED = ('a size from 1KiB to 1GiB: a number of bytes, or a string such as "256KiB" '
               'or "1MiB"')
GAME_ID_WANTED = ("an id of 1 to 32 lower-case letters, digits and hyphens in quotes, such "
                  'as "main" or "newcomers-2"')
AUTHSERV_WANTED = ('a list of host names in quotes, such as ["mx.example.org"]: the '
                   "authserv-id your mailbox's own receiving server writes in "
                   "Authentication-Results")

# The kinds of value a key may hold; the Meta says what a wrong one is told.
Secret = Annotated[str, Meta(extra={"secret": True})]
Duration = Annotated[str, Meta(extra={"expected": DURATION_WANTED})]
Size = Annotated[int | str, Meta(extra={"expected": SIZE_WANTED})]
HostNames = Annotated[str | list[str], Meta(extra={"expected": AUTHSERV_WANTED})]
Security = Annotated[str, Meta(extra={"choices": SECURITY_MODES})]
Require = Annotated[str, Meta(extra={"choices": ("dmarc", "none")})]
Unauthenticated = Annotated[str, Meta(extra={"choices": ("confirm", "refuse")})]
Port = Annotated[int, Meta(ge=1, le=65535)]
Count = Annotated[int, Meta(ge=1, le=100_000)]
CountOrNone = Annotated[int, Meta(ge=0, le=100_000)]
PerMessage = Annotated[int, Meta(ge=1, le=1000)]
SnapshotEvery = Annotated[int, Meta(ge=0, le=1_000_000)]
# msgspec searches for the pattern: \Z, not $, ends it, for $ also matches before a last "\n".
GameId = Annotated[str, Meta(pattern=r"^[a-z0-9-]{1,32}\Z", extra={"expected": GAME_ID_WANTED})]

_LIMITS = LimitsSettings()


class GameTable(Struct, forbid_unknown_fields=True, frozen=True):
    """[game]: who the game is and who runs it."""

    name: str
    ruleset: str
    address: str
    speaker: str
    speaker_name: str
    admin_password: Secret | UnsetType = UNSET
    admin_password_file: str | UnsetType = UNSET
    list: str | UnsetType = UNSET
    open_registration: bool = True
    digest: str | UnsetType = UNSET
    digest_time: str = "18:00"
    timezone: str = "UTC"
    judge: str | UnsetType = UNSET
    judge_name: str | UnsetType = UNSET
    handwork_reminder: str = "1d"
    dkim_selector: str | UnsetType = UNSET


class LimitsTable(Struct, forbid_unknown_fields=True, frozen=True):
    """[limits]: what one message and one sender may cost the bot."""

    max_message_size: Size = _LIMITS.max_message_size
    replies_per_day: Count = _LIMITS.replies_per_day
    max_command_lines: Count = _LIMITS.max_command_lines
    proposals_per_message: PerMessage = _LIMITS.proposals_per_message
    proposals_per_day: Count = _LIMITS.proposals_per_day
    cfj_per_day: Count = _LIMITS.cfj_per_day
    revise_per_proposal: Count = _LIMITS.revise_per_proposal
    join_per_domain_per_day: Count = _LIMITS.join_per_domain_per_day
    public_per_hour: Count = _LIMITS.public_per_hour
    max_absence: Duration = "14d"
    max_rule_bytes: Size = _LIMITS.max_rule_bytes
    max_observers: CountOrNone = _LIMITS.max_observers
    bounce_score: Count = _LIMITS.bounce_score


class AuthTable(Struct, forbid_unknown_fields=True, frozen=True):
    """[auth]: whose mail is believed."""

    require: Require = "dmarc"
    authserv_id: HostNames = []
    unauthenticated: Unauthenticated = "confirm"
    confirm_within: Duration = "3d"
    confirm_gap: Duration = "10m"


class DatabaseTable(Struct, forbid_unknown_fields=True, frozen=True):
    """[database]: where the game is kept."""

    url: Secret | UnsetType = UNSET
    url_file: str | UnsetType = UNSET
    snapshot_every: SnapshotEvery = 2000


class _ServerTable(Struct, forbid_unknown_fields=True, frozen=True):
    """The keys of a connection to a mail server: where it is, how it is secured, who logs in.

    The port's default follows ``security``; each server's section sets its own default
    ``security`` (a redeclared key keeps its place among the keys).
    """

    host: str
    port: Port | UnsetType = UNSET
    security: Security = "ssl"
    username: str | UnsetType = UNSET
    password: Secret | UnsetType = UNSET
    password_file: str | UnsetType = UNSET


class ImapTable(_ServerTable, forbid_unknown_fields=True, frozen=True):
    """[imap]: the mailbox the bot reads."""

    security: Security = "ssl"
    folder: str = "INBOX"
    processed_folder: str = "speakerbot/processed"
    idle: bool = True
    poll_interval: Duration = "60s"
    allow_plaintext: bool = False


class GamesTable(GameTable, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """One [[games]] table: the keys of [game], the game's id, its mechanics and mailbox."""

    id: GameId
    mechanics: dict[str, Any] = {}
    imap: ImapTable | UnsetType = UNSET


class LmtpTable(Struct, forbid_unknown_fields=True, frozen=True):
    """[lmtp]: where the bot listens for mail from a local MTA."""

    host: str = "127.0.0.1"
    port: Port = 8024


class SmtpTable(_ServerTable, forbid_unknown_fields=True, frozen=True):
    """[smtp]: the server the bot sends through."""

    security: Security = "starttls"
    give_up_after: Duration = "5d"
    allow_plaintext: bool = False
    max_recipients: PerMessage = 50


class SiteTable(Struct, forbid_unknown_fields=True, frozen=True):
    """[site]: where the game's web archive is written, and where the public reads it."""

    dir: str | UnsetType = UNSET
    url: str | UnsetType = UNSET


class MetricsTable(Struct, forbid_unknown_fields=True, frozen=True):
    """[metrics]: where ``speakerbot run`` serves /metrics and /healthz ("" for nowhere)."""

    listen: str = ""


class WorkersTable(Struct, forbid_unknown_fields=True, frozen=True):
    """[workers]: how the ``speakerbot run`` processes share the games."""

    lease: Duration = "10s"


class FileTables(Struct, forbid_unknown_fields=True, frozen=True):
    """The whole file: its sections, each typed; an absent optional section is UNSET.

    ``read_file_tables`` makes sure exactly one of ``game`` and ``games`` is given.
    """

    game: GameTable | UnsetType = UNSET
    games: list[GamesTable] | UnsetType = UNSET
    mechanics: dict[str, Any] = {}
    limits: LimitsTable = LimitsTable()
    auth: AuthTable = AuthTable()
    database: DatabaseTable = DatabaseTable()
    imap: ImapTable | UnsetType = UNSET
    lmtp: LmtpTable | UnsetType = UNSET
    smtp: SmtpTable | UnsetType = UNSET
    site: SiteTable = SiteTable()
    workers: WorkersTable = WorkersTable()
    metrics: MetricsTable = MetricsTable()


_SECTION_ORDER = ("game", "mechanics", "limits", "auth", "database", "imap", "lmtp", "smtp",
                  "site", "workers", "metrics")
_TABLES: dict[str, type[Struct]] = {
    "game": GameTable, "limits": LimitsTable, "auth": AuthTable, "database": DatabaseTable,
    "imap": ImapTable, "lmtp": LmtpTable, "smtp": SmtpTable, "site": SiteTable,
    "workers": WorkersTable, "metrics": MetricsTable,
}

KEYS: dict[str, tuple[str, ...]] = {
    name: tuple(PARAMETERS) if name == "mechanics" else _TABLES[name].__struct_fields__
    for name in _SECTION_ORDER
}
"""Every section and the keys it accepts ([mechanics]: every mechanic the engine knows)."""

GAMES_KEYS: tuple[str, ...] = ("id", *GameTable.__struct_fields__, "mechanics", "imap")
"""The keys of one [[games]] table: [game]'s, the id, and the game's own sections."""

# Beside [[games]] these are each game's own, written inside its table.
_PER_GAME = ("game", "mechanics", "imap")

_MISSING_GAME = ("required: the game's name, ruleset, address, speaker, speaker_name and "
                 "admin password (or, for several games, one [[games]] table each)")
_ERROR = re.compile(r"(?P<what>.*?)(?: - at `\$(?P<where>[^`]*)`)?")
_NAMED = re.compile(r"Object (?P<kind>missing required|contains unknown) field `(?P<key>[^`]*)`")


def shown(value: object) -> str:
    """Return a value as the user wrote it in TOML, cut to 60 characters, for messages."""
    text = ("true" if value else "false") if isinstance(value, bool) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def suggest(word: str, choices: tuple[str, ...] | list[str]) -> str:
    """Return ``"did you mean X? "`` for the choice closest to ``word``, or ``""``."""
    close = difflib.get_close_matches(word, choices, n=1)
    return f"did you mean {close[0]}? " if close else ""


def expected_one_of(choices: tuple[str, ...], value: object) -> str:
    """Return the message for a value that is none of ``choices``."""
    return f"expected one of {', '.join(choices)}, not {shown(value)}"


def game_key(index: int) -> str:
    """Return the key path of the [[games]] table at ``index`` (from 0): ``games[1]`` first.

    Counted from 1, as the tables are counted down the file by the person who wrote it.
    """
    return f"games[{index + 1}]"


def read_file_tables(data: Mapping[str, Any], path: Path) -> FileTables:
    """Check the file's sections, keys and value types; raise ConfigError naming the key.

    Every section and key is looked at before any value, as users have always been
    told: a misspelt key is the likelier cause of a value that seems wrong. msgspec
    alone would report whichever error comes first in the file.
    """
    for name, table in data.items():
        if name == "games":
            continue
        if name not in KEYS:
            raise _top_level("contains unknown", name, data, path)
        if not isinstance(table, dict):
            raise _not_a_table(name, path)
        if name != "mechanics":
            unknown = next((key for key in table if key not in KEYS[name]), None)
            if unknown is not None:
                raise _unknown_key(name, unknown, path)
    if "games" in data:
        _check_games_keys(data, path)
    elif "game" not in data:
        raise _top_level("missing required", "game", data, path)
    try:
        return msgspec.convert(data, FileTables)
    except msgspec.ValidationError as error:
        raise _translate(str(error), data, path) from None


def _check_games_keys(data: Mapping[str, Any], path: Path) -> None:
    """Check the [[games]] tables' shape and keys, and that nothing per game stands beside."""
    games = data["games"]
    if not isinstance(games, list) or not all(isinstance(game, dict) for game in games):
        raise ConfigError("expected one [[games]] table per game ([[games]] on a line of its "
                          "own, then that game's keys)", key="[[games]]", path=path)
    if not games:
        raise ConfigError("expected at least one game: one [[games]] table per game, or one "
                          "[game] section", key="[[games]]", path=path)
    if "game" in data:
        raise ConfigError("give one [game] section (one game) or one [[games]] table per "
                          "game, not both", key="[game] and [[games]]", path=path)
    for name in _PER_GAME[1:]:
        if name in data:
            raise ConfigError(f"beside [[games]] each game has its own [{name}]: write it as "
                              f"[games.{name}] after that game's [[games]] table",
                              key=f"[{name}]", path=path)
    for index, game in enumerate(games):
        where = game_key(index)
        for key, value in game.items():
            if key not in GAMES_KEYS and key in PARAMETERS:
                raise ConfigError(_mechanic_elsewhere(key, "[games.mechanics]"),
                                  key=f"{where}.{key}", path=path)
            if key not in GAMES_KEYS:
                raise ConfigError(f"unknown key; {suggest(key, GAMES_KEYS)}the keys of a "
                                  f"[[games]] table are {', '.join(GAMES_KEYS)}",
                                  key=f"{where}.{key}", path=path)
            if key in _PER_GAME and not isinstance(value, dict):
                raise ConfigError(f"expected a table ([games.{key}] on a line of its own "
                                  "after the game's [[games]], then its keys)",
                                  key=f"{where}.{key}", path=path)
        unknown = next((key for key in game.get("imap", {}) if key not in KEYS["imap"]), None)
        if unknown is not None:
            error = _unknown_key("imap", unknown, path)
            raise ConfigError(error.detail, key=f"{where}.imap.{unknown}", path=path)


def _translate(message: str, data: Mapping[str, Any], path: Path) -> ConfigError:
    """Turn one msgspec ValidationError message into today's ConfigError."""
    match = _ERROR.fullmatch(message)
    what, where = (match["what"], match["where"] or "") if match else (message, "")
    steps = where.split(".")[1:]
    if steps and (game := re.fullmatch(r"games\[(\d+)\]", steps[0])):
        return _translate_game(what, int(game[1]), steps[1:], data, path)
    steps = [re.sub(r"\[\d+\]\Z", "", step) for step in steps]
    named = _NAMED.fullmatch(what)
    if named and not steps:
        return _top_level(named["kind"], named["key"], data, path)
    section = steps[0] if steps else ""
    if named:
        key = named["key"]
        if named["kind"] == "missing required":
            return ConfigError("required", key=f"[{section}] {key}", path=path)
        return _unknown_key(section, key, path)
    if len(steps) == 1:
        return _not_a_table(section, path)
    key = steps[1]
    value = data[section][key]
    return ConfigError(_wrong_value(_TABLES[section], key, value), key=f"[{section}] {key}",
                       path=path)


def _translate_game(what: str, index: int, steps: list[str], data: Mapping[str, Any],
                    path: Path) -> ConfigError:
    """Turn a msgspec message about the [[games]] table at ``index`` into a ConfigError.

    The keys were checked before (``_check_games_keys``): what is left is a missing key
    or a value of the wrong type, in the game's table or in its [games.imap].
    """
    where = game_key(index)
    table: Mapping[str, Any] = data["games"][index]
    struct: type[Struct] = GamesTable
    named = _NAMED.fullmatch(what)
    # [games.mechanics] is a free table: only [games.imap] has keys of its own to name.
    if steps[:1] == ["imap"] and (len(steps) > 1 or named):
        where, table, struct, steps = f"{where}.imap", table["imap"], ImapTable, steps[1:]
    if named:
        return ConfigError("required", key=f"{where}.{named['key']}", path=path)
    key = re.sub(r"\[\d+\]\Z", "", steps[0])
    return ConfigError(_wrong_value(struct, key, table[key]), key=f"{where}.{key}", path=path)


def _top_level(kind: str, name: str, data: Mapping[str, Any], path: Path) -> ConfigError:
    if kind == "missing required":
        return ConfigError(_MISSING_GAME, key=f"[{name}]", path=path)
    if not isinstance(data[name], dict) and name in PARAMETERS:
        return ConfigError(_mechanic_elsewhere(name, "[mechanics]"), key=name, path=path)
    if not isinstance(data[name], dict):
        return ConfigError("unknown key at the top level; every key belongs in a section "
                           "such as [game]", key=name, path=path)
    known = [*KEYS, "games"]
    return ConfigError(f"unknown section; {suggest(name, known)}the sections are "
                       f"{', '.join(known)}", key=f"[{name}]", path=path)


def _unknown_key(section: str, key: str, path: Path) -> ConfigError:
    if key in PARAMETERS:  # a mechanic (win_points) written in the wrong section
        return ConfigError(_mechanic_elsewhere(key, "[mechanics]"), key=f"[{section}] {key}",
                           path=path)
    keys = KEYS[section]
    return ConfigError(f"unknown key; {suggest(key, list(keys))}the keys of [{section}] are "
                       f"{', '.join(keys)}", key=f"[{section}] {key}", path=path)


def _mechanic_elsewhere(key: str, table: str) -> str:
    """Say that ``key`` is a mechanic, and the table it is written in."""
    return (f"unknown key; {key} is a mechanic of the game: write it under {table} "
            f"({table} on a line of its own, then {key} = ...)")


def _not_a_table(section: str, path: Path) -> ConfigError:
    return ConfigError(f"expected a table ([{section}] on a line of its own, then its keys)",
                       key=f"[{section}]", path=path)


def _wrong_value(struct: type[Struct], key: str, value: object) -> str:
    """Say what ``key`` expects, from its declared type, and what was written instead."""
    table = cast(schema_info.StructType, schema_info.type_info(struct))
    field = next(f for f in table.fields if f.name == key)
    kind = field.type
    extra: dict[str, Any] = {}
    if isinstance(kind, schema_info.Metadata):
        extra, kind = kind.extra or {}, kind.type
    if extra.get("secret"):
        return "expected a string in quotes"
    if "choices" in extra:
        return expected_one_of(extra["choices"], value)
    if "expected" in extra:
        return f"expected {extra['expected']}, not {shown(value)}"
    if isinstance(kind, schema_info.IntType):
        hint = " (write it without quotes)" if isinstance(value, str) and value.isdigit() else ""
        return f"expected a whole number from {kind.ge} to {kind.le}, not {shown(value)}{hint}"
    if isinstance(kind, schema_info.BoolType):
        return f"expected true or false (without quotes), not {shown(value)}"
    return f"expected a string in quotes, not {shown(value)}"
