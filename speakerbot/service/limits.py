"""The limits on commands that make public mail: CFJs a day, revisions of a proposal, JOINs.

Each of these commands sends a message to every player, so one message (or one domain's
worth of addresses) could otherwise make the Speaker flood the game: 200 CFJ lines were 200
mails to every player. Like the proposals' limit, each is counted here, in the service, from
the state the record folds into (the engine knows no configuration): the one too many is
refused with the limit named, and the message's usual all-or-nothing rule does the rest.
The host's desk and ADMIN ADD are not limited, and players they add do not count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from speakerbot.config import LimitsSettings
from speakerbot.engine import GameState
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.authentication import organizational_domain
from speakerbot.mail.outbound.replies import command_text
from speakerbot.service.policy import day_start

Error = tuple[int, str, str]
"""A refused command: its line, its text, and why."""

TOMORROW = "send it again tomorrow (UTC)"


def public_limit_errors(limits: LimitsSettings, state: GameState, sender: str,
                        commands: Sequence[lang.Command], received: datetime) -> list[Error]:
    """Refuse the first CFJ, REVISE or JOIN of a message beyond its limit (empty: none is)."""
    day = day_start(received)
    return (cfj_limit_errors(limits, state, sender, commands, day)
            or revise_limit_errors(limits, state, commands)
            or join_limit_errors(limits, state, sender, commands, day))


def cfj_limit_errors(limits: LimitsSettings, state: GameState, sender: str,
                     commands: Sequence[lang.Command], day: datetime) -> list[Error]:
    """Refuse calls for judgement beyond ``[limits] cfj_per_day`` from one player."""
    calls = [command for command in commands if isinstance(command, lang.Cfj)]
    if not calls:
        return []
    limit = limits.cfj_per_day
    today = sum(1 for cfj in state.cfjs.values() if cfj.caller == sender and cfj.called_at >= day)
    if today + len(calls) <= limit:
        return []
    extra = calls[max(0, limit - today)]
    done = f"you have called for judgement {_times(today)} today"
    over = _Over(today, len(calls), limit, ("call for judgement", "calls for judgement"),
                 "a day", "cfj_per_day")
    return [(extra.line, command_text(extra), over.say(done) + "; " + TOMORROW)]


def revise_limit_errors(limits: LimitsSettings, state: GameState,
                        commands: Sequence[lang.Command]) -> list[Error]:
    """Refuse revisions of a proposal beyond ``[limits] revise_per_proposal``."""
    revisions: dict[int, list[lang.Revise]] = defaultdict(list)
    for command in commands:
        if isinstance(command, lang.Revise):
            revisions[command.proposal].append(command)
    limit = limits.revise_per_proposal
    for number, asked in revisions.items():
        proposal = state.proposals.get(number)
        done = proposal.revisions if proposal is not None else 0
        if done + len(asked) > limit:
            extra = asked[max(0, limit - done)]
            said = f"proposal {number} has been revised {_times(done)}"
            over = _Over(done, len(asked), limit,
                         (f"revision of proposal {number}", f"revisions of proposal {number}"),
                         "for one proposal", "revise_per_proposal")
            return [(extra.line, command_text(extra),
                     over.say(said) + "; say what is left in a DEBATE, or propose it anew")]
    return []


def join_limit_errors(limits: LimitsSettings, state: GameState, sender: str,
                      commands: Sequence[lang.Command], day: datetime) -> list[Error]:
    """Refuse a JOIN beyond ``[limits] join_per_domain_per_day`` from the sender's domain.

    Only players who joined by mail count: the Speaker's additions are neither limited nor
    counted. The domain is the registrable one, so subdomains share one count.
    """
    joins = [command for command in commands if isinstance(command, lang.Join)]
    if not joins:
        return []
    limit = limits.join_per_domain_per_day
    domain = organizational_domain(sender)
    today = sum(1 for player in state.players.values()
                if not player.by_speaker and player.joined_at is not None
                and player.joined_at >= day and organizational_domain(player.address) == domain)
    if today + len(joins) <= limit:
        return []
    extra = joins[max(0, limit - today)]
    said = f"{today} {'player has' if today == 1 else 'players have'} joined from {domain} today"
    over = _Over(today, len(joins), limit, ("JOIN", "JOINs"), "a day from one domain",
                 "join_per_domain_per_day")
    return [(extra.line, command_text(extra), over.say(said) + "; " + TOMORROW)]


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


@dataclass(frozen=True)
class _Over:
    """A limit passed: ``done`` before the message, ``asked`` in it, and the limit's key."""

    done: int
    asked: int
    limit: int
    noun: tuple[str, str]  # one, several
    per: str
    key: str

    def say(self, done: str) -> str:
        """Say why the command is refused, naming the limit's key in ``[limits]``."""
        named = f"([limits] {self.key})"
        if self.asked == 1 and self.done == self.limit:
            return f"{done}, the limit {named}"
        this = f"this message makes {self.asked} {self.noun[self.asked > 1]}"
        if self.done:
            this = f"{done}, and {this} more"
        return f"{this}: the limit is {self.limit} {self.per} {named}"
