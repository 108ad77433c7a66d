"""The host's desk as the operator meets it: ``admin``, ``show`` and ``history`` as commands.

A game is played by mail on the real service; the command line then runs on its database
through its own configuration file, as an operator on the server would.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_commands import speakerbot
from tests.cli.test_startup import _heavy_imports
from tests.support import mailgame as mg

CONFIG = f"""
[game]
name = "{mg.NAME}"
ruleset = "nomicam"
address = "{mg.GAME}"
speaker = "{mg.SPEAKER}"
speaker_name = "Chuck"
admin_password = "{mg.PASSWORD}"

[auth]
require = "dmarc"
authserv_id = ["{mg.MX}"]

[database]
url = "sqlite:///{{db}}"

[smtp]
host = "127.0.0.1"
port = 2525
security = "none"
"""


@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[mg.MailGame, Path]]:
    """A nomicam game with a proposal, a ballot and a CFJ; its configuration for the CLI."""
    game = mg.MailGame(tmp_path, "nomicam", [mg.ALICE, mg.BOB])
    game.send(mg.ALICE, "PROPOSE: Three days",
              'Amend Rule 205 by replacing "one week" with "three days".\n')
    game.send(mg.BOB, "vote", "VOTE 301 FOR\n")
    game.send(mg.BOB, "CFJ: Rule 205 is too slow", "")
    config = tmp_path / "speakerbot.toml"
    config.write_text(CONFIG.format(db=tmp_path / "game.db"))
    yield game, config
    game.close()


def _desk(config: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    done = speakerbot(*args, "-c", str(config), cwd=config.parent, stdin=stdin)
    return done.returncode, done.stdout, done.stderr


def test_show_and_history_print_what_the_mail_lookups_send(
        played: tuple[mg.MailGame, Path]) -> None:
    game, config = played
    asked = game.send(mg.ALICE, "lookups", "SHOW PROPOSAL 301\nSHOW RULE 205\nSHOW CFJ 1\n"
                      "HISTORY 5\nSHOW PROPOSAL 999\n")
    reply = game.replies_to(asked.message_id)[0].body
    printed = []
    for args in (("show", "proposal", "301"), ("show", "rule", "205"), ("show", "cfj", "1"),
                 ("history", "5"), ("show", "proposal", "999")):
        status, out, err = _desk(config, *args)
        if args[-1] == "999":  # none such: exit 1, the mail's answer on standard error
            assert (status, out) == (1, ""), err
            out = err.removeprefix("speakerbot: ")
        assert status in (0, 1), err
        assert out.strip() and out.strip() in reply, (args, out)
        printed.append(out)
    assert "Proposal 301: Three days" in printed[0]
    assert "Ballots stay sealed until the vote closes." in printed[0]
    assert "FOR" not in printed[0].split("Ballots stay sealed")[1]  # sealed means sealed
    assert "History of rule 205:" in printed[1] and "CFJ 1, called by Bob" in printed[2]
    assert printed[3].startswith("The last 5 of the")
    assert "There is no proposal 999" in printed[4]
    # HISTORY with no number gives the mail's default (20): here the whole record.
    status, out, _ = _desk(config, "history")
    assert status == 0 and out.startswith("The whole public record: all 9 events")


def test_show_needs_a_kind_and_a_number(played: tuple[mg.MailGame, Path]) -> None:
    _, config = played
    for args in (("show", "proposal"), ("show", "ballot", "301"), ("show", "rule", "-3"),
                 ("history", "0"), ("history", "lots")):
        status, _, err = _desk(config, *args)
        assert status == 2 and "usage:" in err, (args, err)


def test_admin_prints_what_was_done_or_the_refusal(played: tuple[mg.MailGame, Path]) -> None:
    game, config = played
    status, out, err = _desk(config, "admin", "SCORE", "Bob", "-3", "late", "again")
    assert (status, err) == (0, "")
    assert out == ("ADMIN SCORE Bob -3: Done: changed Bob's score by -3: late again. Every "
                   "player is told.\n")
    assert game.service.state().players[mg.BOB].score == -3

    events = len(game.store.load_events())
    status, out, err = _desk(config, "admin", "VOID", "999")
    assert status == 1 and out == ""
    assert err.startswith("ADMIN VOID 999: Refused: there is no proposal 999.")
    status, _, err = _desk(config, "admin", "EXTEND", "301", "forever")
    assert status == 2 and err.startswith("speakerbot: ADMIN EXTEND: ")
    status, _, err = _desk(config, "admin", "SCORE\nADMIN CLOSE 301")
    assert status == 2 and "one ADMIN line" in err
    assert len(game.store.load_events()) == events


def test_admin_rule_takes_its_text_from_standard_input(
        played: tuple[mg.MailGame, Path]) -> None:
    game, config = played
    text = "Voting on a proposal lasts five days.\nEND RULE\n"
    status, out, err = _desk(config, "admin", "--text", "-", "RULE", "AMEND", "RULE", "203:",
                             stdin=text)
    assert status == 0, err
    assert out.startswith("ADMIN RULE: Done: edited the rules directly: amend rule 203.")
    assert game.service.state().rules[203].text == "Voting on a proposal lasts five days."
    # Without END RULE the mail language says what is missing.
    status, _, err = _desk(config, "admin", "--text", "-", "RULE", "AMEND", "RULE", "203:",
                           stdin="Shorter.\n")
    assert status == 2 and "END RULE" in err


def test_admin_needs_a_game(tmp_path: Path) -> None:
    config = tmp_path / "speakerbot.toml"
    config.write_text(CONFIG.format(db=tmp_path / "game.db"))
    status, _, err = _desk(config, "admin", "DIGEST")
    assert status == 2 and "speakerbot init" in err


def test_the_desk_commands_help_imports_no_database() -> None:
    for command in ("admin", "show", "history"):
        assert _heavy_imports(command, "--help") == "", command
