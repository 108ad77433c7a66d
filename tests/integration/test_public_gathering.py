"""Public mail beyond ``[limits] public_per_hour``, gathered: through the GameService on SQLite.

The first 60 public messages of an hour go one by one; the rest are kept in the outbox and
go, in order, as one message at the end of the clock hour; nothing is lost, nothing is sent
twice, a crash or a restart loses nothing, and replies are never held back. Each failed on
the main before: every announcement went by itself, however many.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from speakerbot.engine import commands as c
from speakerbot.service import GameService
from tests.support.mailgame import ALICE, BOB, CAROL, SPEAKER, Mail, MailGame

REASON = re.compile(r"\bcake (\d+)\b")


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    game = MailGame(tmp_path, "nomicam", [ALICE, BOB, CAROL])
    # A quiet hour of its own: what the game's start announced is over an hour old.
    game.clock.now = game.clock.now.replace(minute=0) + timedelta(hours=2)
    try:
        yield game
    finally:
        game.close()


def announce(game: MailGame, n: int, after: timedelta = timedelta(seconds=10)) -> None:
    """One public announcement, a player's proposal, numbered ``n`` in its text.

    Not the host's overrides: they are neither counted nor kept (``announcements``).
    """
    game.clock.now += after
    game.service.speaker_command(c.Propose(ALICE, f"cake {n}", f"A cake {n}."))


def public_since(game: MailGame, mark: int) -> list[Mail]:
    """The public messages queued (to be sent) after the outbox row ``mark``."""
    return [mail for mail in game.outbox() if mail.row.id > mark
            and mail.row.kind == "announcement"]


def numbers(mails: list[Mail]) -> list[int]:
    """Every announcement's number, in the order the players read them (each says it twice)."""
    return [int(n) for mail in mails for n in dict.fromkeys(REASON.findall(mail.body))]


def last_id(game: MailGame) -> int:
    return max((mail.row.id for mail in game.outbox()), default=0)


def test_the_61st_announcement_of_an_hour_onward_is_gathered_into_one_message(
        game: MailGame) -> None:
    mark = last_id(game)
    for n in range(70):
        announce(game, n)
    one_by_one = public_since(game, mark)
    assert numbers(one_by_one) == list(range(60))
    assert game.store.outbox_summary().gathered == 10
    # Not before the hour is over...
    game.clock.now = game.clock.now.replace(minute=59)
    game.service.tick()
    assert len(public_since(game, mark)) == 60
    # ...then one message, to every player, with the other ten in order.
    game.clock.now = game.clock.now.replace(minute=0) + timedelta(hours=1, seconds=5)
    game.service.tick()
    game.service.tick()  # and only one
    (gathered,) = public_since(game, mark)[60:]
    assert numbers([gathered]) == list(range(60, 70))
    assert "10 announcements gathered" in gathered.subject
    assert "(60 an hour, [limits] public_per_hour)" in " ".join(gathered.body.split())
    assert set(gathered.recipients) == {ALICE, BOB, CAROL, SPEAKER}
    assert game.store.outbox_summary().gathered == 0


def test_a_flood_of_hours_sends_at_most_the_limit_and_one_gathering_an_hour_and_loses_nothing(
        game: MailGame) -> None:
    mark = last_id(game)
    for n in range(300):  # one every 30 s: two and a half hours
        announce(game, n, after=timedelta(seconds=30))
        game.service.tick()  # as the daemon does after each message
    game.clock.now += timedelta(hours=2)
    game.service.tick()
    sent = public_since(game, mark)
    assert numbers(sent) == list(range(300)), "an announcement lost, doubled or out of order"
    by_hour = Counter(mail.row.created_at.replace(minute=0, second=0) for mail in sent)
    assert max(by_hour.values()) <= 61, by_hour
    gatherings = [mail for mail in sent if "gathered" in mail.subject]
    assert len(gatherings) == len({g.row.created_at.replace(minute=0) for g in gatherings}) >= 2


def test_what_is_kept_survives_a_restart_and_a_failed_gathering(
        game: MailGame, monkeypatch: pytest.MonkeyPatch) -> None:
    mark = last_id(game)
    for n in range(63):
        announce(game, n)
    # The daemon stops; another starts on the same database after the hour, knowing
    # nothing but what the store keeps.
    restarted = GameService(game.store, game.settings, rng=random.Random(2), clock=game.clock)
    game.clock.now = game.clock.now.replace(minute=0) + timedelta(hours=1)

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full")

    with monkeypatch.context() as patch:  # the gathering's transaction fails half-way
        patch.setattr(game.store, "mark_merged", fail)
        with pytest.raises(RuntimeError):
            restarted.tick()
    assert len(public_since(game, mark)) == 60  # rolled back: no gathering, nothing marked
    assert game.store.outbox_summary().gathered == 3
    restarted.tick()
    restarted.tick()
    assert numbers(public_since(game, mark)) == list(range(63))
    assert len(public_since(game, mark)) == 61


def test_replies_and_confirmations_are_never_held_back(tmp_path: Path) -> None:
    game = MailGame(tmp_path, "nomicam", [ALICE, BOB, CAROL], limits={"public_per_hour": 1})
    try:
        game.clock.now += timedelta(hours=2)
        game.service.tick()
        mark = last_id(game)
        game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
        sent = game.send(ALICE, "PROPOSE: Cake", "Cake at five.\n")
        assert [mail.subject for mail in public_since(game, mark)] == [
            "[Camford Nomic] Proposal 301: Tea"]
        assert game.store.outbox_summary().gathered == 1
        (reply,) = game.replies_to(sent.message_id)
        assert "302" in reply.body
        before = last_id(game)
        game.send(BOB, "vote", "VOTE 301 FOR\n", authenticated=False)
        assert [(mail.row.kind, mail.recipients) for mail in game.outbox()
                if mail.row.id > before] == [("confirm", (BOB,))]
    finally:
        game.close()
