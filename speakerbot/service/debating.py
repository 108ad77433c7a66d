"""The daily limit on arguments: each DEBATE counts as one of its player's replies of the day.

An argument is mail sent to every player on one player's word, so it is bounded twice: in
size by the engine (``engine.debate.MAX_ARGUMENT``), and in number here, against the same
``[limits] replies_per_day`` as the replies that player gets.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from speakerbot.engine import GameState
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.outbound.replies import command_text
from speakerbot.service.policy import REPLY_KINDS, day_start
from speakerbot.service.unit_of_work import UnitOfWork


def arguments_since(state: GameState, sender: str, since: datetime) -> int:
    """Count the arguments ``sender`` has had forwarded since ``since``."""
    return sum(1 for proposal in state.proposals.values()
               for player, at in proposal.debated if player == sender and at >= since)


def argument_limit_errors(uow: UnitOfWork, state: GameState, sender: str,
                          commands: Sequence[lang.Command],
                          received: datetime) -> list[tuple[int, str, str]]:
    """Refuse DEBATE blocks beyond what is left of the sender's replies today.

    Each argument forwarded today and each reply sent today count one; the message's own
    reply needs one more.
    """
    arguments = [command for command in commands if isinstance(command, lang.Debate)]
    if not arguments:
        return []
    day = day_start(received)
    limit = uow.deps.settings.limits.replies_per_day
    used = (uow.replies_since(sender, day, REPLY_KINDS)
            + arguments_since(state, sender, day))
    left = max(0, limit - used - 1)
    if len(arguments) <= left:
        return []
    extra = arguments[left]
    return [(extra.line, command_text(extra),
             f"each DEBATE counts as one of your {limit} replies a day ([limits] "
             f"replies_per_day), and you have {left} left today; send it again tomorrow "
             "(UTC)")]
