"""From the typed tables of the file to the settings records, one section at a time.

The types and ranges were checked by the schema; here are the checks that need the
value (``speakerbot.config.checks``), the defaults that follow another key (a port
from ``security``, a username from the game's address, a Judge from the Speaker),
and the adapters' own records built directly for [imap] and [smtp].
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal, cast
from urllib.parse import urlsplit

from msgspec import UnsetType
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from speakerbot.adapters.imap.records import ImapSettings
from speakerbot.adapters.smtp import SmtpSettings
from speakerbot.adapters.transport import SECURITY_MODES, Security
from speakerbot.config.checks import Checker
from speakerbot.config.records import (
    SECRET_ENV,
    AuthSettings,
    DatabaseSettings,
    GameSettings,
    LimitsSettings,
    LmtpConfig,
    MetricsSettings,
    MissingValue,
    SiteSettings,
    WorkersSettings,
)
from speakerbot.config.schema import (
    AuthTable,
    DatabaseTable,
    GameTable,
    ImapTable,
    LimitsTable,
    LmtpTable,
    MetricsTable,
    SiteTable,
    SmtpTable,
    WorkersTable,
    suggest,
)
from speakerbot.presets import PresetError, is_ruleset_file, preset_names, read_ruleset_file

__all__ = ["auth", "database", "game", "imap", "limits", "lmtp", "metrics", "site", "smtp",
           "workers"]

_IMAP_PORTS: dict[str, int] = {"ssl": 993, "starttls": 143, "none": 143}
_SMTP_PORTS: dict[str, int] = {"ssl": 465, "starttls": 587, "none": 25}


def game(check: Checker, table: GameTable) -> GameSettings:
    """Build [game]: who the game is, who runs it, who judges."""
    s = "game"
    name = check.text(s, "name", table.name)
    if "[" in name or "]" in name:
        raise check.fail(s, "name", f"must not contain [ or ] (the subject tag is [name]), "
                         f"not {name!r}")
    ruleset = _ruleset(check, check.text(s, "ruleset", table.ruleset))
    address = check.address(s, "address", table.address)
    speaker = _person(check, "speaker", table.speaker, address)
    speaker_name = check.text(s, "speaker_name", table.speaker_name)
    # Optional: without it ADMIN by mail is refused, and the desk (speakerbot admin) is
    # the host's only way to act as host.
    admin_password = check.secret(s, "admin_password", table.admin_password,
                                  table.admin_password_file)
    mailing_list = None
    if not isinstance(table.list, UnsetType):
        mailing_list = check.address(s, "list", table.list)
        if mailing_list == address:
            raise check.fail(s, "list", "must not be the game's own address (the game would "
                             "read its own mail)")
    digest = check.optional_text(s, "digest", table.digest)
    if digest is not None:
        check.cron(digest)
    judge = speaker if isinstance(table.judge, UnsetType) else _person(
        check, "judge", table.judge, address)
    judge_name = check.optional_text(s, "judge_name", table.judge_name)
    if judge_name is None:
        judge_name = speaker_name if judge == speaker else judge
    # "" turns the reminder of open hand work off; otherwise an hour to thirty days.
    reminder = (None if not table.handwork_reminder.strip() else check.duration(
        s, "handwork_reminder", table.handwork_reminder, 3600, 30 * 86400))
    return GameSettings(
        name=name, ruleset=ruleset, address=address, speaker=speaker,
        speaker_name=speaker_name, admin_password=admin_password, list=mailing_list,
        open_registration=table.open_registration, digest=digest, judge=judge,
        judge_name=judge_name, handwork_reminder=reminder,
        digest_time=check.time_of_day(s, "digest_time", table.digest_time),
        timezone=check.timezone(s, "timezone", table.timezone),
        dkim_selector=_selector(check, table.dkim_selector),
    )


# A selector is one or more DNS labels (RFC 6376 3.1): "s1", "2024-01.mail".
_SELECTOR = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(?:\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*")


def _selector(check: Checker, value: str | UnsetType) -> str | None:
    """Return [game] dkim_selector, the DKIM selector of the game's domain, or None."""
    selector = check.optional_text("game", "dkim_selector", value)
    if selector is not None and (len(selector) > 200 or not _SELECTOR.fullmatch(selector)):
        raise check.fail("game", "dkim_selector", "expected the selector the game's domain "
                         "signs its mail with, such as \"s1\" (DNS labels of letters, digits "
                         f"and hyphens, joined by dots), not {selector!r}")
    return selector


