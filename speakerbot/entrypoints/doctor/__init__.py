"""``speakerbot doctor [--json] [--nameserver ADDRESS[:PORT]]``: whether a setup is right.

Checks the configuration as ``speakerbot run`` reads it, the SMTP relay (connect, EHLO,
TLS, login; nothing is sent), the game's IMAP mailbox (login, TLS, the folder, read-only),
the DNS records of the game's domain (MX, SPF, DMARC, the DKIM key of ``[game]
dkim_selector``), and the newest mail the game received: whether the receiving server
named in ``[auth] authserv_id`` wrote its Authentication-Results, and what the game made of
each message. The game ``--game`` (or ``SPEAKERBOT_GAME``) names, else every game.

One line per finding (``--json``: a list of objects); exit 0 when all is well, 1 when the
worst finding is a warning, 2 when any is a fault. The verdicts are pure modules
(``configured``, ``servers``, ``dns_records``, ``messages``); the edges are thin
(``resolver``, ``relay``, ``mailbox``, ``stored``); ``checkup`` puts them together.
docs/operations.md describes every check.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
from functools import partial

from speakerbot.config import ConfigError
from speakerbot.entrypoints.cli import CliError
from speakerbot.entrypoints.doctor.checkup import Probes, examine
from speakerbot.entrypoints.doctor.configured import config_fault
from speakerbot.entrypoints.doctor.findings import Finding, exit_status, lines, to_json
from speakerbot.entrypoints.doctor.mailbox import probe_mailbox
from speakerbot.entrypoints.doctor.relay import probe_relay
from speakerbot.entrypoints.doctor.resolver import Nameserver, lookups
from speakerbot.entrypoints.doctor.stored import stored_mail
from speakerbot.entrypoints.opening import chosen_game, games_from

__all__ = ["doctor", "nameserver"]


def doctor(args: argparse.Namespace) -> int:
    """Check the setup; print one line per finding (or JSON); return 0, 1 or 2."""
    asked = None if args.nameserver is None else nameserver(args.nameserver)
    probes = Probes(lookups=partial(lookups, nameserver=asked), relay=probe_relay,
                    mailbox=probe_mailbox, stored=stored_mail)
    findings: list[Finding]
    try:
        games = games_from(args)
    except ConfigError as error:
        findings = [config_fault(error)]
    else:
        findings = examine(games, chosen_game(args), probes)
    if args.json:
        print(json.dumps(to_json(findings), indent=2, ensure_ascii=False))
    else:
        print("\n".join(lines(findings)))
    return exit_status(findings)


def nameserver(text: str) -> Nameserver:
    """Read ``--nameserver``: an IP address, with ``:PORT`` (``[v6]:PORT`` for IPv6) or not."""
    address, port = text.strip(), "53"
    if address.startswith("["):
        address, _, rest = address[1:].partition("]")
        if rest:
            if not rest.startswith(":"):
                raise _bad_nameserver(text)
            port = rest[1:]
    elif address.count(":") == 1:
        address, port = address.split(":")
    try:
        ipaddress.ip_address(address)
    except ValueError:
        raise _bad_nameserver(text) from None
    if not port.isascii() or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise _bad_nameserver(text)
    return address, int(port)


def _bad_nameserver(text: str) -> CliError:
    return CliError(f"--nameserver: expected an IP address, with :PORT or not (such as "
                    f"127.0.0.53, 192.0.2.1:5353 or [::1]:53), not {text!r}")
