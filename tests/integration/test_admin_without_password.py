"""A game configured without an admin password: ADMIN by mail is off, and says so."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.support import mailgame as mg


def test_admin_by_mail_is_refused_when_no_admin_password_is_configured(tmp_path: Path) -> None:
    game = mg.MailGame(tmp_path, "nomicam", [mg.ALICE, mg.BOB])
    try:
        settings = game.service.settings
        game.service.settings = replace(settings, game=replace(settings.game,
                                                               admin_password=None))
        # Even the password the game had before: with none configured, none is right.
        for _ in range(6):  # more than the wrong passwords that would close ADMIN
            sent = game.send(mg.SPEAKER, "score", f"PASSWORD {mg.PASSWORD}\n"
                             "ADMIN SCORE Bob +5 for nothing\n")
            reply = game.replies_to(sent.message_id)[0].body
            assert "ADMIN by mail is off" in reply and "admin_password" in reply
            assert "closed" not in reply
        assert game.service.state().players[mg.BOB].score == 0
    finally:
        game.close()
