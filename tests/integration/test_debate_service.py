"""Arguments through the GameService on a real SQLite store: forwarded to every player (or
the list) with the proposal's number in the subject, players only, and counted in the
sender's daily replies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.mailgame import ALICE, BOB, CAROL, LIST, SPEAKER, MakeMailGame, mail_games

ARGUMENT = "DEBATE 300\nSay which changes, please.\nEND DEBATE\n"


@pytest.fixture
def rurru(tmp_path: Path) -> Iterator[MakeMailGame]:
    """Makes rurru games with Alice, Bob and Carol, debated by the proponent."""
    with mail_games(tmp_path) as make:
        yield lambda **options: make("rurru", mechanics={"debate": "proponent"}, **options)


def test_an_argument_goes_to_every_player_with_the_proposals_number(rurru: MakeMailGame) -> None:
    game = rurru()
    game.send(ALICE, "PROPOSE: Changes", "ENACT RULE:\nTea.\n")
    before = len(game.outbox())
    sent = game.send(BOB, "my view", ARGUMENT)
    new = game.outbox()[before:]
    forwards = [mail for mail in new if "Debate on proposal 300" in mail.subject]
    assert len(forwards) == 1
    assert set(forwards[0].recipients) == {ALICE, BOB, CAROL, SPEAKER}
    assert "Say which changes, please." in forwards[0].body
    (reply,) = game.replies_to(sent.message_id)
    assert "is sent to every player" in " ".join(reply.body.split())


def test_with_a_list_the_argument_goes_to_the_list(rurru: MakeMailGame) -> None:
    game = rurru(list_address=LIST)
    game.send(ALICE, "PROPOSE: Changes", "ENACT RULE:\nTea.\n")
    game.send(BOB, "my view", ARGUMENT)
    forwards = [mail for mail in game.outbox() if "Debate on proposal 300" in mail.subject]
    assert [mail.recipients for mail in forwards] == [(LIST,)]


def test_a_stranger_cannot_argue(rurru: MakeMailGame) -> None:
    game = rurru(open_registration=False)
    game.send(ALICE, "PROPOSE: Changes", "ENACT RULE:\nTea.\n")
    before = len(game.outbox())
    game.send("mallory@example.net", "hi", ARGUMENT)
    assert not any("Debate on" in mail.subject for mail in game.outbox()[before:])


def test_each_argument_counts_as_one_of_the_days_replies(rurru: MakeMailGame) -> None:
    game = rurru(limits={"replies_per_day": 4})
    game.send(ALICE, "PROPOSE: Changes", "ENACT RULE:\nTea.\n")
    # Bob's first two messages: a reply each, and an argument each: 4 of 4 used.
    game.send(BOB, "one", ARGUMENT)
    game.send(BOB, "two", ARGUMENT)
    assert sum("Debate on" in mail.subject for mail in game.outbox()) == 2
    before = len(game.outbox())
    refused = game.send(BOB, "three", ARGUMENT)
    new = game.outbox()[before:]
    assert not any("Debate on" in mail.subject for mail in new)
    (reply,) = game.replies_to(refused.message_id)
    assert "each DEBATE counts as one of your 4 replies a day" in " ".join(reply.body.split())
    assert "0 left today" in " ".join(reply.body.split())
    # Two arguments in one message go out only if both fit (with the reply: 3 of 4).
    game.send(CAROL, "two at once", ARGUMENT + ARGUMENT)
    assert sum("Debate on" in mail.subject for mail in game.outbox()) == 4
    refused = game.send(CAROL, "two more", ARGUMENT + ARGUMENT)
    assert sum("Debate on" in mail.subject for mail in game.outbox()) == 4
    (reply,) = game.replies_to(refused.message_id)
    assert "you have 0 left today" in " ".join(reply.body.split())
