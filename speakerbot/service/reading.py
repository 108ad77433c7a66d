"""Where the service reads a message: once, at intake, by the one reading function.

``mail/inbound/intake.read_inbound`` reads a message (its mail, its commands, its
sender's verdict, what intake records); what it read is stored with the message, so that
processing, a retry after a failed transaction and the next process after a restart take
it as it is. The message is read again only when nothing usable was kept (mail stored
before readings were kept, or kept by other code or under another policy). The module is
called through its attribute, never imported by name, so that a test counts every read.
Intake reads with no rules at hand: a proposal that names a rule by its title alone has its
commands read again, with the game's rules, when it is applied (``read_with_rules``).
"""

from __future__ import annotations

from speakerbot.adapters.store import InboundRow
from speakerbot.config import Settings
from speakerbot.engine import GameState
from speakerbot.mail.inbound import intake as reader
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.intake import Reading, ReadingPolicy
from speakerbot.mail.inbound.reading import InboundMail
from speakerbot.service.deps import Deps
from speakerbot.service.policy import Received
from speakerbot.service.unit_of_work import UnitOfWork


def reading_policy(deps: Deps) -> ReadingPolicy:
    """Return the game's rules for reading its mail, as its settings stand now."""
    settings = deps.settings
    game = settings.game
    return ReadingPolicy(game.admin_password or "", settings.limits.max_message_size,
                         settings.limits.max_command_lines, deps.identity.loop_token,
                         deps.auth_policy, tuple(a for a in (game.address, game.list) if a))


def read_received(deps: Deps, message: Received) -> tuple[Reading, bytes | None]:
    """Read a message as received: return the reading, and the form kept with it.

    The kept form is None when the reading cannot be written (the message is then read
    again when it is processed).
    """
    policy = reading_policy(deps)
    reading = reader.read_inbound(message.raw, message.received_at, policy)
    return reading, reader.encode_reading(reading, policy)


def read_stored(deps: Deps, row: InboundRow) -> Reading:
    """Return what was read of a stored message: kept with it, or read again if need be."""
    return reader.reading_of(row.raw, row.reading, row.received_at, reading_policy(deps))


def reading_in(uow: UnitOfWork, deps: Deps, row: InboundRow) -> Reading:
    """Return what was read of a stored message, read at most once in this transaction.

    What intake read in the same transaction is taken as it is; otherwise the kept reading
    (or the bytes, if none can be used), once: the message being processed may be listed
    again in a request for confirmation, or released by a CONFIRM in the same batch.
    """
    reading = uow.known.get(row.id)
    if reading is None:
        reading = uow.known[row.id] = read_stored(deps, row)
    return reading


def read_with_rules(deps: Deps, mail: InboundMail, parsed: lang.ParseResult,
                    state: GameState) -> lang.ParseResult:
    """Return a message's commands read with the game's rules in hand, where it needs them.

    At intake the state is not at hand (and may move before the message is applied), so a
    proposal's change naming a rule by its title alone was quoted back. Applied to
    ``state``, such a message is read again, as intake read it, with the title of each rule
    in effect: the change is that rule's when one rule has the title, and is quoted back
    naming the candidates otherwise. Any other message is taken as intake read it.
    """
    if mail.problem or not lang.wants_titles(parsed.commands):
        return parsed
    titles = {number: rule.title for number, rule in state.rules.items()}
    return lang.parse_commands(mail.subject, mail.body, titles=titles,
                               max_command_lines=deps.settings.limits.max_command_lines)


def is_known(settings: Settings, state: GameState, sender: str) -> bool:
    """Whether mail from ``sender`` may be answered in full: a player, the host, the Speaker."""
    player = state.players.get(sender)
    return (player is not None and player.active) or sender in (
        settings.game.speaker, state.speaker, state.host)
