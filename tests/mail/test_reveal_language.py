"""ADMIN REVEAL: read from mail (and the host's desk), its JSON, HELP, and the engine's answer."""

from __future__ import annotations

import pytest

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.translate import translate
from speakerbot.mail.outbound.wording import refusal_text
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import Game

PASSWORD = "PASSWORD kettle-42\n"


@pytest.mark.parametrize("line", ["ADMIN REVEAL", "admin reveal", "ADMIN REVEAL:"])
def test_admin_reveal_is_read_and_its_json_names_the_action(line: str) -> None:
    result = lang.parse_commands("", PASSWORD + line + "\n")
    assert not result.errors, result.errors
    (command,) = result.commands
    assert isinstance(command, lang.AdminReveal)
    assert command.to_json() == {"line": 2, "verb": "ADMIN", "action": "reveal"}


@pytest.mark.parametrize(("line", "words"), [
    ("ADMIN REVEAL the seed", "ADMIN REVEAL takes nothing after it"),
    ("ADMIN REVEL", "did you mean REVEAL?"),
])
def test_near_misses_say_what_to_write(line: str, words: str) -> None:
    result = lang.parse_commands("", PASSWORD + line + "\n")
    assert not result.commands and len(result.errors) == 1
    assert words in result.errors[0].reason, result.errors[0].reason


def test_admin_reveal_needs_the_password_like_every_admin_action() -> None:
    result = lang.parse_commands("", "ADMIN REVEAL\n")
    assert not result.commands


def test_the_desk_reads_it_as_the_mail_does() -> None:
    # ``speakerbot admin REVEAL``: the host's words, without ADMIN or a password.
    result = lang.parse_commands("", "ADMIN REVEAL\n", host=True)
    assert [command.to_json() for command in result.commands] == [
        {"line": 1, "verb": "ADMIN", "action": "reveal"}]


def test_it_translates_to_the_engine_s_reveal() -> None:
    (command,) = lang.parse_commands("", PASSWORD + "ADMIN REVEAL\n").commands
    assert translate(command, SPEAKER) == c.RevealSeed(SPEAKER)


def test_help_lists_it() -> None:
    text = lang.every_help()
    assert "  ADMIN REVEAL\n" in text
    assert "Reveal the seed the game's draws are made with now" in text


def test_a_game_without_a_seed_refuses_it_in_words_the_host_can_act_on() -> None:
    game = Game("suber", [ALICE, BOB, CAROL])
    (command,) = lang.parse_commands("", PASSWORD + "ADMIN REVEAL\n").commands
    [rejected] = game.send(translate(command, SPEAKER))  # type: ignore[arg-type]
    assert isinstance(rejected, e.CommandRejected)
    reason, _ = refusal_text(rejected)
    assert reason == ("the game holds no seed to reveal (a game recorded before draws were "
                      "provable is given one at its next move)")
