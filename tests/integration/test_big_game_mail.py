"""A big game's public mail through the running daemon and a relay that takes 50 recipients.

Real Dovecot, a real aiosmtpd sink answering ``452 4.5.3 Too many recipients`` after 50
recipients in one transaction, SQLite and PostgreSQL. The game is configured with
``[smtp] max_recipients = 80``. Each copy leaves from its recipient's own return path
(VERP), so each is a transaction of its own and the relay's limit never bites: every
distribution must still reach every player exactly once, and no message may carry more than
one player's address in To or Cc. (The relay's "too many" is met by the SMTP adapter alone,
below, and by the outbox without VERP in ``tests/unit/test_chunks.py``.)
"""

from __future__ import annotations

import random
from collections import Counter

from speakerbot.adapters.smtp import SmtpSender, SmtpSettings
from speakerbot.config import load_settings
from speakerbot.engine import commands as c
from speakerbot.service import GameService
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, subject_of
from tests.support.patience import patience
from tests.support.smtp_sink import CapturedMessage, SmtpSink

PLAYERS = tuple(f"player{n:02}@players.test" for n in range(64))
EVERYONE = (*PLAYERS, SPEAKER)
LIMIT = 50


def test_the_relay_says_too_many_and_the_rest_are_left_for_the_next_transaction(
        smtp_sink: SmtpSink) -> None:
    smtp_sink.limit_recipients(LIMIT)
    sender = SmtpSender(SmtpSettings(smtp_sink.host, smtp_sink.port, "none"))
    result = sender.send("game@x.test", PLAYERS, b"Subject: x\r\n\r\nHello\r\n")
    assert result.accepted == PLAYERS[:LIMIT] and result.over_limit == PLAYERS[LIMIT:]
    assert not result.deferred and not result.refused
    assert smtp_sink.wait_for(timeout=patience(5)).rcpt_tos == PLAYERS[:LIMIT]


class Reached:
    """Who got each subject, and how often, read from the sink's messages once each."""

    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink
        self.seen = 0
        self.by_subject: dict[str, Counter[str]] = {}

    def count(self, subject: str) -> Counter[str]:
        """Return how many times each address got ``subject`` (parsing only new messages)."""
        messages = self.sink.messages
        for message in messages[self.seen:]:
            self.by_subject.setdefault(subject_of(message), Counter()).update(message.rcpt_tos)
        self.seen = len(messages)
        return sum((counted for name, counted in self.by_subject.items() if subject in name),
                   Counter())

    def wait_everyone(self, game: RunningGame, subject: str,
                      timeout: float = patience(120)) -> None:
        """Wait until every player and the Speaker got ``subject`` at least once.

        Behind it in the outbox may be the 65 copies of the players' additions, each a
        transaction.
        """
        game.wait_for(lambda _: set(self.count(subject)) >= set(EVERYONE), timeout=timeout)


def _addresses_in_headers(message: CapturedMessage) -> list[str]:
    parsed = message.parsed()
    return [address.addr_spec.lower() for name in ("To", "Cc")
            for header in parsed.get_all(name, []) for address in header.addresses]


def _add_players(game: RunningGame) -> None:
    """Register the players in one process, as ``speakerbot player add`` does, one by one."""
    with GameService.open(load_settings(game.config), rng=random.Random(1)) as service:
        host = service.state().speaker
        for number, address in enumerate(PLAYERS):
            service.speaker_command(c.AddPlayer(host, address, f"Player {number}"))


def test_a_big_game_gets_every_distribution_once_per_player_one_copy_each(
        make_game: MakeGame, smtp_sink: SmtpSink) -> None:
    game = make_game("nomicam", {"reminder_before": "none", "win_points": "1000"})
    # This test is about public mail going to everyone in chunks, not about its being
    # gathered beyond [limits] public_per_hour.
    game.config.write_text(game.config.read_text() + "max_recipients = 80\n"
                           "\n[limits]\npublic_per_hour = 1000\n")
    game.cli("init")
    _add_players(game)
    # Before the daemon runs nothing waits: the players added are announced together, in
    # one message, at its first tick (test_big_game_start.py).
    status = game.cli("status").stdout
    assert "Outbox: 0 waiting" in status, status
    smtp_sink.limit_recipients(LIMIT)
    game.start()
    game.wait_log("running the game")
    game.send(PLAYERS[0], "PROPOSE: Tea", "Tea at four.\n")
    game.send(PLAYERS[1], "PROPOSE: Cake", "Cake at five.\n")
    reached = Reached(smtp_sink)
    for subject in ("Proposal 301: Tea", "Proposal 302: Cake"):
        reached.wait_everyone(game, subject)
    # A reply queued after them goes after them: once it is here, nothing is still on its way.
    game.send(PLAYERS[2], "help", "HELP\n")
    game.wait_subject("Re: help", to=PLAYERS[2])
    for subject in ("Proposal 301: Tea", "Proposal 302: Cake"):
        assert reached.count(subject) == Counter(EVERYONE), subject
    messages = smtp_sink.messages
    assert {len(message.rcpt_tos) for message in messages} == {1}
    assert not smtp_sink.refusals
    for subject in ("Proposal 301: Tea", "Proposal 302: Cake"):
        return_paths = [m.mail_from for m in messages if subject in subject_of(m)]
        assert len(set(return_paths)) == len(EVERYONE), subject
    known = {address.lower() for address in EVERYONE}
    for message in messages:
        named = [address for address in _addresses_in_headers(message) if address in known]
        assert len(named) <= 1, (subject_of(message), named)
