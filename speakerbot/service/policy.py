"""The Speaker's policies as data, and small pure helpers: retry delays, limits, windows."""


from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Generic, TypeVar

# Declared beside Arrival, which the store's InboundItem extends too (a service class
# extends no project class); the service and its callers name it from here.
from speakerbot.adapters.arrival import Received as Received
from speakerbot.config import GameSettings
from speakerbot.engine import events as e
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.outbound.wording import refusal_text
from speakerbot.mail.verp import token_of

log = logging.getLogger("speakerbot.service")

_Game = TypeVar("_Game")

class ServiceError(Exception):
    """Something the operator must fix (no game yet, a game already there...)."""

@dataclass(frozen=True)
class Processed:
    """What became of one inbound message."""

    inbound_id: int
    status: str  # processed | skipped | held | retry | set_aside
    applied: bool

def routes_to_game(address: str, game: GameSettings) -> bool:
    """Whether mail to ``address`` comes to the game itself, so that it can be no player.

    The game's own address, its list's, or either with a ``+tag`` on its local part (as
    ``game+x@`` is delivered to ``game@`` by the usual mail servers). Compared in lower
    case, as every address is: the config and the mail reader lower-case them. Also the
    game's return paths (VERP), which drop a ``+tag`` of its address: bounces to a game at
    ``game+x@`` come to ``game+bounce-...@``.
    """
    if token_of(address, game.address) is not None:
        return True
    local, _, domain = address.strip().lower().rpartition("@")
    for own in (game.address, game.list):
        own_local, _, own_domain = (own or "").lower().rpartition("@")
        if own_local and domain == own_domain and (
                local == own_local or local.startswith(own_local + "+")):
            return True
    return False


class GameRoutes(Generic[_Game]):
    """The games of a host, found by the addresses mail is for (``routes_to_game``).

    A recipient is compared only with the games whose address or list has its key (its
    local part up to the first ``+``, in lower case), not with every game of the host.
    """

    def __init__(self, games: Sequence[tuple[GameSettings, _Game]]) -> None:
        self._games = list(games)
        self._by_key: dict[str, list[int]] = {}
        for index, (game, _) in enumerate(self._games):
            for key in {_route_key(own) for own in (game.address, game.list) if own}:
                self._by_key.setdefault(key, []).append(index)

    def games_for(self, recipients: Iterable[str]) -> list[_Game]:
        """Return the games ``recipients`` address, each once, in the order given."""
        wanted = list(recipients)
        candidates = sorted({index for address in wanted
                             for index in self._by_key.get(_route_key(address), ())})
        return [self._games[index][1] for index in candidates
                if any(routes_to_game(address, self._games[index][0]) for address in wanted)]


def _route_key(address: str) -> str:
    # Every address routes_to_game takes for a game's (its own, its list's, either with a
    # +tag, its return paths) shares this key with the game's address or its list's.
    local = address.strip().removeprefix("<").removesuffix(">").strip().rpartition("@")[0]
    return local.partition("+")[0].lower()


def not_a_player(address: str, game: GameSettings) -> str | None:
    """Why ``address`` may not be a player (None: it may): it is the game's own."""
    if not routes_to_game(address, game):
        return None
    return (f"{address.strip().lower()} is an address of the game itself (mail to it comes "
            "back to the game, and mail from it is never acted on), so it cannot be a player")


RETRY_DELAYS = (30.0, 60.0, 120.0, 240.0, 480.0)

"""Seconds a failing message waits before each retry: 15.5 minutes in all, then set aside."""

UNFINISHED_STARTS = 3

"""A message whose processing began this often and never finished is set aside (poison)."""

ADMIN_DATE_SKEW = timedelta(days=1)

"""ADMIN mail must be dated within this of its arrival: an old message replayed is not obeyed."""

HELD_LISTED = "held for confirmation"

HELD_WAITING = "held until a request may be sent"

