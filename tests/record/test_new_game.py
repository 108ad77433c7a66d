"""Past games stay: after a game ends, the next starts in the same database.

A suber game is played through the GameService on a real SQLite store, ended by the host,
and followed by ``speakerbot new-game`` run as a user runs it. The record keeps both games,
its chain holds, the new game starts afresh with the same players, and the archive lists
both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from speakerbot.engine import commands as c
from speakerbot.mail.inbound import language as lang
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.record.cli import speakerbot, write_config
from tests.support.mailgame import ALICE, BOB, CAROL, PASSWORD, SPEAKER, MailGame


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[MailGame, Path]]:
    played = MailGame(tmp_path, "suber", (ALICE, BOB, CAROL))
    yield played, write_config(played, tmp_path, "suber")
    played.close()


def test_an_ended_suber_game_is_followed_by_a_new_game_and_both_are_kept(
        game: tuple[MailGame, Path]) -> None:
    played, config = game
    played.send(ALICE, "idea", "PROPOSE Tea\nTea is served.\nEND PROPOSE\n")
    first_id = played.service.state().game_id
    running = speakerbot(config, "new-game")
    assert running.returncode == 2 and "not over" in running.stderr
    played.service.speaker_command(c.EndGame(SPEAKER, "the season is over"))
    started = speakerbot(config, "new-game", "--ruleset", "nomicam")
    assert started.returncode == 0, started.stderr
    assert "started the next game" in started.stdout
    state = played.service.state()
    assert state.game_id != first_id and state.preset == "nomicam" and not state.ended
    assert {p.address for p in state.active_players()} >= {ALICE, BOB, CAROL}
    assert all(p.score == 0 for p in state.players.values())
    assert state.proposals == {}
    types = [row.data["type"] for row in played.store.load_events()]
    assert types.count("GameStarted") == 2 and "GameEnded" in types
    assert speakerbot(config, "record", "verify").returncode == 0
    files = build_site(played.service.public_record(), templates_dir() / "site",
                       name="Camford Nomic")
    games_page = files["games.html"].decode()
    assert "suber" in games_page.lower() and "nomicam" in games_page.lower()
    assert any(path.startswith("games/") and path.endswith("proposals/301.html")
               for path in files), "the ended game's proposal 301 is still in the archive"
    played.send(BOB, "idea", "PROPOSE Cake\nCake is served.\nEND PROPOSE\n")
    assert 301 in played.service.state().proposals
    announced = [mail for mail in played.outbox() if "A new game begins" in mail.subject]
    assert len(announced) == 1 and set(announced[0].recipients) >= {ALICE, BOB, CAROL}


def test_an_unknown_ruleset_is_refused_and_changes_nothing(
        game: tuple[MailGame, Path]) -> None:
    played, config = game
    played.service.speaker_command(c.EndGame(SPEAKER, ""))
    before = len(played.store.load_events())
    refused = speakerbot(config, "new-game", "--ruleset", "chess")
    assert refused.returncode == 2 and "chess" in refused.stderr
    assert len(played.store.load_events()) == before


def test_by_mail_the_host_ends_the_game_and_starts_the_next(
        game: tuple[MailGame, Path]) -> None:
    played, _ = game
    early = played.send(SPEAKER, "next", f"PASSWORD {PASSWORD}\nADMIN NEW GAME\n")
    (refusal,) = played.replies_to(early.message_id)
    assert "not over" in refusal.body and played.service.state().preset == "suber"
    first_id = played.service.state().game_id
    ended = played.send(SPEAKER, "end", f"PASSWORD {PASSWORD}\nADMIN END GAME holidays\n")
    assert played.service.state().ended
    assert played.replies_to(ended.message_id)
    wrong = played.send(SPEAKER, "next", f"PASSWORD {PASSWORD}\nADMIN NEW GAME chess\n")
    assert "chess" in played.replies_to(wrong.message_id)[0].body
    assert played.service.state().game_id == first_id
    played.send(SPEAKER, "next", f"PASSWORD {PASSWORD}\nADMIN NEW GAME nomicam\n")
    state = played.service.state()
    assert state.game_id != first_id and state.preset == "nomicam" and not state.ended
    assert {ALICE, BOB, CAROL} <= {p.address for p in state.active_players()}


@pytest.mark.parametrize(("line", "problem"), [
    ("ADMIN END", "ADMIN END needs GAME"),
    ("ADMIN NEW", "ADMIN NEW needs GAME"),
    ("ADMIN NEW GAMES", "ADMIN NEW needs GAME"),
    ("ADMIN NEW GAME a b", "is not one"),
    ("ADMIN NEW GAME ../../etc", "is not one"),
])
def test_the_game_commands_written_wrong_are_errors(line: str, problem: str) -> None:
    parsed = lang.parse_commands("", f"PASSWORD x\n{line}\n")
    assert parsed.errors and problem in parsed.errors[0].reason


def test_the_game_commands_parse() -> None:
    parsed = lang.parse_commands("", "PASSWORD x\nADMIN END GAME we are done\n"
                                     "ADMIN NEW GAME Suber\n")
    assert not parsed.errors
    end, new = [cmd for cmd in parsed.commands if isinstance(cmd, lang.AdminCommand)]
    assert isinstance(end, lang.AdminEndGame) and end.reason == "we are done"
    assert isinstance(new, lang.AdminNewGame) and new.ruleset == "suber"