def _ruleset(check: Checker, ruleset: str) -> str:
    """Return a preset's name, or a ruleset file's absolute path once the file is clean.

    A relative path is read beside the configuration file. A file with faults is refused
    with every fault, as ``speakerbot rulesets check`` prints them.
    """
    if is_ruleset_file(ruleset):
        path = (check.path.parent / Path(ruleset).expanduser()).resolve()
        try:
            read_ruleset_file(path)
        except PresetError as error:
            raise check.fail("game", "ruleset", f"the ruleset file is refused:\n{error}"
                             ) from None
        return str(path)
    known = preset_names()
    if ruleset not in known:
        raise check.fail("game", "ruleset", f"there is no preset {ruleset!r}; "
                         f"{suggest(ruleset, known)}the presets are {', '.join(known)}, "
                         "or give the path of a ruleset file")
    return ruleset


def _person(check: Checker, key: str, value: str, game_address: str) -> str:
    """Return a person's address ([game] speaker or judge): never the game's own."""
    address = check.address("game", key, value)
    if address == game_address:
        raise check.fail("game", key, "must be a person's address, not the game's own "
                         "address")
    return address


def limits(check: Checker, table: LimitsTable) -> LimitsSettings:
    """Build [limits]; the whole-number ranges were checked by the schema."""
    return LimitsSettings(
        max_message_size=check.size(table.max_message_size),
        replies_per_day=table.replies_per_day,
        max_command_lines=table.max_command_lines,
        proposals_per_message=table.proposals_per_message,
        proposals_per_day=table.proposals_per_day,
        cfj_per_day=table.cfj_per_day,
        revise_per_proposal=table.revise_per_proposal,
        join_per_domain_per_day=table.join_per_domain_per_day,
        public_per_hour=table.public_per_hour,
        max_absence=check.duration("limits", "max_absence", table.max_absence, 86400,
                                   365 * 86400),
        max_rule_bytes=check.size(table.max_rule_bytes, "max_rule_bytes"),
        max_observers=table.max_observers,
        bounce_score=table.bounce_score,
    )


def auth(check: Checker, table: AuthTable) -> AuthSettings:
    """Build [auth]: whose mail is believed, and what happens to the rest."""
    s = "auth"
    return AuthSettings(
        require=cast(Literal["dmarc", "none"],
                     check.choice(s, "require", table.require, ("dmarc", "none"))),
        authserv_id=check.authserv_ids(table.authserv_id),
        unauthenticated=cast(Literal["confirm", "refuse"], check.choice(
            s, "unauthenticated", table.unauthenticated, ("confirm", "refuse"))),
        confirm_within=check.duration(s, "confirm_within", table.confirm_within,
                                      60, 30 * 86400),
        # Down to a second for tests; an hour at most, so that a held message never
        # waits long for the request that lets its sender confirm it.
        confirm_gap=check.duration(s, "confirm_gap", table.confirm_gap, 1, 3600),
    )


def database(check: Checker, table: DatabaseTable) -> DatabaseSettings:
    """Build [database]: an SQLite or PostgreSQL URL, from the file or the environment."""
    found = check.secret_and_origin("database", "url", table.url, table.url_file)
    if found is None:
        return DatabaseSettings(snapshot_every=table.snapshot_every)
    url, origin = found[0].strip(), found[1]
    key = "url" if isinstance(table.url_file, UnsetType) else "url_file"
    try:
        backend = make_url(url).get_backend_name()
    except (ArgumentError, ValueError):
        raise check.fail("database", key, f"cannot read {origin} as a database URL; write "
                         "it like sqlite:///data/speakerbot.db or "
                         "postgresql+psycopg://user@host/dbname") from None
    if backend not in ("sqlite", "postgresql"):
        raise check.fail("database", key, f"{origin} names the {backend} backend; "
                         "speakerbot works with sqlite and postgresql")
    return DatabaseSettings(url, table.snapshot_every)


