"""Where the service reads a stored message: its mail, its commands, its sender's verdict.

Every reading of a message's bytes by the service goes through these few functions, so
that one reader can take their place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from speakerbot.adapters.store import InboundRow
from speakerbot.config import Settings
from speakerbot.engine import GameState
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.authentication import Authentication, authenticate_mail
from speakerbot.mail.inbound.reading import InboundMail, read_message
from speakerbot.service.deps import Deps


@dataclass(frozen=True)
class Known:
    """What intake read of a message, kept for answering it in the same transaction.

    Only for a message stored exactly as received (nothing masked): otherwise what was read
    shows the Speaker's password, and the stored bytes must be read again.
    """

    mail: InboundMail
    parsed: lang.ParseResult | None
    verdict: Authentication


def read(deps: Deps, row: InboundRow) -> InboundMail:
    """Read a stored message's bytes."""
    return read_message(row.raw, max_bytes=deps.settings.limits.max_message_size,
                        loop_token=deps.identity.loop_token)


def parse(deps: Deps, mail: InboundMail) -> lang.ParseResult:
    """Read a message's commands (none from a message that could not be read)."""
    if mail.problem:
        return lang.ParseResult((), (), ())
    return lang.parse_commands(mail.subject, mail.body,
                               max_command_lines=deps.settings.limits.max_command_lines)


def authenticate(deps: Deps, mail: InboundMail, received: datetime) -> Authentication:
    """Whether the message may act for its From address (``authenticate_mail``)."""
    game = deps.settings.game
    return authenticate_mail(
        mail.sender, mail.auth_results, deps.auth_policy, recipients=mail.recipients,
        date=mail.date, received=received,
        game_addresses=[a for a in (game.address, game.list) if a])


def is_known(settings: Settings, state: GameState, sender: str) -> bool:
    """Whether mail from ``sender`` may be answered in full: a player, the host, the Speaker."""
    player = state.players.get(sender)
    return (player is not None and player.active) or sender in (
        settings.game.speaker, state.speaker, state.host)
