"""The configuration, judged as ``speakerbot run`` would take it: one game's findings.

Pure: a ``ConfigError`` (the file did not load) or one game's ``Settings`` in, findings
out. ``run`` needs a way for mail to come in and one for it to go out, and warns when the
game believes mail it should not ([auth]); so does doctor, with what to change.
"""

from __future__ import annotations

from speakerbot.config import ConfigError, Settings
from speakerbot.entrypoints.doctor.findings import Finding, fault, ok, warning

__all__ = ["config_fault", "settings_findings"]


def config_fault(error: ConfigError) -> Finding:
    """Say why the configuration file cannot be used, as ``run`` would refuse it."""
    what = f"correct {error.key} as it says" if error.key else "do as it says"
    return fault("config", str(error), f"{what}, then run speakerbot doctor again "
                 "(docs/configuration.md describes every key)")


def settings_findings(settings: Settings) -> list[Finding]:
    """Judge one game's settings: can it run, and whom does it believe."""
    found: list[Finding] = []
    for require in (settings.require_outbound, settings.require_inbound):
        try:
            require()
        except ConfigError as error:
            # Both begin with the mail sections' missing values: each is said once.
            if all(finding.message != str(error) for finding in found):
                found.append(fault("config", str(error), "add it; docs/configuration.md "
                                   "describes the mail sections"))
    if not found:
        found.append(ok("config", f"{settings.path}: the game {settings.game_id} "
                        f"({settings.game.name}, {settings.game.address}) can run: mail comes "
                        f"in {_inbound(settings)} and goes out through {_outbound(settings)}"))
    return [*found, _trust(settings)]


def _inbound(settings: Settings) -> str:
    """Say how mail reaches the game."""
    ways = []
    if settings.imap is not None:
        ways.append(f"by IMAP from {settings.imap.where}, folder {settings.imap.folder!r}")
    if settings.lmtp is not None:
        ways.append(f"by LMTP on {settings.lmtp.host}:{settings.lmtp.port}")
    return " and ".join(ways)


def _outbound(settings: Settings) -> str:
    """Say where the game's mail goes out."""
    smtp = settings.smtp
    return "nothing" if smtp is None else f"the SMTP relay {smtp.host}:{smtp.port}"


def _trust(settings: Settings) -> Finding:
    """Judge [auth]: whose word the game takes for a sender's address."""
    auth = settings.auth
    if auth.require == "none":
        return warning("auth", "[auth] require = \"none\": the From header is believed as it "
                       "is written, so anyone who can get mail into the game's mailbox can "
                       "play as anyone", "set require = \"dmarc\" and authserv_id to your "
                       "receiving server's id, unless that server authenticates every sender")
    if not auth.authserv_id:
        return warning("auth", "[auth] authserv_id is empty: no Authentication-Results "
                       "header is trusted, so no mail is authenticated and every command "
                       "needs a confirmation", "set authserv_id to the id your receiving "
                       "server writes (docs/security.md, \"Finding your authserv-id\"; the "
                       "authserv finding below names the ids on the game's mail)")
    return ok("auth", f"mail is believed on the word of {', '.join(auth.authserv_id)} "
              "([auth] authserv_id): a dmarc=pass or an aligned dkim=pass in its topmost "
              "Authentication-Results header")
