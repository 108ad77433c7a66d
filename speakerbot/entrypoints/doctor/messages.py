"""The newest mail the game received, judged: whose verdict it carries, what the game makes of it.

Pure: messages in (their header block at least, and when they arrived), findings out. Each
message is judged by ``authenticate_mail``, the daemon's own verdict, as of its arrival.
The ids of its Authentication-Results headers are read by ``authres`` to say whose they
are; whether a message counts is always ``authenticate_mail``'s word.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import authres  # type: ignore[import-untyped]

from speakerbot.entrypoints.doctor.findings import Finding, fault, ok, warning
from speakerbot.mail.inbound.authentication import (
    AuthPolicy,
    authenticate,
    authenticate_mail,
    authserv_id_of,
    trusted_header,
)
from speakerbot.mail.inbound.headers import (
    date_of,
    first_header,
    header_values,
    parse_sender,
    read_headers,
    recipients_of,
)
from speakerbot.mail.outbound.compose import format_time

__all__ = ["Mailbag", "Received", "mail_findings"]

_UNCHECKED = ("temperror", "permerror")
_FINDING_ID = 'docs/security.md, "Finding your authserv-id"'


@dataclass(frozen=True)
class Received:
    """One message the game received: where it is, when it arrived, its bytes (headers at least)."""

    where: str
    arrived: datetime
    raw: bytes


@dataclass(frozen=True)
class Mailbag:
    """The newest messages, newest first, and where they were read (for the findings)."""

    source: str
    messages: tuple[Received, ...]


@dataclass(frozen=True)
class _Reading:
    """One message read: what it is, whose headers it carries, and the game's verdict."""

    about: str
    ids: tuple[str, ...]
    trusted: str | None
    results: tuple[str, ...]
    authenticated: bool
    by: str | None
    why: str
    vouched: bool
    """Whether the header alone vouches for the sender (``authenticate``), whatever the
    checks against a replay say."""


def mail_findings(bag: Mailbag, policy: AuthPolicy,
                  game_addresses: Sequence[str]) -> list[Finding]:
    """Judge the newest mail: a summary, whose headers it carries, then each message."""
    readings = [_read(message, policy, game_addresses) for message in bag.messages]
    if not readings:
        return [warning("messages", f"no mail in {bag.source} yet: whether the receiving "
                        "server's verdicts reach the game cannot be told",
                        "send the game a message from a player's usual account, then run "
                        "speakerbot doctor again")]
    found = [_summary(bag.source, readings, policy)]
    if policy.require != "none":
        found.append(_authserv(readings, policy))
    found += [_message(reading, policy) for reading in readings]
    return found


def _authserv_id(value: str) -> str:
    """Return the authserv-id of one Authentication-Results value, to be shown."""
    return authserv_id_of(value).lower()


def _results(value: str) -> tuple[str, ...]:
    """Return a header's results as ``method=result`` (nothing when it cannot be read)."""
    try:
        parsed: Any = authres.AuthenticationResultsHeader.parse_value(" ".join(value.split()))
    except Exception:  # as above: an unreadable header has no results to show
        return ()
    return tuple(f"{result.method}={result.result}".lower() for result in parsed.results)


def _read(message: Received, policy: AuthPolicy, game_addresses: Sequence[str]) -> _Reading:
    """Read one message's headers and judge it as the daemon did when it arrived."""
    head = read_headers(message.raw)
    sender = parse_sender(head)[0]
    values = header_values(head, "Authentication-Results")
    verdict = authenticate_mail(sender, values, policy, recipients=recipients_of(head),
                                date=date_of(head), received=message.arrived,
                                game_addresses=game_addresses)
    # Which header is the server's is the daemon's own rule, never a second reading of it.
    ids = tuple(_authserv_id(value) for value in values)
    trusted = trusted_header(values, policy.authserv_ids)
    message_id = first_header(head, "Message-ID") or "no Message-ID"
    about = (f"{message.where} ({message_id}), from {sender or 'no single From address'}, "
             f"arrived {format_time(message.arrived)}")
    return _Reading(about, ids, trusted, _results(trusted) if trusted else (),
                    verdict.authenticated, verdict.by, verdict.why,
                    authenticate(sender, values, policy).authenticated)


def _summary(source: str, readings: list[_Reading], policy: AuthPolicy) -> Finding:
    """Say what was read, and how many of the messages the game believed."""
    count = len(readings)
    believed = sum(reading.authenticated for reading in readings)
    if believed or policy.require == "none":
        return ok("messages", f"{_newest(count)} in {source}: {believed} authenticated")
    return warning("messages", f"{_newest(count)} in {source}: none authenticated",
                   "if any came from a player's usual account, its line below says why it "
                   "was not believed")


