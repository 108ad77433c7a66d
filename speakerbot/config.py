"""The configuration file: a TOML contract written by hand, checked in full at start.

``load_settings`` reads the file; ``parse_settings`` checks an already parsed table and is
pure. Every unknown key and every bad value is refused with a ``ConfigError`` that names the
file and the key. Secrets (the admin password, the IMAP and SMTP passwords, the database
URL) may also come from ``<key>_file`` or an environment variable; they are kept out of every
``repr`` and every error message. docs/configuration.md describes each key.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from email.errors import HeaderParseError
from email.headerregistry import Address
from pathlib import Path
from typing import Any, Literal, cast

from apscheduler.triggers.cron import CronTrigger
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from speakerbot.engine.durations import format_duration, parse_duration
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.presets import preset_names

Security = Literal["ssl", "starttls", "none"]
"""How a mail connection is protected: TLS from the start, STARTTLS, or not at all."""

SECURITY_VALUES: tuple[Security, ...] = ("ssl", "starttls", "none")
"""The values ``security`` accepts."""

DEFAULT_CONFIG_PATH = Path("config/speakerbot.toml")
"""The configuration file used when neither ``--config`` nor ``SPEAKERBOT_CONFIG`` is given."""

CONFIG_ENV = "SPEAKERBOT_CONFIG"
"""The environment variable naming the configuration file."""

DEFAULT_DATABASE_URL = "sqlite:///data/speakerbot.db"
"""The database used when none is configured (relative to the working directory)."""

SECRET_ENV = {
    ("game", "admin_password"): "SPEAKERBOT_ADMIN_PASSWORD",
    ("imap", "password"): "SPEAKERBOT_IMAP_PASSWORD",
    ("smtp", "password"): "SPEAKERBOT_SMTP_PASSWORD",
    ("database", "url"): "SPEAKERBOT_DATABASE_URL",
}
"""The environment variable each secret falls back to, by (section, key)."""

KEYS: dict[str, tuple[str, ...]] = {
    "game": ("name", "ruleset", "address", "speaker", "speaker_name", "admin_password",
             "admin_password_file", "list", "open_registration", "digest", "judge",
             "judge_name"),
    "mechanics": tuple(PARAMETERS),
    "limits": ("max_message_size", "replies_per_day", "max_command_lines",
               "proposals_per_message", "proposals_per_day"),
    "auth": ("require", "authserv_id", "unauthenticated", "confirm_within"),
    "database": ("url", "url_file"),
    "imap": ("host", "port", "security", "username", "password", "password_file", "folder",
             "processed_folder", "idle", "poll_interval", "allow_plaintext"),
    "lmtp": ("host", "port"),
    "smtp": ("host", "port", "security", "username", "password", "password_file",
             "give_up_after", "allow_plaintext"),
}
"""Every section and the keys it accepts ([mechanics]: every mechanic the engine knows)."""

_IMAP_PORTS: dict[str, int] = {"ssl": 993, "starttls": 143, "none": 143}
_SMTP_PORTS: dict[str, int] = {"ssl": 465, "starttls": 587, "none": 25}
_SIZE = re.compile(r"(\d+)\s*(b|kib|mib|gib|kb|mb|gb)?", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3,
               "kb": 1000, "mb": 1000**2, "gb": 1000**3}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class ConfigError(ValueError):
    """The configuration is missing, unreadable or wrong; the message names the file and key.

    ``str(error)`` reads ``<path>: [section] key: what is wrong``. ``path`` and ``key`` are
    also kept as attributes (``key`` is ``"[imap] port"``, ``"[imap]"`` or None).
    """

    def __init__(self, detail: str, *, key: str | None = None,
                 path: Path | None = None) -> None:
        self.detail = detail
        self.key = key
        self.path = path
        super().__init__(": ".join(str(p) for p in (path, key, detail) if p is not None))


@dataclass(frozen=True)
class GameSettings:
    """The [game] section: who the game is and who runs it."""

    name: str
    ruleset: str
    address: str
    speaker: str
    speaker_name: str
    admin_password: str = field(repr=False)
    list: str | None
    open_registration: bool
    digest: str | None
    judge: str
    judge_name: str

    @property
    def subject_tag(self) -> str:
        """Return the tag every subject the game sends starts with: ``[name]``."""
        return f"[{self.name}]"


@dataclass(frozen=True)
class LimitsSettings:
    """The [limits] section: what one message and one sender may cost the bot."""

    max_message_size: int = 262144
    replies_per_day: int = 20
    max_command_lines: int = 200
    proposals_per_message: int = 5
    proposals_per_day: int = 20


@dataclass(frozen=True)
class AuthSettings:
    """The [auth] section: whose mail is believed, and what happens to the rest.

    ``require``: ``"dmarc"`` (a trusted Authentication-Results header must vouch for the
    From address) or ``"none"`` (the From header alone). ``unauthenticated``: ``"confirm"``
    (ask the From address to confirm) or ``"refuse"``. ``confirm_within`` in seconds.
    """

    require: Literal["dmarc", "none"] = "dmarc"
    authserv_id: tuple[str, ...] = ()
    unauthenticated: Literal["confirm", "refuse"] = "confirm"
    confirm_within: float = 3 * 86400.0


@dataclass(frozen=True, repr=False)
class DatabaseSettings:
    """The [database] section: an SQLAlchemy URL (a secret: it may hold a password)."""

    url: str = DEFAULT_DATABASE_URL

    def __repr__(self) -> str:
        return f"DatabaseSettings(url={self.display_url!r})"

    @property
    def display_url(self) -> str:
        """Return the URL with any password replaced by ``***``, fit for logs."""
        return make_url(self.url).render_as_string(hide_password=True)

    @property
    def sqlite_path(self) -> Path | None:
        """Return the SQLite database file as written (relative: to the working directory).

        None for PostgreSQL and for an in-memory SQLite database.
        """
        parsed = make_url(self.url)
        if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
            return None
        return Path(parsed.database)


@dataclass(frozen=True)
class ImapConfig:
    """The [imap] section: the mailbox the bot reads; ``poll_interval`` in seconds."""

    host: str
    port: int
    security: Security
    username: str
    password: str = field(repr=False)
    folder: str
    processed_folder: str
    idle: bool
    poll_interval: float
    allow_plaintext: bool = False


@dataclass(frozen=True)
class LmtpConfig:
    """The [lmtp] section: where the bot listens for mail from a local MTA."""

    host: str = "127.0.0.1"
    port: int = 8024


@dataclass(frozen=True)
class SmtpConfig:
    """The [smtp] section: the server the bot sends through.

    Without a password the bot sends without logging in: ``username`` is then ``""`` and
    ``password`` None.
    """

    host: str
    port: int
    security: Security
    username: str
    password: str | None = field(repr=False)
    give_up_after: float = 5 * 86400.0
    allow_plaintext: bool = False


@dataclass(frozen=True)
class Settings:
    """The whole configuration, checked; ``mechanics`` holds the overrides as written."""

    path: Path
    game: GameSettings
    mechanics: dict[str, str]
    limits: LimitsSettings
    database: DatabaseSettings
    imap: ImapConfig | None
    lmtp: LmtpConfig | None
    smtp: SmtpConfig | None
    auth: AuthSettings = AuthSettings()

    def require_inbound(self) -> None:
        """Raise ConfigError unless mail can come in ([imap] or [lmtp]), as ``run`` needs."""
        if self.imap is None and self.lmtp is None:
            raise ConfigError(
                "speakerbot needs a way to receive mail: add an [imap] section (a hosted "
                "mailbox), an [lmtp] section (a local mail server delivers to speakerbot), "
                "or both", key="[imap] or [lmtp]", path=self.path)

    def require_outbound(self) -> SmtpConfig:
        """Return the [smtp] section; raise ConfigError if it is missing."""
        if self.smtp is None:
            raise ConfigError("speakerbot needs an [smtp] section to send mail",
                              key="[smtp]", path=self.path)
        return self.smtp


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
    reader = _Reader(path, environ)
    sections = reader.sections(data)
    game = reader.game(sections.get("game"))
    mechanics = reader.mechanics(sections.get("mechanics", {}))
    limits = reader.limits(sections.get("limits", {}))
    database = reader.database(sections.get("database", {}))
    imap = reader.imap(sections["imap"], game) if "imap" in sections else None
    lmtp = reader.lmtp(sections["lmtp"]) if "lmtp" in sections else None
    smtp = reader.smtp(sections["smtp"], game) if "smtp" in sections else None
    auth = reader.auth(sections.get("auth", {}))
    return Settings(path, game, mechanics, limits, database, imap, lmtp, smtp, auth)


def _loopback(host: str) -> bool:
    """Whether ``host`` names this machine (localhost, 127.0.0.0/8, ::1)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _shown(value: object) -> str:
    text = ("true" if value else "false") if isinstance(value, bool) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _suggest(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f"did you mean {close[0]}? " if close else ""


class _Reader:
    """Reads one configuration; every check raises ConfigError naming the key."""

    def __init__(self, path: Path, environ: Mapping[str, str]) -> None:
        self.path = path
        self.environ = environ

    def fail(self, section: str, key: str | None, detail: str) -> ConfigError:
        name = f"[{section}]" if key is None else f"[{section}] {key}"
        return ConfigError(detail, key=name, path=self.path)

    # Structure.

    def sections(self, data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        known = list(KEYS)
        result: dict[str, dict[str, Any]] = {}
        for name, table in data.items():
            if name not in KEYS and not isinstance(table, dict):
                raise ConfigError("unknown key at the top level; every key belongs in a "
                                  "section such as [game]", key=name, path=self.path)
            if name not in KEYS:
                raise self.fail(name, None, f"unknown section; {_suggest(name, known)}"
                                f"the sections are {', '.join(known)}")
            if not isinstance(table, dict):
                raise self.fail(name, None, f"expected a table ([{name}] on a line of its "
                                "own, then its keys)")
            if name != "mechanics":
                for key in table:
                    if key not in KEYS[name]:
                        raise self.fail(name, key, f"unknown key; {_suggest(key, KEYS[name])}"
                                        f"the keys of [{name}] are {', '.join(KEYS[name])}")
            result[name] = table
        return result

    # Typed values. Secrets are never shown: the callers pass secret=True.

    def string(self, section: str, table: Mapping[str, Any], key: str,
               default: str | None = None, *, secret: bool = False) -> str:
        if key not in table:
            if default is None:
                raise self.fail(section, key, "required")
            return default
        value = table[key]
        if not isinstance(value, str):
            shown = "" if secret else f", not {_shown(value)}"
            raise self.fail(section, key, f"expected a string in quotes{shown}")
        if secret:
            return value
        value = value.strip()
        if not value:
            raise self.fail(section, key, "must not be empty")
        if _CONTROL.search(value):
            raise self.fail(section, key, f"must not contain control characters or line "
                            f"breaks, not {_shown(value)}")
        return value

    def optional_string(self, section: str, table: Mapping[str, Any], key: str) -> str | None:
        return self.string(section, table, key) if key in table else None

    def integer(self, section: str, table: Mapping[str, Any], key: str, default: int,
                low: int, high: int) -> int:
        value = table.get(key, default)
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            return value
        hint = " (write it without quotes)" if isinstance(value, str) and value.isdigit() else ""
        raise self.fail(section, key, f"expected a whole number from {low} to {high}, "
                        f"not {_shown(value)}{hint}")

    def port(self, section: str, table: Mapping[str, Any], default: int) -> int:
        return self.integer(section, table, "port", default, 1, 65535)

    def boolean(self, section: str, table: Mapping[str, Any], key: str, default: bool) -> bool:
        value = table.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(section, key, f"expected true or false (without quotes), "
                            f"not {_shown(value)}")
        return value

    def address(self, section: str, table: Mapping[str, Any], key: str) -> str:
        text = self.string(section, table, key)
        if not text.isascii():
            raise self.fail(section, key, f"expected a plain ASCII address (speakerbot does "
                            f"not send internationalized mail), not {text!r}")
        try:
            parsed = Address(addr_spec=text)
        except (ValueError, IndexError, HeaderParseError):
            # The header parser raises bare ValueErrors and IndexErrors on some bad input.
            pass
        else:
            if parsed.username and parsed.domain and " " not in parsed.domain:
                return parsed.addr_spec.lower()
        raise self.fail(section, key, f"expected one address such as someone@example.org, "
                        f"with no display name or angle brackets, not {text!r}")

    def host(self, section: str, table: Mapping[str, Any], default: str | None = None) -> str:
        value = self.string(section, table, "host", default)
        if any(character.isspace() for character in value):
            raise self.fail(section, "host", f"expected a host name or IP address, "
                            f"not {value!r}")
        return value

    def security(self, section: str, table: Mapping[str, Any], default: Security) -> Security:
        value = table.get("security", default)
        if isinstance(value, str) and value.strip().lower() in SECURITY_VALUES:
            return cast(Security, value.strip().lower())
        raise self.fail(section, "security", f"expected one of {', '.join(SECURITY_VALUES)}, "
                        f"not {_shown(value)}")

    def secret(self, section: str, table: Mapping[str, Any], key: str) -> str | None:
        """Return the secret from the key, else ``<key>_file``, else the environment."""
        found = self.secret_and_origin(section, table, key)
        return None if found is None else found[0]

    def secret_and_origin(self, section: str, table: Mapping[str, Any],
                          key: str) -> tuple[str, str] | None:
        """Return the secret and where it came from (for messages), or None if not given."""
        file_key = f"{key}_file"
        env_name = SECRET_ENV[(section, key)]
        if key in table and file_key in table:
            raise self.fail(section, file_key, f"give {key} or {file_key}, not both")
        if key in table:
            value = self.string(section, table, key, secret=True)
            origin, named = "the value", key
        elif file_key in table:
            value = self.read_secret_file(section, table, file_key)
            origin, named = "the file", file_key
        elif self.environ.get(env_name):
            value = self.environ[env_name]
            origin, named = f"the environment variable {env_name}", key
        else:
            return None
        if not value.strip():
            raise self.fail(section, named, f"{origin} is empty")
        if "\n" in value or "\r" in value:
            raise self.fail(section, named, f"{origin} contains a line break")
        return value, origin

    def read_secret_file(self, section: str, table: Mapping[str, Any], file_key: str) -> str:
        name = self.string(section, table, file_key)
        secret_path = Path(name)
        if not secret_path.is_absolute():
            secret_path = self.path.parent / secret_path
        try:
            content = secret_path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise self.fail(section, file_key, f"{secret_path} is not UTF-8 text") from None
        except OSError as error:
            reason = error.strerror or type(error).__name__
            raise self.fail(section, file_key, f"cannot read {secret_path}: {reason}") from None
        for ending in ("\r\n", "\n"):
            if content.endswith(ending):
                return content[: -len(ending)]
        return content

    def duration(self, section: str, table: Mapping[str, Any], key: str, default: str,
                 low: float, high: float) -> float:
        value = table.get(key, default)
        if not isinstance(value, str):
            raise self.fail(section, key, f"expected a duration in quotes such as \"60s\", "
                            f"\"5m\" or \"1h\", not {_shown(value)}")
        try:
            seconds = parse_duration(value).total_seconds()
        except ValueError as error:
            raise self.fail(section, key, str(error)) from None
        if not low <= seconds <= high:
            raise self.fail(section, key, f"expected a duration from "
                            f"{format_duration(timedelta(seconds=low))} to "
                            f"{format_duration(timedelta(seconds=high))}, not {value!r}")
        return seconds

    # Sections.

    def game(self, table: Mapping[str, Any] | None) -> GameSettings:
        if table is None:
            raise self.fail("game", None, "required: the game's name, ruleset, address, "
                            "speaker, speaker_name and admin password")
        s = "game"
        name = self.string(s, table, "name")
        if "[" in name or "]" in name:
            raise self.fail(s, "name", f"must not contain [ or ] (the subject tag is "
                            f"[name]), not {name!r}")
        ruleset = self.string(s, table, "ruleset")
        known = preset_names()
        if ruleset not in known:
            raise self.fail(s, "ruleset", f"there is no preset {ruleset!r}; "
                            f"{_suggest(ruleset, known)}the presets are {', '.join(known)}")
        address = self.address(s, table, "address")
        speaker = self.address(s, table, "speaker")
        if speaker == address:
            raise self.fail(s, "speaker", "must be a person's address, not the game's own "
                            "address")
        speaker_name = self.string(s, table, "speaker_name")
        admin_password = self.secret(s, table, "admin_password")
        if admin_password is None:
            raise self.fail(s, "admin_password", "required: give admin_password, "
                            "admin_password_file (a file holding it) or the environment "
                            f"variable {SECRET_ENV[(s, 'admin_password')]}")
        mailing_list = self.address(s, table, "list") if "list" in table else None
        if mailing_list == address:
            raise self.fail(s, "list", "must not be the game's own address (the game would "
                            "read its own mail)")
        digest = self.optional_string(s, table, "digest")
        if digest is not None:
            self.check_cron(digest)
        judge = self.address(s, table, "judge") if "judge" in table else speaker
        if judge == address:
            raise self.fail(s, "judge", "must be a person's address, not the game's own "
                            "address")
        judge_name = self.optional_string(s, table, "judge_name")
        if judge_name is None:
            judge_name = speaker_name if judge == speaker else judge
        return GameSettings(
            name=name, ruleset=ruleset, address=address, speaker=speaker,
            speaker_name=speaker_name, admin_password=admin_password,
            list=mailing_list,
            open_registration=self.boolean(s, table, "open_registration", True),
            digest=digest, judge=judge, judge_name=judge_name,
        )

    def check_cron(self, expression: str) -> None:
        fields = expression.split()
        # APScheduler 3 numbers weekdays from Monday = 0, cron from Sunday = 0: a number
        # would silently send the digest on the wrong day, so only names are accepted.
        if len(fields) == 5 and any(character.isdigit() for character in fields[4]):
            raise self.fail("game", "digest", "write the day of the week by name (sun, mon, "
                            f"tue, wed, thu, fri, sat; ranges like mon-fri), not {fields[4]!r}")
        try:
            CronTrigger.from_crontab(expression, timezone="UTC")
        except ValueError as error:
            raise self.fail("game", "digest", f"expected a cron expression of 5 fields "
                            f"(minute hour day month weekday, in UTC) such as \"0 8 * * *\"; "
                            f"{error}") from None

    def mechanics(self, table: Mapping[str, Any]) -> dict[str, str]:
        result: dict[str, str] = {}
        for name, value in table.items():
            parameter = PARAMETERS.get(name)
            if parameter is None:
                common = ("voting_period", "judge_period", "reminder_before", "quorum_percent",
                          "win_points")
                raise self.fail("mechanics", name, f"there is no mechanic called {name!r}; "
                                f"{_suggest(name, list(PARAMETERS))}known ones include "
                                f"{', '.join(common)} (docs/configuration.md lists them all)")
            if isinstance(value, bool):
                written = "true" if value else "false"
            elif isinstance(value, str | int | float):
                written = str(value).strip()
            else:
                raise self.fail("mechanics", name, f"expected a value such as \"7d\", 20, "
                                f"true or \"2/3\", not {_shown(value)}")
            try:
                parameter.parse(written)
            except ValueError as error:
                message = str(error).removeprefix(f"{name}: ")
                raise self.fail("mechanics", name, message) from None
            result[name] = written
        return result

    def limits(self, table: Mapping[str, Any]) -> LimitsSettings:
        s = "limits"
        defaults = LimitsSettings()
        return LimitsSettings(
            max_message_size=self.size(table, defaults.max_message_size),
            replies_per_day=self.integer(s, table, "replies_per_day", defaults.replies_per_day,
                                         1, 100_000),
            max_command_lines=self.integer(s, table, "max_command_lines",
                                           defaults.max_command_lines, 1, 100_000),
            proposals_per_message=self.integer(s, table, "proposals_per_message",
                                               defaults.proposals_per_message, 1, 1000),
            proposals_per_day=self.integer(s, table, "proposals_per_day",
                                           defaults.proposals_per_day, 1, 100_000),
        )

    def auth(self, table: Mapping[str, Any]) -> AuthSettings:
        s = "auth"
        defaults = AuthSettings()
        require = self.choice(s, table, "require", defaults.require, ("dmarc", "none"))
        unauthenticated = self.choice(s, table, "unauthenticated", defaults.unauthenticated,
                                      ("confirm", "refuse"))
        ids = table.get("authserv_id", [])
        if isinstance(ids, str):
            ids = [ids]
        if not isinstance(ids, list) or not all(isinstance(i, str) and i.strip() and
                                                not any(c.isspace() or c == ";" for c in
                                                        i.strip()) for i in ids):
            raise self.fail(s, "authserv_id", "expected a list of host names in quotes, such "
                            "as [\"mx.example.org\"]: the authserv-id your mailbox's own "
                            f"receiving server writes in Authentication-Results, not {_shown(ids)}")
        return AuthSettings(
            require=cast(Literal["dmarc", "none"], require),
            authserv_id=tuple(i.strip().lower() for i in ids),
            unauthenticated=cast(Literal["confirm", "refuse"], unauthenticated),
            confirm_within=self.duration(s, table, "confirm_within", "3d", 60, 30 * 86400),
        )

    def choice(self, section: str, table: Mapping[str, Any], key: str, default: str,
               choices: Sequence[str]) -> str:
        value = table.get(key, default)
        if isinstance(value, str) and value.strip().lower() in choices:
            return value.strip().lower()
        raise self.fail(section, key, f"expected one of {', '.join(choices)}, "
                        f"not {_shown(value)}")

    def plaintext(self, section: str, table: Mapping[str, Any], host: str, security: str,
                  logs_in: bool) -> bool:
        """Refuse a password sent in clear to another machine, unless explicitly allowed."""
        allowed = self.boolean(section, table, "allow_plaintext", False)
        if security == "none" and logs_in and not allowed and not _loopback(host):
            raise self.fail(section, "security", f"\"none\" would send the password to "
                            f"{host} unencrypted; use \"ssl\" or \"starttls\", or set "
                            "allow_plaintext = true in this section if the network is private")
        return allowed

    def size(self, table: Mapping[str, Any], default: int) -> int:
        key, low, high = "max_message_size", 1024, 1024**3
        value = table.get(key, default)
        wanted = (f"expected a size from 1KiB to 1GiB: a number of bytes, or a string such as "
                  f"\"256KiB\" or \"1MiB\", not {_shown(value)}")
        if isinstance(value, bool):
            raise self.fail("limits", key, wanted)
        if isinstance(value, int):
            size = value
        elif isinstance(value, str) and (match := _SIZE.fullmatch(value.strip())):
            size = int(match.group(1)) * _SIZE_UNITS[(match.group(2) or "").lower()]
        else:
            raise self.fail("limits", key, wanted)
        if not low <= size <= high:
            raise self.fail("limits", key, wanted)
        return size

    def database(self, table: Mapping[str, Any]) -> DatabaseSettings:
        found = self.secret_and_origin("database", table, "url")
        if found is None:
            return DatabaseSettings()
        url, origin = found[0].strip(), found[1]
        key = "url_file" if "url_file" in table else "url"
        try:
            backend = make_url(url).get_backend_name()
        except (ArgumentError, ValueError):
            raise self.fail("database", key, f"cannot read {origin} as a database URL; write "
                            "it like sqlite:///data/speakerbot.db or "
                            "postgresql+psycopg://user@host/dbname") from None
        if backend not in ("sqlite", "postgresql"):
            raise self.fail("database", key, f"{origin} names the {backend} backend; "
                            "speakerbot works with sqlite and postgresql")
        return DatabaseSettings(url)

    def imap(self, table: Mapping[str, Any], game: GameSettings) -> ImapConfig:
        s = "imap"
        security = self.security(s, table, "ssl")
        password = self.secret(s, table, "password")
        if password is None:
            raise self.fail(s, "password", "required: give password, password_file (a file "
                            "holding it) or the environment variable "
                            f"{SECRET_ENV[(s, 'password')]}")
        folder = self.string(s, table, "folder", "INBOX")
        processed = self.string(s, table, "processed_folder", "speakerbot/processed")
        if processed == folder:
            raise self.fail(s, "processed_folder", "must differ from folder (mail is moved "
                            "there once it has been handled)")
        host = self.host(s, table)
        return ImapConfig(
            host=host,
            port=self.port(s, table, _IMAP_PORTS[security]),
            security=security,
            username=self.string(s, table, "username", game.address),
            password=password,
            folder=folder,
            processed_folder=processed,
            idle=self.boolean(s, table, "idle", True),
            poll_interval=self.duration(s, table, "poll_interval", "60s", 1, 86400),
            allow_plaintext=self.plaintext(s, table, host, security, True),
        )

    def lmtp(self, table: Mapping[str, Any]) -> LmtpConfig:
        defaults = LmtpConfig()
        return LmtpConfig(host=self.host("lmtp", table, defaults.host),
                          port=self.port("lmtp", table, defaults.port))

    def smtp(self, table: Mapping[str, Any], game: GameSettings) -> SmtpConfig:
        s = "smtp"
        security = self.security(s, table, "starttls")
        password = self.secret(s, table, "password")
        if password is None and "username" in table:
            raise self.fail(s, "password", "required when username is given: give password, "
                            "password_file (a file holding it) or the environment variable "
                            f"{SECRET_ENV[(s, 'password')]}; without a username and password "
                            "speakerbot sends without logging in")
        host = self.host(s, table)
        return SmtpConfig(
            host=host,
            port=self.port(s, table, _SMTP_PORTS[security]),
            security=security,
            username="" if password is None else self.string(s, table, "username", game.address),
            password=password,
            give_up_after=self.duration(s, table, "give_up_after", "5d", 1, 60 * 86400),
            allow_plaintext=self.plaintext(s, table, host, security, password is not None),
        )