CODE_ANYWHERE = re.compile(r"CONFIRM\s+([0-9A-Fa-f]{32})\b")

REPLY_KINDS = ("reply", "limit")
"""What counts against a sender's daily replies: replies, and the one notice that the limit is
reached. Notices the game sends the Speaker (action needed, set aside) do not."""
ANSWER_KINDS = frozenset({"reply", "limit", "notice", "stranger", "confirm"})
"""Mail sent after the game's public business (results, distributions, reminders) when both
are due at once: a flood of replies must not hold back a vote's results."""
STRANGER_KINDS = ("stranger", "confirm")

"""What an address that is no player may get from us: one of these a day, in all."""

WRONG_PASSWORDS = 5

"""This many wrong passwords within an hour close ADMIN by mail for an hour."""

# Commands that change nothing and whose answer goes only to the From address's real owner.
NEEDS_NO_TRUST = (lang.Status, lang.Rules, lang.Scores, lang.Help, lang.Confirm, lang.Show,
                   lang.History)

TICK_BUDGET = 20
"""The most a transaction settles of what time brought (votes closed, reminder rounds...).

A backlog (an outage, a hundred votes closing at once) is settled in transactions of this
many things, the lock let go between them, so that mail is taken in meanwhile; a message
that arrives behind a backlog waits until the deadlines before it are settled."""

GIVE_WAY_SECONDS = 5.0
"""The longest a backlog being settled waits between its transactions for mail to come in."""

DEFERRED = "deferred"
"""A message left to wait while the deadlines before it are settled (it stays stored)."""

LOOKUPS_PER_MESSAGE = 10
"""A message's first this many lookups (SHOW, HISTORY) are answered, the same one once: a
reply must not grow with the number of lines the sender wrote."""

def describe(error: BaseException) -> str:
    """Describe an error for the inbound table: one line, no NUL, at most 500 characters."""
    text = f"{type(error).__name__}: {error}".replace("\x00", "\\0")
    text = " ".join(text.split())
    return text if len(text) <= 500 else text[:497] + "..."

def printable(sender: str | None) -> str | None:
    """Return the sender if it can be stored as it is (no control characters), else None."""
    if sender is None or not sender.isprintable():
        return None
    return sender

def day_start(moment: datetime) -> datetime:
    """Return the start of ``moment``'s day (UTC): daily limits count from it."""
    return moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)

def quoted(subject: str) -> str:
    """Quote a subject as a reply names it: in quotes, cut short (it is the sender's text)."""
    text = " ".join(subject.split()) or "(no subject)"
    return f"\"{text if len(text) <= 60 else text[:57] + '...'}\""

def raise_rejection(events: Sequence[e.Event]) -> None:
    """Raise ``ServiceError`` with the refusal's words if the engine rejected the command."""
    for event in events:
        if isinstance(event, e.CommandRejected):
            reason, remedy = refusal_text(event)
            raise ServiceError(f"{reason} ({remedy})" if remedy else reason)


PUBLIC_WINDOW = timedelta(hours=1)
"""The public mail counted against the limit: what was queued this long before."""
PUBLIC_KINDS = ("announcement",)
"""The outbox kinds of public mail (to every player, or the list)."""


def gathered_until(now: datetime) -> datetime:
    """Return when public mail kept ``now`` is gathered: the end of its clock hour."""
    return now.replace(minute=0, second=0, microsecond=0) + PUBLIC_WINDOW


@dataclass
class PublicGate:
    """The hour's public mail as one transaction sees it: counted once, then kept up to date."""

    limit: int
    sent: int  # public messages queued to go by themselves within the window
    waiting: bool  # public messages are kept, waiting to be gathered

    def hold(self) -> bool:
        """Whether the next public message is kept to be gathered (else it counts as sent)."""
        if self.waiting or self.sent >= self.limit:
            self.waiting = True
            return True
        self.sent += 1
        return False
