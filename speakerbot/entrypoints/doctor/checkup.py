"""One checkup: every check of every chosen game, through the edges it is given.

``examine`` goes through the configuration, the SMTP relay (shared by the games, looked at
once), each game's mailbox or stored mail, its domain's DNS records and its newest mail,
and returns the findings in that order. The edges (DNS, SMTP, IMAP, the store) are passed
in as ``Probes``, so that the checkup itself can be tried without a network.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from speakerbot.adapters.imap.records import ImapSettings
from speakerbot.adapters.smtp import SmtpSettings
from speakerbot.config import ConfigError, Games, Settings
from speakerbot.entrypoints.doctor.configured import config_fault, settings_findings
from speakerbot.entrypoints.doctor.dns_records import (
    Answer,
    Query,
    dkim_finding,
    dkim_name,
    dmarc_finding,
    dmarc_names,
    mx_finding,
    spf_finding,
)
from speakerbot.entrypoints.doctor.findings import Finding, for_game
from speakerbot.entrypoints.doctor.messages import Mailbag, mail_findings
from speakerbot.entrypoints.doctor.servers import (
    ImapReport,
    SmtpReport,
    imap_findings,
    smtp_findings,
)
from speakerbot.mail.inbound.authentication import AuthPolicy, organizational_domain

__all__ = ["NEWEST", "Probes", "examine"]

NEWEST = 5
"""How many of the newest messages are looked at, per game."""


@dataclass(frozen=True)
class Probes:
    """The edges a checkup reaches the world through: the command's own, or a test's."""

    lookups: Callable[[Sequence[Query]], dict[Query, Answer]]
    relay: Callable[[SmtpSettings], SmtpReport]
    mailbox: Callable[[ImapSettings, int], tuple[ImapReport, Mailbag]]
    stored: Callable[[Settings, int], Mailbag | Finding]


def examine(games: Games, chosen: str | None, probes: Probes) -> list[Finding]:
    """Check the game ``chosen``, or every game of the configuration when None."""
    try:
        checked = list(games.games) if chosen is None else [games.get(chosen)]
    except ConfigError as error:
        return [config_fault(error)]
    found: list[Finding] = []
    for settings in checked:
        found += for_game(settings_findings(settings), settings.game_id)
    smtp = games.shared.smtp
    if smtp is not None:
        found += smtp_findings(probes.relay(smtp))
    for settings in checked:
        found += for_game(_game(settings, probes), settings.game_id)
    return found


def _game(settings: Settings, probes: Probes) -> list[Finding]:
    """Check one game's mailbox (or stored mail), its domain, and its newest mail."""
    found: list[Finding] = []
    mail: Mailbag | None = None
    if settings.imap is not None:
        report, bag = probes.mailbox(settings.imap, NEWEST)
        found += imap_findings(report)
        mail = bag if report.failed_at is None else None
    elif not any(_about_imap(error) for error in settings.missing):
        stored = probes.stored(settings, NEWEST)
        if isinstance(stored, Finding):
            found.append(stored)
        else:
            mail = stored
    found += _domain(settings, probes)
    if mail is not None:
        game = settings.game
        policy = AuthPolicy(settings.auth.require, settings.auth.authserv_id)
        found += mail_findings(mail, policy, [a for a in (game.address, game.list) if a])
    return found


def _about_imap(error: ConfigError) -> bool:
    """Whether a missing value is the mailbox's: its mail is then not to be read at all."""
    return error.key is not None and "imap" in error.key


def _domain(settings: Settings, probes: Probes) -> list[Finding]:
    """Look up the game's domain: MX, SPF, DMARC (its own, or its organization's), DKIM."""
    domain = settings.game.address.rpartition("@")[2]
    selector = settings.game.dkim_selector
    mx, spf = Query(domain, "MX"), Query(domain, "TXT")
    dmarc = [Query(name, "TXT") for name in dmarc_names(domain,
                                                        organizational_domain(domain))]
    dkim = None if selector is None else Query(dkim_name(domain, selector), "TXT")
    answers = probes.lookups([mx, spf, *dmarc, *([dkim] if dkim else [])])
    return [mx_finding(domain, answers[mx]), spf_finding(domain, answers[spf]),
            dmarc_finding(domain, [answers[query] for query in dmarc]),
            dkim_finding(domain, selector, answers[dkim] if dkim else None)]