def _newest(count: int) -> str:
    """Say ``the newest message`` or ``the newest 3 messages``."""
    return "the newest message" if count == 1 else f"the newest {count} messages"


def _carry(readings: list[_Reading]) -> str:
    return "carries" if len(readings) == 1 else "carry"


def _authserv(readings: list[_Reading], policy: AuthPolicy) -> Finding:
    """Say whether the messages carry the configured receiving server's verdict."""
    check = "authserv"
    configured = ", ".join(policy.authserv_ids)
    tops = [reading.ids[0] for reading in readings if reading.ids]
    top = max(tops, key=tops.count) if tops else None
    if not policy.authserv_ids:
        seen = f"; the messages carry headers by {top}" if top else ""
        return warning(check, f"[auth] authserv_id is empty: no header is trusted{seen}",
                       f"set [auth] authserv_id = [\"{top or 'your receiving server'}\"] "
                       f"if that is your receiving server's id ({_FINDING_ID})")
    lacking = [reading for reading in readings if reading.trusted is None]
    if not lacking:
        every = "it carries" if len(readings) == 1 else "each carries"
        return ok(check, f"{_newest(len(readings))}: {every} an Authentication-Results "
                  f"header by {configured}, the [auth] authserv_id")
    if len(lacking) < len(readings):
        return warning(check, f"{len(lacking)} of {_newest(len(readings))} carry no "
                       f"Authentication-Results header by {configured}: "
                       f"{'; '.join(reading.about for reading in lacking)}",
                       "deliver all of the game's mail through the receiving server that "
                       "checks it: mail that goes round it is never authenticated")
    if top is None:
        return fault(check, f"{_newest(len(readings))} {_carry(readings)} no "
                     "Authentication-Results header at all: nothing checked DKIM or DMARC "
                     "before the mail reached the game, so no one is authenticated",
                     "have the receiving server check them and write the header "
                     "(deploy/postfix/ and docs/operations.md give a tested recipe)")
    whose = "its topmost header is" if len(readings) == 1 else "their topmost headers are"
    return fault(check, f"{_newest(len(readings))} {_carry(readings)} no "
                 f"Authentication-Results header by {configured} (the [auth] authserv_id); "
                 f"{whose} by {', '.join(sorted(set(tops)))}, so no one is authenticated",
                 f"if {top} is your receiving server, set [auth] authserv_id = [\"{top}\"] "
                 f"({_FINDING_ID})")


def _message(reading: _Reading, policy: AuthPolicy) -> Finding:
    """Say, for one message, whose header the game read and what it made of it."""
    check = "message"
    if policy.require == "none":
        return ok(check, f"{reading.about}: believed on its From header ({reading.why})")
    if reading.trusted is None:
        ids = ", ".join(dict.fromkeys(reading.ids))
        return warning(check, f"{reading.about}: no Authentication-Results header by "
                       f"{', '.join(policy.authserv_ids) or 'anyone trusted'} "
                       f"({f'it carries some by {ids}' if ids else 'it carries none'}); "
                       f"not authenticated: {reading.why}", "see the authserv finding")
    header = (f"the topmost header by {_authserv_id(reading.trusted)} says "
              f"{', '.join(reading.results) or 'nothing readable'}")
    if reading.authenticated:
        return ok(check, f"{reading.about}: {header}; authenticated by {reading.by} "
                  f"({reading.why})")
    if reading.vouched:
        return warning(check, f"{reading.about}: {header}, yet it is not believed: "
                       f"{reading.why}", "if the game's address in its To or Cc is not [game] "
                       "address (or list), correct the configuration; mail sent to the game "
                       "under Bcc, or a day from its Date, is not believed by design")
    unchecked = [result for result in reading.results if result.endswith(_UNCHECKED)]
    if unchecked:
        return warning(check, f"{reading.about}: {header}; the receiving server could not "
                       f"check it ({', '.join(unchecked)}), so it is not authenticated",
                       "check the receiving server's DNS resolver (OpenDKIM's Nameservers, "
                       "the resolv.conf OpenDMARC reads) and its logs")
    # The server's verdict, read as it should be: a forger's mail is held so, and no fix.
    return ok(check, f"{reading.about}: {header}; not authenticated: {reading.why}")
