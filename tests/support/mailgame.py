"""A game run by the real GameService on a real SQLite store, fed raw email bytes.

Shared by the service mail tests and the sealed-ballot property test: settings built with
``parse_settings``, a clock the test moves, raw messages built with the standard library,
and the outbox read back and parsed as a mail client would. Also the check that a message
reveals no ballot but its recipient's own.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from speakerbot.adapters.store import OutboxRow, Store
from speakerbot.config import Settings, parse_settings
from speakerbot.engine import commands as c
from speakerbot.service import GameService, Processed

GAME = "nomic@camford.example"
LIST = "players@camford.example"
NAME = "Camford Nomic"
TAG = f"[{NAME}]"
SPEAKER = "chuck@example.org"
PASSWORD = "tea-and-biscuits-42"
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
ALICE, BOB, CAROL, DAVE = (f"{n}@example.org" for n in ("alice", "bob", "carol", "dave"))
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", DAVE: "Dave", SPEAKER: "Chuck"}
FAR_FUTURE = datetime(2100, 1, 1, tzinfo=UTC)
MX = "mx.camford.example"
"""The authserv-id of the game's own receiving server, trusted by the test games."""

_numbers = itertools.count(1)


# The mechanics of newer features that would change what tests of other behaviour see (a
# debate before every vote in the turn-based presets): games keep them off unless a test
# names them in ``mechanics``.
OTHER_BEHAVIOUR: dict[str, str] = {"debate": "none", "turn_period": "none"}


def make_settings(folder: Path, ruleset: str, *, list_address: str | None = None,
                  limits: Mapping[str, Any] | None = None,
                  mechanics: Mapping[str, Any] | None = None,
                  auth: Mapping[str, Any] | None = None,
                  site: Mapping[str, Any] | None = None,
                  open_registration: bool = True,
                  game_keys: Mapping[str, Any] | None = None) -> Settings:
    """Build checked settings for a game whose database lives in ``folder``.

    ``game_keys``: more keys of [game] (``digest_time``, ``timezone``...).
    """
    game: dict[str, Any] = {
        "name": NAME, "ruleset": ruleset, "address": GAME, "speaker": SPEAKER,
        "speaker_name": "Chuck", "admin_password": PASSWORD,
        "open_registration": open_registration, **dict(game_keys or {}),
    }
    if list_address is not None:
        game["list"] = list_address
    data: dict[str, Any] = {
        "game": game,
        "mechanics": {**OTHER_BEHAVIOUR, **dict(mechanics or {})},
        "database": {"url": f"sqlite:///{folder / 'game.db'}"},
        "smtp": {"host": "127.0.0.1", "port": 25, "security": "none"},
        "auth": {"require": "dmarc", "authserv_id": [MX], **dict(auth or {})},
    }
    if limits:
        data["limits"] = dict(limits)
    if site:
        data["site"] = dict(site)
    return parse_settings(data, path=folder / "speakerbot.toml", environ={})


