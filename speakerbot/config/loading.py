"""Finding, reading and checking the configuration file.

``load_settings`` reads the file; ``parse_settings`` checks an already parsed table and
is pure apart from reading ``<key>_file`` secrets. The schema (``speakerbot.config.schema``)
checks the sections, keys and types; ``speakerbot.config.sections`` the values.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec import UnsetType

from speakerbot.config import sections
from speakerbot.config.checks import Checker
from speakerbot.config.records import (
    CONFIG_ENV,
    DEFAULT_CONFIG_PATH,
    ConfigError,
    MissingValue,
    Settings,
)
from speakerbot.config.schema import read_file_tables

__all__ = ["load_settings", "parse_settings", "resolve_config_path"]


def resolve_config_path(cli_value: str | None, environ: Mapping[str, str]) -> Path:
    """Choose the configuration file: ``--config``, else ``SPEAKERBOT_CONFIG``, else the default.

    An empty value counts as not given. The default, ``config/speakerbot.toml``, is relative
    to the working directory.
    """
    if cli_value:
        return Path(cli_value)
    from_env = environ.get(CONFIG_ENV, "")
    if from_env:
        return Path(from_env)
    return DEFAULT_CONFIG_PATH


def load_settings(path: Path, environ: Mapping[str, str] | None = None) -> Settings:
    """Read and check the configuration file at ``path``; raise ConfigError if it is wrong.

    ``environ`` (default: ``os.environ``) supplies secrets the file does not hold.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            "there is no configuration file here; create one by copying "
            "config/speakerbot.example.toml to this path and editing it (or choose another "
            f"file with --config PATH or {CONFIG_ENV})", path=path) from None
    except IsADirectoryError:
        raise ConfigError("is a directory, not a configuration file", path=path) from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"is not UTF-8 text ({error.reason} at byte {error.start})",
                          path=path) from None
    except OSError as error:
        raise ConfigError(f"cannot read it: {error.strerror}", path=path) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"is not valid TOML: {error}", path=path) from None
    return parse_settings(data, path=path, environ=os.environ if environ is None else environ)


def parse_settings(data: Mapping[str, Any], *, path: Path,
                   environ: Mapping[str, str]) -> Settings:
    """Check a parsed configuration table and build the Settings; raise ConfigError if wrong.

    Pure apart from reading ``<key>_file`` secrets (relative to the file's folder).
    """
    tables = read_file_tables(data, path)
    check = Checker(path, environ)
    game = sections.game(check, tables.game)
    mechanics = check.mechanics(tables.mechanics)
    limits = sections.limits(check, tables.limits)
    database = sections.database(check, tables.database)
    # A mail section's missing password waits for run: init, status and the rest need none.
    missing: list[MissingValue] = []
    imap = smtp = None
    try:
        if not isinstance(tables.imap, UnsetType):
            imap = sections.imap(check, tables.imap, game.address)
    except MissingValue as error:
        missing.append(error)
    lmtp = None if isinstance(tables.lmtp, UnsetType) else sections.lmtp(check, tables.lmtp)
    try:
        if not isinstance(tables.smtp, UnsetType):
            smtp = sections.smtp(check, tables.smtp, game.address)
    except MissingValue as error:
        missing.append(error)
    auth = sections.auth(check, tables.auth)
    site = sections.site(check, tables.site)
    return Settings(path, game, mechanics, limits, database, imap, lmtp, smtp, auth, site,
                    tuple(missing))
