"""The checked configuration: what the rest of speakerbot reads from ``Settings``.

The [imap] and [smtp] sections are the adapters' own settings records
(``ImapSettings``, ``SmtpSettings``): the configuration builds them directly, so
each is defined once. ``ImapConfig`` and ``SmtpConfig`` are their older names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from sqlalchemy.engine import make_url

from speakerbot.adapters.imap.records import ImapSettings
from speakerbot.adapters.smtp import SmtpSettings
from speakerbot.adapters.transport import SECURITY_MODES

SECURITY_VALUES = SECURITY_MODES
"""The values ``security`` accepts."""

DEFAULT_CONFIG_PATH = Path("config/speakerbot.toml")
"""The configuration file used when neither ``--config`` nor ``SPEAKERBOT_CONFIG`` is given."""

CONFIG_ENV = "SPEAKERBOT_CONFIG"
"""The environment variable naming the configuration file."""

GAME_ENV = "SPEAKERBOT_GAME"
"""The environment variable naming the game a command is for, when ``--game`` is not given.

The command line reads it; the configuration only names it.
"""

DEFAULT_GAME_ID = "main"
"""The id of the one game of a file with a [game] section."""

DEFAULT_DATABASE_URL = "sqlite:///data/speakerbot.db"
"""The database used when none is configured (relative to the working directory)."""

SECRET_ENV = {
    ("game", "admin_password"): "SPEAKERBOT_ADMIN_PASSWORD",
    ("imap", "password"): "SPEAKERBOT_IMAP_PASSWORD",
    ("smtp", "password"): "SPEAKERBOT_SMTP_PASSWORD",
    ("database", "url"): "SPEAKERBOT_DATABASE_URL",
}
"""The environment variable each secret falls back to, by (section, key)."""

ImapConfig = ImapSettings
"""The [imap] section: the IMAP adapter's settings (older name)."""

SmtpConfig = SmtpSettings
"""The [smtp] section: the SMTP adapter's settings (older name)."""


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


class MissingValue(ConfigError):
    """A required value of a mail section ([imap], [smtp]) is given nowhere.

    Only ``speakerbot run`` needs the mail sections: the other commands start without
    them, and ``run`` refuses with this error (``Settings.require_outbound``).
    """


@dataclass(frozen=True)
class GameSettings:
    """The [game] section: who the game is and who runs it."""

    name: str
    ruleset: str
    address: str
    speaker: str
    speaker_name: str
    # None: ADMIN by mail is refused (the host still has ``speakerbot admin``).
    admin_password: str | None = field(repr=False)
    list: str | None
    open_registration: bool
    digest: str | None
    judge: str
    judge_name: str
    # How often the host is reminded of open hand work, in seconds; None: never.
    handwork_reminder: float | None = 86400.0
    # When the daily digests of the players in digest mode go: (hour, minute, second) in
    # ``timezone`` (an IANA name, checked to be known).
    digest_time: tuple[int, int, int] = (18, 0, 0)
    timezone: str = "UTC"
    # The DKIM selector the game's domain signs its mail with, for ``speakerbot doctor``
    # to look up; None: not looked up.
    dkim_selector: str | None = None

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
    cfj_per_day: int = 10
    revise_per_proposal: int = 10
    join_per_domain_per_day: int = 5
    public_per_hour: int = 60
    max_absence: float = 14 * 86400  # seconds: the longest absence a player may declare
    max_rule_bytes: int = 65536  # the longest a rule's text may become (UTF-8 bytes)
    max_observers: int = 500  # the most addresses that follow the game (OBSERVE); 0: none
    bounce_score: int = 5  # bounces within 14 days that make a player unreachable


@dataclass(frozen=True)
class AuthSettings:
    """The [auth] section: whose mail is believed, and what happens to the rest.

    ``require``: ``"dmarc"`` (a trusted Authentication-Results header must vouch for the
    From address) or ``"none"`` (the From header alone). ``unauthenticated``: ``"confirm"``
    (ask the From address to confirm) or ``"refuse"``. ``confirm_within`` in seconds;
    ``confirm_gap``, the least time between two requests to one address, in seconds.
    """

    require: Literal["dmarc", "none"] = "dmarc"
    authserv_id: tuple[str, ...] = ()
    unauthenticated: Literal["confirm", "refuse"] = "confirm"
    confirm_within: float = 3 * 86400.0
    confirm_gap: float = 600.0


