"""A big game starts at once: sixty players added by the host, then four proposals.

Through the running daemon, real Dovecot and a real SMTP sink, SQLite and PostgreSQL (and
the desk's rules in detail through the GameService on SQLite, at the end). The
host adds sixty players with ``speakerbot player add`` (two from the command line itself,
the rest in one process as it does, one transaction each) before the daemon starts. The
additions are the host's: they are announced together, in one public message, and they do
not count toward ``[limits] public_per_hour`` (60). Before, each addition was a public mail
of its own (3,660 copies), the sixty filled the hour's limit, and the first proposals were
kept back to be gathered at the end of the clock hour: none went out within a minute.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path

from speakerbot.config import load_settings
from speakerbot.engine import commands as c
from speakerbot.service import GameService
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, body_of, subject_of
from tests.support.mailgame import ALICE, BOB, PASSWORD, MailGame
from tests.support.mailgame import SPEAKER as HOST
from tests.support.patience import patience
from tests.support.smtp_sink import CapturedMessage, SmtpSink

PLAYERS = tuple(f"player{n:02}@players.test" for n in range(60))
EVERYONE = (*PLAYERS, SPEAKER)
PROPOSALS = ("Proposal 301: Tea", "Proposal 302: Cake", "Proposal 303: Scones",
             "Proposal 304: Jam")
OVERRIDE = "Speaker's override"


def _add_players(game: RunningGame) -> None:
    """Add the players as ``speakerbot player add`` does: each in a transaction of its own."""
    for number, address in enumerate(PLAYERS[:2]):
        game.cli("player", "add", address, f"Player {number}")
    with GameService.open(load_settings(game.config), rng=random.Random(1)) as service:
        host = service.state().speaker
        for number, address in enumerate(PLAYERS[2:], start=2):
            service.speaker_command(c.AddPlayer(host, address, f"Player {number}"))


class Copies:
    """Who got the mail whose Subject holds each fragment, and how often.

    The sink asks a wait's predicate of every message it holds, under its lock, each time
    one comes: each message is read once here, and the answer kept up to date, so that the
    wait costs the sink (and the daemon sending to it) next to nothing.
    """

    def __init__(self, fragments: tuple[str, ...], awaited: tuple[str, ...]) -> None:
        self.counts: dict[str, Counter[str]] = {fragment: Counter() for fragment in fragments}
        self.awaited = awaited
        self.read: set[int] = set()
        self.missing = len(awaited) * len(EVERYONE)  # (fragment, address) not reached yet

    def take(self, message: CapturedMessage) -> bool:
        """Count ``message`` once; say whether everyone has every awaited fragment."""
        if id(message) not in self.read:
            self.read.add(id(message))
            subject = subject_of(message)
            for fragment, counted in self.counts.items():
                if fragment in subject:
                    for address in message.rcpt_tos:
                        first = not counted[address]
                        counted[address] += 1
                        if first and fragment in self.awaited and address in EVERYONE:
                            self.missing -= 1
        return self.missing == 0

    def of(self, sink: SmtpSink, fragment: str) -> Counter[str]:
        """Return how many copies of ``fragment``'s mail each address got, all read."""
        for message in sink.messages:
            self.take(message)
        return self.counts[fragment]


def test_a_sixty_player_game_set_up_with_player_add_distributes_at_once(
        make_game: MakeGame, smtp_sink: SmtpSink) -> None:
    game = make_game("nomicam", {"reminder_before": "none", "win_points": "1000"})
    game.cli("init")
    _add_players(game)
    assert set(PLAYERS) <= set(game.state().players)
    game.start()
    game.wait_log("running the game")
    copies = Copies((*PROPOSALS, OVERRIDE), PROPOSALS)
    issued = time.monotonic()
    for number, subject in enumerate(PROPOSALS):
        title = subject.split(": ", 1)[1]
        game.send(PLAYERS[number], f"PROPOSE: {title}", f"{title} at four.\n")
    # Within a minute (on a quiet machine) every player has each of the four.
    game.wait_for(copies.take, timeout=patience(60))
    took = time.monotonic() - issued
    # A reply queued after them goes after them: once it is here, nothing is on its way.
    game.send(PLAYERS[5], "help", "HELP\n")
    game.wait_subject("Re: help", to=PLAYERS[5])
    for subject in PROPOSALS:
        assert copies.of(smtp_sink, subject) == Counter(EVERYONE), subject  # one copy each
    # The sixty additions were announced together: one message, one copy to each.
    [added] = game.sent(OVERRIDE)
    assert copies.of(smtp_sink, OVERRIDE) == Counter(EVERYONE)
    text = " ".join(body_of(added).split())
    assert all(f"Player {number} joined the game" in text for number in range(len(PLAYERS)))
    assert "60 players" in subject_of(added)
    # Nothing was kept back to be gathered.
    assert not game.copies("gathered")
    assert game.stop() == 0
    print(f"the four distributions reached all {len(EVERYONE)} in {took:.1f} s")


def _public(game: MailGame) -> list[str]:
    """The Subjects of the public mail queued so far (to go, or kept to be gathered)."""
    return [mail.subject.split("] ", 1)[1] for mail in game.outbox()
            if mail.row.kind == "announcement"] + (
        [f"{game.store.outbox_summary().gathered} kept"]
        if game.store.outbox_summary().gathered else [])


def test_the_hosts_additions_from_the_desk_are_one_message_that_the_hour_does_not_count(
        tmp_path: Path) -> None:
    # Through the GameService on SQLite, [limits] public_per_hour = 1.
    game = MailGame(tmp_path, "nomicam", limits={"public_per_hour": 1})
    try:
        game.service.speaker_command(c.AddPlayer(HOST, ALICE, "Alice"))  # player add
        game.service.host_command(["ADD", BOB, "Bob"])  # speakerbot admin ADD
        game.service.host_command(["ADD", "carol@example.org", "Carol"])
        assert set(game.service.state().players) >= {ALICE, BOB, "carol@example.org"}
        assert _public(game) == []  # recorded at once, announced at the next tick
        game.service.tick()
        game.service.tick()  # and only once
        assert _public(game) == ["Speaker's override: added 3 players"]
        # The host's announcement did not fill the hour: the first proposal goes at once.
        game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
        assert _public(game)[1:] == ["Proposal 301: Tea"]
        # Nor does a score the host changes: it goes by itself, and is not kept.
        game.service.host_command(["SCORE", ALICE, "+1", "tea"])
        assert _public(game)[2:] == ["Speaker's override: changed Alice's score by +1: tea"]
        # A player's next public mail is over the hour's one, and kept: the host's next
        # override waits behind it, rather than overtake it.
        game.send(BOB, "PROPOSE: Cake", "Cake at five.\n")
        game.service.host_command(["SCORE", BOB, "+1", "cake"])
        assert _public(game)[3:] == ["2 kept"]
        # Several ADMIN ADD lines in one message by mail: one announcement too.
        adds = "".join(f"ADMIN ADD d{n}@example.org D{n}\n" for n in range(3))
        game.send(HOST, "adds", f"PASSWORD {PASSWORD}\n{adds}")
        assert _public(game)[3:] == ["3 kept"]
    finally:
        game.close()
