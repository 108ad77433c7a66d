"""A received message read once: the bytes to store, the mail, its commands and verdicts.

:func:`read_inbound` is the one place where a received message is read for the game. Intake
calls it before the message is stored, and keeps what it returns with the stored message
(:func:`encode_reading`); processing, a retry after a failed transaction and the process
after a restart take that (:func:`reading_of`) instead of reading the message again. Pure:
bytes, the time they arrived and the game's :class:`ReadingPolicy` in; a :class:`Reading`
out.

A kept reading is a shortcut, never the truth (the stored bytes are). One written by other
reading code (:func:`reading_format`), or under another policy, is ignored and the stored
bytes are read again: the rule the game's snapshots follow.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, get_args

import msgspec

import speakerbot
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.authentication import (
    Authentication,
    AuthPolicy,
    authenticate_mail,
)
from speakerbot.mail.inbound.reading import (
    DEFAULT_MAX_BYTES,
    InboundMail,
    read_with_headers,
)
from speakerbot.mail.inbound.redaction import body_digest, redact_read
from speakerbot.rfc5322 import message_id_of, record_id

__all__ = ["Reading", "ReadingPolicy", "decode_reading", "encode_reading", "read_inbound",
           "reading_format", "reading_of"]

READING_VERSION = "1"
"""Raised by hand only if kept readings must be thrown away for a reason the fingerprint
cannot see."""


@dataclass(frozen=True)
class ReadingPolicy:
    """What the game reads a message by: its password, limits, loop token, whom it believes.

    ``admin_password``: the Speaker's, checked and masked at intake ("" when there is none);
    ``game_addresses``: the game's own address and list, one of which mail must be sent to
    for its authentication to count (see ``authenticate_mail``).
    """

    admin_password: str = field(default="", repr=False)
    max_bytes: int = DEFAULT_MAX_BYTES
    max_command_lines: int = lang.MAX_COMMAND_LINES
    loop_token: str = ""
    auth: AuthPolicy = field(default_factory=AuthPolicy)
    game_addresses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reading:
    """Everything the game needs of a received message, read once.

    ``stored``: the bytes to store, the Speaker's password masked. ``mail``, ``commands``
    and ``authentication``: the message as the game acts on it, read from ``stored`` (so
    that it never shows the password), its commands, and whether it may act for its From
    address. The rest is what intake records of the message as received: ``password``,
    the verdict on its PASSWORD line (``"right"``, ``"wrong"``, None without one);
    ``sender`` and ``body_sha256``, which identify a resent copy; ``received_sha256`` and
    ``size`` of the bytes received; ``authenticated``, the verdict on them; and
    ``message_id``, as the record keeps it.
    """

    stored: bytes = field(repr=False)
    mail: InboundMail
    commands: lang.ParseResult
    authentication: Authentication
    password: str | None
    sender: str | None
    body_sha256: str
    received_sha256: str
    size: int
    authenticated: bool
    message_id: str | None


def read_inbound(raw: bytes, received_at: datetime, policy: ReadingPolicy, *,
                 as_stored: bool = False) -> Reading:
    """Read a received message once: check and mask its password, read it, authenticate it.

    ``as_stored``: ``raw`` are the bytes intake stored, the password already masked (mail
    kept without a reading this code can use): they are read as they are, with no password
    to check (``password`` is None) and what intake records is of them. May raise, on
    bytes the reader trips on: intake then stores the message set aside.
    """
    mail, headers = read_with_headers(raw, max_bytes=policy.max_bytes,
                                      loop_token=policy.loop_token)
    commands = _commands(mail, policy)
    authentication = _authenticate(mail, received_at, policy)
    received_sha256 = hashlib.sha256(raw).hexdigest()
    if as_stored:
        return Reading(raw, mail, commands, authentication, None, mail.sender,
                       body_digest(raw, mail), received_sha256, len(raw),
                       authentication.authenticated, mail.record_id)
    redacted = redact_read(raw, mail, None if mail.problem else commands,
                           policy.admin_password, headers=headers)
    # Intake's verdict is on the message as received; the game's, on what it acts on.
    authenticated, message_id = authentication.authenticated, mail.record_id
    if redacted.masked:
        # What was read shows the password: the game reads the bytes stored instead, and
        # the record keeps their Message-ID, read from all their headers.
        mail, headers = read_with_headers(redacted.raw, max_bytes=policy.max_bytes,
                                          loop_token=policy.loop_token)
        message_id = message_id_of(redacted.raw) if headers is None else record_id(headers)
        commands = _commands(mail, policy)
        authentication = _authenticate(mail, received_at, policy)
    return Reading(redacted.raw, mail, commands, authentication, redacted.verdict,
                   redacted.sender, redacted.body_sha256, received_sha256, len(raw),
                   authenticated, message_id)


def reading_of(stored_raw: bytes, kept: bytes | None, received_at: datetime,
               policy: ReadingPolicy) -> Reading:
    """Return what intake read of a stored message, reading it again only if need be.

    ``kept``: the reading stored with it (:func:`encode_reading`), or None. Read again
    (``read_inbound`` on the stored bytes) when there is none, or it was written by other
    code or under another policy.
    """
    reading = None if kept is None else decode_reading(kept, stored_raw, policy)
    if reading is not None:
        return reading
    return read_inbound(stored_raw, received_at, policy, as_stored=True)


def _commands(mail: InboundMail, policy: ReadingPolicy) -> lang.ParseResult:
    """Return the commands of a message: none when it could not be read."""
    if mail.problem:
        return lang.ParseResult((), (), ())
    return lang.parse_commands(mail.subject, mail.body,
                               max_command_lines=policy.max_command_lines)


def _authenticate(mail: InboundMail, received_at: datetime,
                  policy: ReadingPolicy) -> Authentication:
    return authenticate_mail(mail.sender, mail.auth_results, policy.auth,
                             recipients=mail.recipients, date=mail.date, received=received_at,
                             game_addresses=policy.game_addresses)


# --- Kept with the stored message ---------------------------------------------------------

_COMMANDS: dict[str, type[Any]] = {kind.__name__: kind for kind in get_args(lang.Command)}


def encode_reading(reading: Reading, policy: ReadingPolicy) -> bytes | None:
    """Write a reading out to keep with its stored message (not its bytes: they are stored).

    None when it cannot be written (a header kept as undecodable bytes): the message is
    then read again when it is processed. Never holds the Speaker's password: what it keeps
    was read from the stored bytes.
    """
    parsed = reading.commands
    kept = [reading_format(), _policy_key(policy), _digest(reading.stored), reading.mail,
            [[type(command).__name__, command] for command in parsed.commands],
            parsed.errors, parsed.ignored, parsed.password, reading.authentication,
            reading.password, reading.sender, reading.body_sha256, reading.received_sha256,
            reading.size, reading.authenticated, reading.message_id]
    try:
        return msgspec.msgpack.encode(msgspec.to_builtins(kept))
    except (TypeError, ValueError, UnicodeError):
        return None


def decode_reading(data: bytes, stored_raw: bytes, policy: ReadingPolicy) -> Reading | None:
    """Read back a reading kept with ``stored_raw``; None unless this code wrote it, so.

    None for one written by other reading code, under another policy, of other bytes than
    ``stored_raw``, or that does not decode: the caller reads the stored bytes again.
    """
    try:
        kept = msgspec.msgpack.decode(data)
        if not isinstance(kept, list) or len(kept) != 16 \
                or kept[:3] != [reading_format(), _policy_key(policy), _digest(stored_raw)]:
            return None
        (mail, commands, errors, ignored, secret, authentication, password, sender, body,
         received, size, authenticated, message_id) = kept[3:]
        parsed = lang.ParseResult(
            tuple(_as(_COMMANDS[name], command) for name, command in commands),
            _as(tuple[lang.ParseError, ...], errors),
            _as(tuple[lang.IgnoredLine, ...], ignored), _as(str | None, secret))
        return Reading(stored_raw, _as(InboundMail, mail), parsed,
                       _as(Authentication, authentication), _as(str | None, password),
                       _as(str | None, sender), _as(str, body), _as(str, received),
                       _as(int, size), _as(bool, authenticated), _as(str | None, message_id))
    except (msgspec.DecodeError, msgspec.ValidationError, KeyError, TypeError, ValueError):
        return None


@cache
def reading_format() -> str:
    """Return the fingerprint written with each kept reading and required of any read.

    A hash of the reading code's source (the mail reader, the command language, the
    engine values commands hold; their compiled modules where no source was installed), of
    speakerbot's version and of the libraries that read and write it: any change to them
    makes every kept reading unreadable here, so the message is read again.
    """
    versions = " ".join(f"{name} {_version(name)}" for name in
                        ("speakerbot", "msgspec", "authres", "publicsuffixlist", "idna"))
    digest = hashlib.sha256(f"speakerbot reading {READING_VERSION} {versions}".encode())
    root = Path(speakerbot.__file__).parent
    for part in ("mail/inbound", "engine", "rfc5322.py", "addresses.py"):
        place = root / part
        sources = ([place] if place.is_file() else
                   sorted(place.rglob("*.py")) or sorted(place.rglob("*.pyc")))
        for path in sources:
            name = path.relative_to(root).as_posix().encode()
            digest.update(b"\0" + name + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _policy_key(policy: ReadingPolicy) -> str:
    """Return what of the policy a kept reading depends on (not the password)."""
    # The stored bytes are read as they are, the password never checked again: a reading
    # kept under another password is as good, and its hash would put the secret at rest.
    key = repr((policy.max_bytes, policy.max_command_lines, policy.loop_token, policy.auth,
                policy.game_addresses))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _digest(stored: bytes) -> str:
    """Return what ties a kept reading to the bytes it was read from."""
    return hashlib.sha256(stored).hexdigest()


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def _as(kind: Any, value: Any) -> Any:
    return msgspec.convert(value, type=kind)