def imap(check: Checker, table: ImapTable, game_address: str) -> ImapSettings:
    """Build [imap] as the IMAP adapter's own settings (``max_size`` is the daemon's)."""
    s = "imap"
    security = _security(check, s, table.security)
    password = check.secret(s, "password", table.password, table.password_file)
    if password is None:
        raise _missing(check, s, "password", "required to read the mailbox: give password, "
                       "password_file (a file holding it) or the environment variable "
                       f"{SECRET_ENV[(s, 'password')]}")
    folder = check.text(s, "folder", table.folder)
    processed = check.text(s, "processed_folder", table.processed_folder)
    if processed == folder:
        raise check.fail(s, "processed_folder", "must differ from folder (mail is moved "
                         "there once it has been handled)")
    host = check.host(s, table.host)
    username = check.optional_text(s, "username", table.username) or game_address
    poll_interval = check.duration(s, "poll_interval", table.poll_interval, 1, 86400)
    allow_plaintext = check.plaintext(s, host, security, True, table.allow_plaintext)
    try:
        return ImapSettings(
            host=host,
            port=_IMAP_PORTS[security] if isinstance(table.port, UnsetType) else table.port,
            security=security, username=username, password=password,
            folder=folder, processed_folder=processed, idle=table.idle,
            poll_interval=poll_interval, allow_plaintext=allow_plaintext,
        )
    except ValueError as error:
        # The adapter's own checks, such as a folder that is also its rejected folder.
        raise check.fail(s, "folder", str(error)) from None


def _missing(check: Checker, section: str, key: str, detail: str) -> MissingValue:
    """Return the error for a mail section's missing value, which only ``run`` raises."""
    error = check.fail(section, key, detail)
    return MissingValue(error.detail, key=error.key, path=error.path)


def lmtp(check: Checker, table: LmtpTable) -> LmtpConfig:
    """Build [lmtp]: where the bot listens for a local mail server."""
    return LmtpConfig(host=check.host("lmtp", table.host), port=table.port)


def smtp(check: Checker, table: SmtpTable, game_address: str) -> SmtpSettings:
    """Build [smtp] as the SMTP adapter's own settings; no password: no login."""
    s = "smtp"
    security = _security(check, s, table.security)
    password = check.secret(s, "password", table.password, table.password_file)
    if password is None and not isinstance(table.username, UnsetType):
        raise _missing(check, s, "password", "required when username is given: give "
                       "password, password_file (a file holding it) or the environment "
                       f"variable {SECRET_ENV[(s, 'password')]}; without a username and "
                       "password speakerbot sends without logging in")
    host = check.host(s, table.host)
    username = ""
    if password is not None:
        username = check.optional_text(s, "username", table.username) or game_address
    return SmtpSettings(
        host=host,
        port=_SMTP_PORTS[security] if isinstance(table.port, UnsetType) else table.port,
        security=security, username=username, password=password,
        give_up_after=check.duration(s, "give_up_after", table.give_up_after, 1, 60 * 86400),
        allow_plaintext=check.plaintext(s, host, security, password is not None,
                                        table.allow_plaintext),
        max_recipients=table.max_recipients,
    )


def site(check: Checker, table: SiteTable) -> SiteSettings:
    """Build [site]: the archive's folder (relative: to the working directory) and address."""
    folder = check.optional_text("site", "dir", table.dir)
    url = check.optional_text("site", "url", table.url)
    if url is not None:
        url = _site_url(check, url)
    return SiteSettings(dir=None if folder is None else Path(folder), url=url)


def _site_url(check: Checker, url: str) -> str:
    """Return the archive's address without a trailing slash; refuse anything but http(s).

    The address goes into mail as the start of every link, so a query, a fragment or a
    character that would end the link early is refused rather than sent to players.
    """
    wanted = 'expected the archive\'s public address, such as "https://nomic.example.org"'
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- reading it checks it
    except ValueError:
        raise check.fail("site", "url", f"{wanted}, not {url!r}") from None
    bad = any(c.isspace() or c in "<>\"'`" for c in url) or not url.isascii()
    if (parts.scheme not in ("https", "http") or not parts.hostname or bad
            or parts.query or parts.fragment or "@" in parts.netloc):
        raise check.fail("site", "url", f"{wanted}, not {url!r}")
    return url.rstrip("/")


def _security(check: Checker, section: str, value: str) -> Security:
    return cast(Security, check.choice(section, "security", value, SECURITY_MODES))


def workers(check: Checker, table: WorkersTable) -> WorkersSettings:
    """Build [workers]: a lease of a second (for tests) to ten minutes."""
    return WorkersSettings(lease=check.duration("workers", "lease", table.lease, 1, 600))


def metrics(check: Checker, table: MetricsTable) -> MetricsSettings:
    """Build [metrics]: ``listen`` as ``host:port`` (``[::1]:port`` for IPv6), or "" for off."""
    listen = table.listen.strip()
    if not listen:
        return MetricsSettings()
    host, colon, port = listen.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or any(c.isspace() for c in host) or not port.isdigit() \
            or not 1 <= int(port) <= 65535:
        raise check.fail("metrics", "listen", f"expected host:port (such as "
                         f"\"127.0.0.1:9464\"), not {listen!r}")
    return MetricsSettings(host=host, port=int(port))