@dataclass(frozen=True, repr=False)
class DatabaseSettings:
    """The [database] section: an SQLAlchemy URL (a secret: it may hold a password)."""

    url: str = DEFAULT_DATABASE_URL
    # The state is written out whole every this many events (0: never), so that a start
    # replays only the events after the latest snapshot.
    snapshot_every: int = 2000

    def __repr__(self) -> str:
        return (f"DatabaseSettings(url={self.display_url!r}, "
                f"snapshot_every={self.snapshot_every})")

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
class LmtpConfig:
    """The [lmtp] section: where the bot listens for mail from a local MTA."""

    host: str = "127.0.0.1"
    port: int = 8024


@dataclass(frozen=True)
class SiteSettings:
    """The [site] section: the game's static web archive.

    ``dir``: the folder the daemon keeps the archive in (rebuilt after every transaction
    that published something), or None for no archive. ``url``: the archive's public
    address, without a trailing slash, for links in mail; None when it has none.
    """

    dir: Path | None = None
    url: str | None = None

    def link(self, page: str) -> str | None:
        """Return the public address of ``page`` (such as ``proposals/3.html``), or None.

        None when no ``url`` is configured, so that mail leaves the link out.
        """
        return None if self.url is None else f"{self.url}/{page.lstrip('/')}"


@dataclass(frozen=True)
class WorkersSettings:
    """The [workers] section: how the ``speakerbot run`` processes share the games.

    ``lease``: how long, in seconds, a worker holds a game without renewing its lease;
    when it runs out, another worker may take the game.
    """

    lease: float = 10.0


@dataclass(frozen=True)
class MetricsSettings:
    """The [metrics] section: where ``speakerbot run`` serves /metrics and /healthz.

    ``host`` and ``port``: the address to listen on; ``host`` None when nothing is served
    (the default).
    """

    host: str | None = None
    port: int = 9464


@dataclass(frozen=True)
class Settings:
    """One game's whole configuration, checked; ``mechanics`` holds the overrides as written.

    A file of several games gives one Settings a game (``speakerbot.config.Games``): each
    has its own ``game_id``, ``game``, ``mechanics`` and ``imap``, and shares the rest.
    """

    path: Path
    game: GameSettings
    mechanics: dict[str, str]
    limits: LimitsSettings
    database: DatabaseSettings
    imap: ImapSettings | None
    lmtp: LmtpConfig | None
    smtp: SmtpSettings | None
    auth: AuthSettings = AuthSettings()
    site: SiteSettings = SiteSettings()
    # The mail sections' missing values, raised by ``require_*`` (that is, by ``run``).
    missing: tuple[MissingValue, ...] = ()
    # The game's id: it keys the game in the database, its archive folder and --game.
    game_id: str = DEFAULT_GAME_ID
    workers: WorkersSettings = WorkersSettings()
    metrics: MetricsSettings = MetricsSettings()

    def require_mail(self) -> None:
        """Raise the first missing value of the mail sections, if any."""
        if self.missing:
            raise self.missing[0]

    def require_inbound(self) -> None:
        """Raise ConfigError unless mail can come in ([imap] or [lmtp]), as ``run`` needs."""
        self.require_mail()
        if self.imap is None and self.lmtp is None:
            raise ConfigError(
                "speakerbot needs a way to receive mail: add an [imap] section (a hosted "
                "mailbox), an [lmtp] section (a local mail server delivers to speakerbot), "
                "or both", key="[imap] or [lmtp]", path=self.path)

    def require_outbound(self) -> SmtpSettings:
        """Return the [smtp] section; raise ConfigError if it or a mail value is missing."""
        self.require_mail()
        if self.smtp is None:
            raise ConfigError("speakerbot needs an [smtp] section to send mail",
                              key="[smtp]", path=self.path)
        return self.smtp
