"""The checks a type cannot make: text, addresses, hosts, durations, sizes, cron, secrets.

These stay hand-written on purpose: each needs the value after its type is known
(stripped text, a parsed address, a duration in the engine's notation, a secret
that may come from a file beside the configuration or from the environment), and
each message names the key and says what would be accepted. Secrets are never shown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from email.errors import HeaderParseError
from email.headerregistry import Address
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from msgspec import UNSET, UnsetType

from speakerbot.adapters.transport import is_loopback
from speakerbot.addresses import canonical_address
from speakerbot.config import schema
from speakerbot.config.records import SECRET_ENV, ConfigError
from speakerbot.config.schema import shown
from speakerbot.engine.durations import format_duration, parse_duration
from speakerbot.engine.mechanics import PARAMETERS

__all__ = ["Checker"]

_SIZE = re.compile(r"(\d+)\s*(b|kib|mib|gib|kb|mb|gb)?", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3,
               "kb": 1000, "mb": 1000**2, "gb": 1000**3}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# The sections a [[games]] table holds for its game: [game] is the table itself.
_GAME_PATHS = {"game": "", "mechanics": ".mechanics", "imap": ".imap"}
_COMMON_MECHANICS = ("voting_period", "judge_period", "reminder_before", "quorum_percent",
                     "win_points")


class Checker:
    """Checks the values of one configuration file; every failure names the key.

    ``game_index``: the [[games]] table being checked (from 0), or None for a [game]
    file and the shared sections. A game's sections are then named by their key path,
    ``games[2].address`` or ``games[2].imap.port``, and the rest as ``[section] key``.
    """

    def __init__(self, path: Path, environ: Mapping[str, str],
                 game_index: int | None = None) -> None:
        self.path = path
        self.environ = environ
        self.game_index = game_index

    def fail(self, section: str, key: str | None, detail: str) -> ConfigError:
        """Return the error for ``[section] key`` (or the whole section)."""
        if self.game_index is not None and section in _GAME_PATHS:
            where = schema.game_key(self.game_index) + _GAME_PATHS[section]
            name = where if key is None else f"{where}.{key}"
        else:
            name = f"[{section}]" if key is None else f"[{section}] {key}"
        return ConfigError(detail, key=name, path=self.path)

    def text(self, section: str, key: str, value: str) -> str:
        """Return ``value`` stripped; refuse it empty or with control characters."""
        value = value.strip()
        if not value:
            raise self.fail(section, key, "must not be empty")
        if _CONTROL.search(value):
            raise self.fail(section, key, f"must not contain control characters or line "
                            f"breaks, not {shown(value)}")
        return value

    def optional_text(self, section: str, key: str, value: str | UnsetType) -> str | None:
        """Return :meth:`text` of ``value``, or None when the key is absent."""
        return None if isinstance(value, UnsetType) else self.text(section, key, value)

    def address(self, section: str, key: str, value: str) -> str:
        """Return one plain address in its canonical form; refuse a display name or a list.

        The canonical form is the one every sender is compared in
        (:mod:`speakerbot.addresses`), so the host is known by their mail.
        """
        text = self.text(section, key, value)
        if not text.isascii():
            raise self.fail(section, key, f"expected a plain ASCII address (speakerbot does "
                            f"not send internationalized mail), not {text!r}")
        try:
            parsed = Address(addr_spec=text)
        except (ValueError, IndexError, HeaderParseError):
            # The header parser raises bare ValueErrors and IndexErrors on some bad input.
            pass
        else:
            canonical = canonical_address(parsed.addr_spec)
            if parsed.username and parsed.domain and canonical is not None:
                return canonical
        raise self.fail(section, key, f"expected one address such as someone@example.org, "
                        f"with no display name or angle brackets, not {text!r}")

    def host(self, section: str, value: str) -> str:
        """Return a host name or IP address; refuse one with spaces."""
        host = self.text(section, "host", value)
        if any(character.isspace() for character in host):
            raise self.fail(section, "host", f"expected a host name or IP address, "
                            f"not {host!r}")
        return host

    def choice(self, section: str, key: str, value: str, choices: tuple[str, ...]) -> str:
        """Return ``value`` lower-cased if it is one of ``choices`` (in any case)."""
        word = value.strip().lower()
        if word in choices:
            return word
        raise self.fail(section, key, schema.expected_one_of(choices, value))

    def duration(self, section: str, key: str, value: str, low: float, high: float) -> float:
        """Return a duration such as "60s" in seconds, from ``low`` to ``high``."""
        try:
            seconds = parse_duration(value).total_seconds()
        except ValueError as error:
            raise self.fail(section, key, str(error)) from None
        if not low <= seconds <= high:
            raise self.fail(section, key, f"expected a duration from "
                            f"{format_duration(timedelta(seconds=low))} to "
                            f"{format_duration(timedelta(seconds=high))}, not {value!r}")
        return seconds

    def size(self, value: int | str, key: str = "max_message_size") -> int:
        """Return a [limits] size in bytes: a number, or "256KiB" and the like."""
        wanted = f"expected {schema.SIZE_WANTED}, not {shown(value)}"
        if isinstance(value, int):
            size = value
        elif match := _SIZE.fullmatch(value.strip()):
            size = int(match.group(1)) * _SIZE_UNITS[(match.group(2) or "").lower()]
        else:
            raise self.fail("limits", key, wanted)
        if not 1024 <= size <= 1024**3:
            raise self.fail("limits", key, wanted)
        return size

    def authserv_ids(self, value: str | list[str]) -> tuple[str, ...]:
        """Return [auth] authserv_id as lower-case host names (one, or a list)."""
        ids = [value] if isinstance(value, str) else value
        for name in ids:
            word = name.strip()
            if not word or any(c.isspace() or c == ";" for c in word):
                raise self.fail("auth", "authserv_id", f"expected {schema.AUTHSERV_WANTED}, "
                                f"not {shown(ids)}")
        return tuple(name.strip().lower() for name in ids)

    def time_of_day(self, section: str, key: str, value: str) -> tuple[int, int, int]:
        """Return a time of day, ``"HH:MM"`` or ``"HH:MM:SS"`` (24-hour clock), as numbers."""
        found = re.fullmatch(r"\s*([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?\s*", value)
        if found is None:
            raise self.fail(section, key, f'expected a time of day such as "18:00" (24-hour '
                            f"clock, HH:MM or HH:MM:SS), not {value!r}")
        return int(found.group(1)), int(found.group(2)), int(found.group(3) or 0)

    def timezone(self, section: str, key: str, value: str) -> str:
        """Return a time zone's IANA name (``"Europe/London"``, ``"UTC"``) once it is known."""
        name = value.strip()
        try:
            ZoneInfo(name)
        except (ValueError, OSError, ZoneInfoNotFoundError):
            raise self.fail(section, key, f'expected a time zone\'s IANA name such as "UTC" '
                            f'or "Europe/London", not {value!r}') from None
        return name

    def cron(self, expression: str) -> None:
        """Refuse a [game] digest that is not a 5-field cron expression in UTC."""
        fields = expression.split()
        # APScheduler 3 numbers weekdays from Monday = 0, cron from Sunday = 0: a number
        # would silently send the digest on the wrong day, so only names are accepted.
        if len(fields) == 5 and any(character.isdigit() for character in fields[4]):
            raise self.fail("game", "digest", "write the day of the week by name (sun, mon, "
                            f"tue, wed, thu, fri, sat; ranges like mon-fri), not {fields[4]!r}")
        # Imported here: only a config with a digest pays for APScheduler's start.
        from apscheduler.triggers.cron import CronTrigger

        try:
            CronTrigger.from_crontab(expression, timezone="UTC")
        except ValueError as error:
            raise self.fail("game", "digest", f"expected a cron expression of 5 fields "
                            f"(minute hour day month weekday, in UTC) such as \"0 8 * * *\"; "
                            f"{error}") from None

    def mechanics(self, table: Mapping[str, Any]) -> dict[str, str]:
        """Return the [mechanics] overrides as written strings, each checked by the engine."""
        result: dict[str, str] = {}
        for name, value in table.items():
            parameter = PARAMETERS.get(name)
            if parameter is None:
                raise self.fail("mechanics", name, f"there is no mechanic called {name!r}; "
                                f"{schema.suggest(name, list(PARAMETERS))}known ones include "
                                f"{', '.join(_COMMON_MECHANICS)} (docs/configuration.md "
                                "lists them all)")
            if isinstance(value, bool):
                written = "true" if value else "false"
            elif isinstance(value, str | int | float):
                written = str(value).strip()
            else:
                raise self.fail("mechanics", name, f"expected a value such as \"7d\", 20, "
                                f"true or \"2/3\", not {shown(value)}")
            try:
                parameter.parse(written)
            except ValueError as error:
                raise self.fail("mechanics", name,
                                str(error).removeprefix(f"{name}: ")) from None
            result[name] = written
        return result

    def plaintext(self, section: str, host: str, security: str, logs_in: bool,
                  allowed: bool) -> bool:
        """Refuse a password sent in clear to another machine, unless explicitly allowed."""
        if security == "none" and logs_in and not allowed and not is_loopback(host):
            raise self.fail(section, "security", f"\"none\" would send the password to "
                            f"{host} unencrypted; use \"ssl\" or \"starttls\", or set "
                            "allow_plaintext = true in this section if the network is private")
        return allowed

    # Secrets: from the key, else ``<key>_file``, else the environment; never shown.

    def secret(self, section: str, key: str, value: str | UnsetType,
               file_name: str | UnsetType) -> str | None:
        """Return the secret, or None if it is given nowhere."""
        found = self.secret_and_origin(section, key, value, file_name)
        return None if found is None else found[0]

    def secret_and_origin(self, section: str, key: str, value: str | UnsetType,
                          file_name: str | UnsetType) -> tuple[str, str] | None:
        """Return the secret and where it came from (for messages), or None if not given."""
        file_key = f"{key}_file"
        env_name = SECRET_ENV[(section, key)]
        if value is not UNSET and file_name is not UNSET:
            raise self.fail(section, file_key, f"give {key} or {file_key}, not both")
        if isinstance(value, str):
            secret, origin, named = value, "the value", key
        elif isinstance(file_name, str):
            secret = self.read_secret_file(section, file_key, file_name)
            origin, named = "the file", file_key
        elif self.environ.get(env_name):
            secret = self.environ[env_name]
            origin, named = f"the environment variable {env_name}", key
        else:
            return None
        if not secret.strip():
            raise self.fail(section, named, f"{origin} is empty")
        if "\n" in secret or "\r" in secret:
            raise self.fail(section, named, f"{origin} contains a line break")
        return secret, origin

    def read_secret_file(self, section: str, file_key: str, name: str) -> str:
        """Read a secret file (relative: beside the configuration), less one final newline."""
        secret_path = Path(self.text(section, file_key, name))
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
