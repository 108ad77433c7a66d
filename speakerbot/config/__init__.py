"""The configuration file: a TOML contract written by hand, checked in full at start.

``load_games`` reads the file and returns every game (``Games``): one [game] section, whose
id is ``main``, or one [[games]] table per game, each with its own [games.mechanics] and
[games.imap] beside the shared sections. ``load_settings`` returns one game of it;
``parse_games`` and ``parse_settings`` check an already parsed table and are pure. Every
unknown key and every bad value is refused with a ``ConfigError`` that names the file and
the key. Secrets (the admin password, the IMAP and SMTP passwords, the database
URL) may also come from ``<key>_file`` or an environment variable; they are kept out of every
``repr`` and every error message. docs/configuration.md describes each key.

The modules: ``schema`` (the file's sections and keys as msgspec structs, and the wording
of type errors), ``checks`` (the checks a type cannot make), ``sections`` (from the file's
tables to the settings records), ``records`` (``Settings`` and its parts; [imap] and [smtp]
are the adapters' own ``ImapSettings`` and ``SmtpSettings``), ``games`` (each game's
Settings, and ``Games``), ``loading`` (the file itself).
What the package exports is listed here, once.
"""

from speakerbot.adapters.transport import Security
from speakerbot.config.games import GameNotChosen, Games, UnknownGame, parse_games
from speakerbot.config.loading import (
    load_games,
    load_settings,
    parse_settings,
    resolve_config_path,
)
from speakerbot.config.records import (
    CONFIG_ENV,
    DEFAULT_CONFIG_PATH,
    DEFAULT_DATABASE_URL,
    DEFAULT_GAME_ID,
    GAME_ENV,
    SECRET_ENV,
    SECURITY_VALUES,
    AuthSettings,
    ConfigError,
    DatabaseSettings,
    GameSettings,
    ImapConfig,
    LimitsSettings,
    LmtpConfig,
    MetricsSettings,
    MissingValue,
    Settings,
    SiteSettings,
    SmtpConfig,
    WorkersSettings,
)
from speakerbot.config.schema import GAMES_KEYS, KEYS

__all__ = [
    "CONFIG_ENV",
    "DEFAULT_CONFIG_PATH",
    "DEFAULT_DATABASE_URL",
    "DEFAULT_GAME_ID",
    "GAMES_KEYS",
    "GAME_ENV",
    "KEYS",
    "SECRET_ENV",
    "SECURITY_VALUES",
    "AuthSettings",
    "ConfigError",
    "DatabaseSettings",
    "GameNotChosen",
    "GameSettings",
    "Games",
    "ImapConfig",
    "LimitsSettings",
    "LmtpConfig",
    "MetricsSettings",
    "MissingValue",
    "Security",
    "Settings",
    "SiteSettings",
    "SmtpConfig",
    "UnknownGame",
    "WorkersSettings",
    "load_games",
    "load_settings",
    "parse_games",
    "parse_settings",
    "resolve_config_path",
]
