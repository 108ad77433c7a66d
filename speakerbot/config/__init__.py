"""The configuration file: a TOML contract written by hand, checked in full at start.

``load_settings`` reads the file; ``parse_settings`` checks an already parsed table and is
pure. Every unknown key and every bad value is refused with a ``ConfigError`` that names the
file and the key. Secrets (the admin password, the IMAP and SMTP passwords, the database
URL) may also come from ``<key>_file`` or an environment variable; they are kept out of every
``repr`` and every error message. docs/configuration.md describes each key.

The modules: ``schema`` (the file's sections and keys as msgspec structs, and the wording
of type errors), ``checks`` (the checks a type cannot make), ``sections`` (from the file's
tables to the settings records), ``records`` (``Settings`` and its parts; [imap] and [smtp]
are the adapters' own ``ImapSettings`` and ``SmtpSettings``), ``loading`` (the file itself).
What the package exports is listed here, once.
"""

from speakerbot.adapters.transport import Security
from speakerbot.config.loading import load_settings, parse_settings, resolve_config_path
from speakerbot.config.records import (
    CONFIG_ENV,
    DEFAULT_CONFIG_PATH,
    DEFAULT_DATABASE_URL,
    SECRET_ENV,
    SECURITY_VALUES,
    AuthSettings,
    ConfigError,
    DatabaseSettings,
    GameSettings,
    ImapConfig,
    LimitsSettings,
    LmtpConfig,
    MissingValue,
    Settings,
    SiteSettings,
    SmtpConfig,
)
from speakerbot.config.schema import KEYS

__all__ = [
    "CONFIG_ENV",
    "DEFAULT_CONFIG_PATH",
    "DEFAULT_DATABASE_URL",
    "KEYS",
    "SECRET_ENV",
    "SECURITY_VALUES",
    "AuthSettings",
    "ConfigError",
    "DatabaseSettings",
    "GameSettings",
    "ImapConfig",
    "LimitsSettings",
    "LmtpConfig",
    "MissingValue",
    "Security",
    "Settings",
    "SiteSettings",
    "SmtpConfig",
    "load_settings",
    "parse_settings",
    "resolve_config_path",
]