class Clock:
    """The service's clock: stands still until the test moves it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def raw_mail(sender: str, subject: str, body: str, *, message_id: str | None = None,
             to: str = GAME, headers: Iterable[tuple[str, str]] = (),
             date: datetime = T0, authenticated: bool = True) -> bytes:
    """Build a plain-text message as a player's mail client would send it.

    ``authenticated``: the game's receiving server (``MX``) vouches for the From address in
    an Authentication-Results header at the top, as it would for a DMARC-passing sender.
    """
    message = EmailMessage()
    if authenticated:
        domain = sender.partition("@")[2]
        message["Authentication-Results"] = (f"{MX}; dkim=pass header.d={domain}; "
                                             f"dmarc=pass header.from={domain}")
    message["From"] = f"{NAMES.get(sender, 'Someone')} <{sender}>"
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = date.strftime("%a, %d %b %Y %H:%M:%S +0000")
    message["Message-ID"] = message_id or new_message_id(sender)
    for name, value in headers:
        message[name] = value
    message.set_content(body)
    return message.as_bytes(policy=policy.SMTP)


def new_message_id(sender: str) -> str:
    return f"<m{next(_numbers)}.{random.randrange(10**9)}@{sender.partition('@')[2]}>"


@dataclass(frozen=True)
class Mail:
    """A message from the outbox, parsed."""

    row: OutboxRow
    message: EmailMessage
    body: str

    @property
    def recipients(self) -> tuple[str, ...]:
        return self.row.recipients

    @property
    def subject(self) -> str:
        return " ".join(str(self.message["Subject"]).split())

    def header(self, name: str) -> str | None:
        value = self.message[name]
        return None if value is None else str(value)


def read_mail(row: OutboxRow) -> Mail:
    message = BytesParser(policy=policy.default).parsebytes(row.raw)
    assert isinstance(message, EmailMessage)
    part = message.get_body(("plain",))
    assert part is not None, row.message_id
    text = part.get_content()
    assert isinstance(text, str)
    return Mail(row, message, text.replace("\r\n", "\n"))


@dataclass(frozen=True)
class Received:
    """A message handed to the service: its Message-ID, its inbound row, its bytes."""

    message_id: str
    inbound_id: int
    raw: bytes


class MailGame:
    """One game: a store, a service, a clock; mail in as bytes, mail out from the outbox."""

    def __init__(self, folder: Path, ruleset: str, players: Sequence[str] = (), *,
                 seed: int = 1, imported: Path | None = None, renderer: Any = None,
                 **options: Any) -> None:
        """Start the game; ``imported``: from this snapshot (``speakerbot import``) instead.

        ``renderer``: the announcements' renderer from the start (the golden tests' own).
        """
        self.settings = make_settings(folder, ruleset, **options)
        self.store = Store(self.settings.database.url)
        self.store.upgrade()
        self.clock = Clock(T0)
        self.service = GameService(self.store, self.settings, rng=random.Random(seed),
                                   clock=self.clock)
        if renderer is not None:
            self.service.announcer.renderer = renderer
        if imported is None:
            self.service.start_game()
        else:
            self.service.import_game(imported)
        for address in players:
            self.service.speaker_command(c.AddPlayer(SPEAKER, address, NAMES[address]))
        if players:
            self.service.tick()  # the host's additions are announced at the next tick

    def close(self) -> None:
        self.store.close()

    def receive(self, sender: str, subject: str, body: str, *,
                after: timedelta = timedelta(minutes=1), **options: Any) -> Received:
        """Store one message received ``after`` the last one."""
        self.clock.now += after
        message_id = str(options.pop("message_id", None) or new_message_id(sender))
        raw = raw_mail(sender, subject, body, message_id=message_id, date=self.clock.now,
                       **options)
        stored = self.service.receive(raw, self.clock.now, source="test")
        return Received(message_id, stored.id, raw)

    def send(self, sender: str, subject: str, body: str, **options: Any) -> Received:
        """Receive one message and process everything pending."""
        received = self.receive(sender, subject, body, **options)
        self.service.process_pending()
        return received

    def process(self) -> list[Processed]:
        return self.service.process_pending()

    def outbox(self) -> list[Mail]:
        """Every message queued so far, in the order queued."""
        rows = self.store.due_outbox(FAR_FUTURE, limit=1_000_000)
        return [read_mail(row) for row in sorted(rows, key=lambda row: row.id)]

    def replies_to(self, message_id: str) -> list[Mail]:
        """The messages queued in answer to one inbound message (reply or notice)."""
        return [mail for mail in self.outbox()
                if mail.header("In-Reply-To") == message_id]


MakeMailGame = Callable[..., MailGame]
"""Makes a ``MailGame``: the ruleset, the players, and ``make_settings``'s options."""


@contextmanager
def mail_games(folder: Path) -> Iterator[MakeMailGame]:
    """Make games, each in a folder of its own under ``folder``; every one is closed at the end.

    A game is nomicam with Alice, Bob and Carol unless the ruleset and players are given.
    """
    games: list[MailGame] = []

    def make(ruleset: str = "nomicam", players: Sequence[str] = (ALICE, BOB, CAROL),
             **options: Any) -> MailGame:
        game_folder = folder / f"game{len(games)}"
        game_folder.mkdir()
        game = MailGame(game_folder, ruleset, players, **options)
        games.append(game)
        return game

    try:
        yield make
    finally:
        for game in games:
            game.close()


# --- Sealed ballots -------------------------------------------------------------------------

_CHOICE = re.compile(r"\b(FOR|AGAINST)\b")
_STATED = re.compile(r"\b(?:is|was|voted|votes)\s+(FOR|AGAINST)\b")


def ballot_leaks(body: str, recipients: Sequence[str], voters: Mapping[str, str],
                 cast: Mapping[str, set[str]] | None = None) -> list[str]:
    """Return what in ``body`` may reveal a ballot that is not its sole recipient's own.

    ``voters`` maps each voter's address to their display name; ``cast`` (optional) maps an
    address to the choices that voter really cast. A message to one person may state that
    person's own ballot (and only a choice they cast); a message to several people, or to a
    list, states none. No line may name another voter next to FOR or AGAINST.
    """
    own = recipients[0] if len(recipients) == 1 else None
    problems: list[str] = []
    for line in body.splitlines():
        if not _CHOICE.search(line):
            continue
        for address, name in voters.items():
            if address == own:
                continue
            if re.search(rf"\b{re.escape(name)}\b", line) or address in line:
                problems.append(f"{name}'s ballot? {line!r}")
    flat = " ".join(body.split())
    for match in _STATED.finditer(flat):
        if own is None or own not in voters:
            problems.append(f"a ballot stated to {recipients}: {match.group(0)!r}")
        elif cast is not None and match.group(1) not in cast.get(own, set()):
            problems.append(f"a choice {own} never cast: {match.group(0)!r}")
    return problems
