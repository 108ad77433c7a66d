"""What every handler may need that outlives a transaction: the game's dependencies.

One ``Deps`` per game: its store and settings, its sources of chance, time and secrets,
the writers of its mail, and its cached state with the lock its transactions hold.
Handlers take it as an argument, beside the unit of work they run in.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar, cast

from speakerbot.adapters.store import InboundItem, Store, StoredInbound
from speakerbot.config import Settings
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.authentication import AuthPolicy
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import GameIdentity, Renderer
from speakerbot.mail.outbound.replies import ReplyWriter
from speakerbot.resources import templates_dir
from speakerbot.service.crashpoints import NO_CRASHES, CrashPoints
from speakerbot.service.grouping import GroupCommit
from speakerbot.service.policy import RETRY_DELAYS
from speakerbot.service.states import States


def now_utc() -> datetime:
    """Return the time now, in UTC: the clock of a game run for real."""
    return datetime.now(UTC)


def new_secret() -> str:
    """Return a code or Message-ID key for a request for confirmation: 128 random bits."""
    return secrets.token_hex(16)


class Entropy(Protocol):
    """Where the game's secret seeds come from (``random.SystemRandom`` when run for real)."""

    def getrandbits(self, k: int, /) -> int:
        """Return ``k`` random bits."""
        ...

    def randrange(self, start: int, /) -> int:
        """Return a whole number below ``start`` (a draw no seed can prove)."""
        ...


@dataclass
class Deps:
    """The long-lived parts of one game's service, passed to every handler."""

    store: Store
    settings: Settings
    rng: Entropy
    clock: Callable[[], datetime]
    identity: GameIdentity
    announcer: Announcer
    replies: ReplyWriter
    auth_policy: AuthPolicy
    states: States
    retry_delays: tuple[float, ...] = RETRY_DELAYS
    new_secret: Callable[[], str] = field(default=new_secret)
    crashpoints: CrashPoints = NO_CRASHES
    intake_commits: GroupCommit[InboundItem, StoredInbound] = field(default_factory=GroupCommit)


def game_deps(store: Store, settings: Settings, *, rng: Entropy,
              clock: Callable[[], datetime] = now_utc,
              crashpoints: CrashPoints = NO_CRASHES) -> Deps:
    """Gather what the game on ``store`` under ``settings`` needs, once."""
    game = settings.game
    secret = store.message_id_secret() if store.is_initialised() else ""
    identity = GameIdentity(game.name, game.address, game.list, secret, settings.site.url)
    renderer = Renderer(templates_dir())
    # The Speaker's notice names the way the host can send overrides: ADMIN by mail only
    # with an admin password (else it is refused), ``speakerbot admin`` otherwise.
    announcer = Announcer(identity, renderer, admin_by_mail=game.admin_password is not None)
    return Deps(store, settings, rng, clock, identity, announcer,
                ReplyWriter(renderer, lang.help_text, game_name=identity.name),
                AuthPolicy(settings.auth.require, settings.auth.authserv_id),
                States(store, settings.database.snapshot_every), crashpoints=crashpoints)


T = TypeVar("T")


class FromDeps(Generic[T]):
    """An attribute of a front that is its dependencies' own: read and set in ``deps``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, front: Any, owner: type | None = None) -> T:
        return cast(T, getattr(front.deps, self.name))

    def __set__(self, front: Any, value: T) -> None:
        setattr(front.deps, self.name, value)
