"""The host's daily reminder of open hand work (``[game] handwork_reminder``, "1d" unless set).

One period after the close that left an item to the Speaker, the host gets one notice
listing every open item with the commands that finish it; then one a period while any is
open, none once all are closed, none at all with the reminder turned off ("").
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path

from speakerbot.engine import commands as c
from tests.support import mailgame as mg

SUBJECT = "Still left to the Speaker"


def _adopted_informal(folder: Path) -> mg.MailGame:
    game = mg.MailGame(folder, "nomicam", [mg.ALICE, mg.BOB])
    game.send(mg.ALICE, "PROPOSE: Tea", "Tea at every meeting.\n")
    for voter in (mg.ALICE, mg.BOB):
        game.send(voter, "vote", "VOTE 301 FOR\n")
    game.service.speaker_command(c.CloseVote(mg.SPEAKER, 301))
    assert list(game.service.state().handwork) == [1]
    return game


def _reminders(game: mg.MailGame) -> list[mg.Mail]:
    return [mail for mail in game.outbox() if SUBJECT in mail.subject]


def _later(game: mg.MailGame, delta: timedelta) -> None:
    game.clock.now += delta
    game.service.tick()


def test_the_host_is_reminded_once_a_day_while_an_item_is_open(tmp_path: Path) -> None:
    game = _adopted_informal(tmp_path)
    try:
        _later(game, timedelta(hours=23))
        assert not _reminders(game)  # the close's own notice told the host today
        _later(game, timedelta(hours=1, minutes=1))
        (reminder,) = _reminders(game)
        assert reminder.recipients == (mg.SPEAKER,) and reminder.row.kind == "notice"
        assert "Still left to the Speaker: 1 item" in reminder.subject
        body = " ".join(reminder.body.split())
        assert "Item 1 (proposal 301): “Tea” (to finish it: ADMIN DONE 1 <reason>)" in body
        # The MailGame's host has an admin password: ADMIN by mail is the host's channel.
        assert "Send these commands by mail from the Speaker's address" in body
        _later(game, timedelta(hours=12))
        assert len(_reminders(game)) == 1  # once a day, not at every tick
        _later(game, timedelta(hours=12))
        assert len(_reminders(game)) == 2
        game.service.host_command(["DONE", "1", "served"])
        _later(game, timedelta(days=2))
        assert len(_reminders(game)) == 2  # nothing open: nothing to remind
    finally:
        game.close()


def test_no_reminder_when_it_is_turned_off(tmp_path: Path) -> None:
    game = _adopted_informal(tmp_path)
    try:
        settings = game.service.deps.settings
        game.service.deps.settings = dataclasses.replace(
            settings, game=dataclasses.replace(settings.game, handwork_reminder=None))
        _later(game, timedelta(days=3))
        assert not _reminders(game)
    finally:
        game.close()
