"""Attacks on the game's audience: observers and bounces where the cases meet.

Through the real GameService on SQLite, as ``test_audience_service.py`` does: an observer
who joins while public mail waits, mixed-case and forged senders, bounces in odd states.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from speakerbot.service.outbox import OutboxPolicy
from tests.integration.test_audience_service import (
    OLIVE,
    PADDING,
    make,
    observe,
    propose,
    to,
)
from tests.support.mailgame import ALICE, BOB, CAROL, LIST, MailGame
from tests.unit.test_outbox_verp import Relay

OSCAR = "oscar@watchers.example"
CODE = re.compile(r"CONFIRM ([0-9a-f]{32})\b")

@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    game = make(tmp_path)
    yield game
    game.close()


def delivered(game: MailGame) -> Relay:
    """Send everything due through a relay that takes it all; return the relay."""
    relay = Relay()
    game.service.send_outbox(relay, OutboxPolicy(give_up_after=86400.0), everything=True)
    return relay


def test_an_observer_who_joins_before_the_distribution_goes_still_gets_it(
        game: MailGame) -> None:
    observe(game)
    observe(game, OSCAR)
    distribution = propose(game, "Tea")
    assert distribution.row.observers == (OLIVE, OSCAR)
    game.send(OLIVE, "join", "JOIN Olive\n" + PADDING)
    relay = delivered(game)
    copies = {rcpt: raw for _, (rcpt,), raw in relay.sent
              if distribution.row.message_id.encode() in raw}
    assert b"List-Unsubscribe" not in copies[OLIVE], "she is a player now"
    assert b"List-Unsubscribe" in copies[OSCAR], "he still observes"


@pytest.mark.parametrize("sender", ["nomic@camford.example", "NOMIC@camford.example",
                                    "nomic+x@camford.example", "players+y@camford.example"])
def test_the_games_own_addresses_never_observe_nor_get_mail(tmp_path: Path,
                                                            sender: str) -> None:
    # Mail to nomic+x@ comes back to the game itself: asking it to confirm is mail to self.
    game = make_with_list(tmp_path)
    try:
        start = len(game.outbox())
        game.send(sender, "watching", "OBSERVE\n" + PADDING)
        assert not [mail for mail in game.outbox()[start:] if mail.row.kind == "confirm"]
        assert game.service.audience()[0] == {}
    finally:
        game.close()


def make_with_list(tmp_path: Path) -> MailGame:
    return MailGame(tmp_path, "nomicam", (ALICE, BOB, CAROL), list_address=LIST)


def test_an_unauthenticated_list_unsubscribe_click_is_asked_to_confirm(
        game: MailGame) -> None:
    # List-Unsubscribe's mailto sends a bare "Subject: UNOBSERVE": smaller than any
    # request for a code, yet it must not be dropped without a word to a subscriber.
    observe(game)
    game.clock.now += timedelta(days=1)
    start = len(game.outbox())
    game.send(OLIVE, "UNOBSERVE", "", authenticated=False)
    [request] = [mail for mail in to(game, OLIVE, start) if mail.row.kind == "confirm"]
    [code] = CODE.findall(request.body)
    game.send(OLIVE, "yes", f"CONFIRM {code}\n", authenticated=False)
    assert game.service.audience()[0] == {}
