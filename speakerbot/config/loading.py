"""Finding, reading and checking the configuration file.

``load_games`` reads the file and returns every game; ``load_settings`` one of them.
``parse_games`` and ``parse_settings`` check an already parsed table and are pure apart
from reading ``<key>_file`` secrets. The schema (``speakerbot.config.schema``) checks the
sections, keys and types; ``speakerbot.config.sections`` the values;
``speakerbot.config.games`` puts each game's Settings together.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from speakerbot.config.games import Games, parse_games
from speakerbot.config.records import CONFIG_ENV, DEFAULT_CONFIG_PATH, ConfigError, Settings
from speakerbot.presets import MAX_FILE_BYTES, TomlRefused, load_toml

__all__ = ["load_games", "load_settings", "parse_settings", "resolve_config_path"]


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


def load_games(path: Path | str | None = None,
               environ: Mapping[str, str] | None = None) -> Games:
    """Read and check the configuration file once; return every game it holds.

    ``path`` None: the file ``SPEAKERBOT_CONFIG`` names, else the default. ``environ``
    (default: ``os.environ``) supplies secrets the file does not hold. Raise ConfigError
    if the file is missing, unreadable or wrong.
    """
    environ = os.environ if environ is None else environ
    path = resolve_config_path(None, environ) if path is None else Path(path)
    return parse_games(_parsed(_read_text(path), path), path, environ)


def _read_text(path: Path) -> str:
    """Read the configuration file as text; raise ConfigError if it is missing or unreadable."""
    try:
        with path.open("rb") as stream:
            # One byte more than is read at most: enough to know the file is too large.
            data = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(
            "there is no configuration file here; create one with `speakerbot config "
            "example > PATH` and edit it (or choose another file with --config PATH or "
            f"{CONFIG_ENV})", path=path) from None
    except IsADirectoryError:
        raise ConfigError("is a directory, not a configuration file", path=path) from None
    except OSError as error:
        raise ConfigError(f"cannot read it: {error.strerror}", path=path) from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"is over {MAX_FILE_BYTES:,} bytes; a configuration file is read "
                          "up to that size", path=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"is not UTF-8 text ({error.reason} at byte {error.start})",
                          path=path) from None
    # Line ends as a file read in text mode has them, as the file always was read.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _parsed(text: str, path: Path) -> dict[str, Any]:
    """Parse the configuration's TOML; raise ConfigError, with the line, if it cannot be."""
    try:
        return load_toml(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"is not valid TOML: {error}", path=path) from None
    except TomlRefused as refused:
        raise ConfigError(f"is refused: {refused}", path=path) from None


def load_settings(path: Path | str | None = None, environ: Mapping[str, str] | None = None,
                  *, game: str | None = None) -> Settings:
    """Read and check the configuration file; return the game ``game`` (see ``Games.select``).

    ``game`` None: the only game, or GameNotChosen when the file holds several.
    """
    return load_games(path, environ).select(game)


def parse_settings(data: Mapping[str, Any], *, path: Path, environ: Mapping[str, str],
                   game: str | None = None) -> Settings:
    """Check a parsed configuration table and build one game's Settings (``Games.select``).

    Pure apart from reading ``<key>_file`` secrets (relative to the file's folder).
    """
    return parse_games(data, path, environ).select(game)
