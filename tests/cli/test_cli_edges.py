"""The command line's edges, as a new host meets them: the version, a closed pipe, what is
not found, a command without its action, every command's help, and the log's levels."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from speakerbot.entrypoints.cli import build_parser
from tests.cli.test_commands import CONFIG, speakerbot
from tests.support.patience import patience
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A suber game started through the command line, with two players; its config."""
    path = tmp_path / "game.toml"
    path.write_text(CONFIG.format(ruleset="suber", db=tmp_path / "game.db"))
    for args in (("init",), ("player", "add", "alice@cli.test", "Alice"),
                 ("player", "add", "bob@cli.test", "Bob")):
        done = speakerbot(*args, "-c", str(path), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    return path


def test_version_prints_speakerbot_and_its_version(tmp_path: Path) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    done = speakerbot("--version", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"speakerbot {version}\n", "")


def _into_a_closed_pipe(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run speakerbot with its standard output a pipe whose reader has already gone."""
    reader, writer = os.pipe()
    os.close(reader)  # before the start: every write fails, as after `| head -1` has left
    try:
        return subprocess.run([sys.executable, "-m", "speakerbot", *args], stdout=writer,
                              stderr=subprocess.PIPE, cwd=cwd, timeout=patience(60))
    finally:
        os.close(writer)


def test_a_closed_pipe_ends_quietly(game: Path) -> None:
    for args in (("status", "-c", str(game)), ("player", "list", "-c", str(game)),
                 ("rulesets", "show", "suber")):
        done = _into_a_closed_pipe(*args, cwd=game.parent)
        # As a shell reports a command that SIGPIPE ended; and not a word on stderr.
        assert (done.returncode, done.stderr) == (128 + signal.SIGPIPE, b""), args
    # argparse itself ignores a failed write of its help (exit 0), quietly too.
    assert _into_a_closed_pipe("--help", cwd=game.parent).stderr == b""


def test_what_is_not_found_exits_1_saying_so(game: Path) -> None:
    for args, said in ((("show", "proposal", "999"), "There is no proposal 999"),
                       (("show", "rule", "999"), "There is no rule 999"),
                       (("show", "cfj", "999"), "There is no CFJ 999"),
                       (("show", "proposal", "999", "--json"), "There is no proposal 999"),
                       (("inbound", "show", "999"), "no inbound message 999"),
                       (("inbound", "retry", "999"), "no inbound message 999")):
        done = speakerbot(*args, "-c", str(game), cwd=game.parent)
        assert (done.returncode, done.stdout) == (1, ""), (args, done)
        assert done.stderr.startswith(f"speakerbot: {said}"), (args, done.stderr)
    # A rule that exists is shown (exit 0): the check is not of the number alone.
    assert speakerbot("show", "rule", "101", "-c", str(game), cwd=game.parent).returncode == 0


@pytest.mark.parametrize("command", ["player", "inbound", "db", "site", "record"])
def test_a_command_without_its_action_prints_its_own_help(command: str,
                                                          tmp_path: Path) -> None:
    done = speakerbot(command, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"usage: speakerbot {command} ")
    assert "COMMAND" not in done.stderr  # not the top-level help


def _commands() -> list[tuple[str, ...]]:
    """Every command and action the parser knows, as the words that name it."""
    found: list[tuple[str, ...]] = []

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    found.append((*words, name))
                    walk(child, (*words, name))

    walk(build_parser(), ())
    return found


def test_every_command_says_what_it_does(tmp_path: Path) -> None:
    commands = _commands()
    assert ("player", "list") in commands and ("db", "upgrade") in commands
    top = speakerbot("--help", cwd=tmp_path).stdout
    for words in commands:
        helped = speakerbot(*words, "--help", cwd=tmp_path)
        assert helped.returncode == 0, words
        # A description under the usage: the help's first paragraph after it.
        description = helped.stdout.split("\n\n")[1]
        assert description[:1].isupper() and description.rstrip().endswith("."), words
        assert not description.startswith(("positional", "options")), words
        if len(words) == 1:
            assert f"    {words[0]} " in top, words


def test_init_needs_no_mail_password_nor_admin_password_and_run_names_what_is_missing(
        tmp_path: Path) -> None:
    config = tmp_path / "game.toml"
    game_only = CONFIG.format(ruleset="suber", db=tmp_path / "game.db").split("[lmtp]")[0]
    game_only = game_only.replace('admin_password = "pw"\n', "")
    config.write_text(game_only)
    init = speakerbot("init", "-c", str(config), cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    once = speakerbot("run", "--once", "-c", str(config), cwd=tmp_path)
    assert once.returncode == 2 and "[smtp]" in once.stderr and "Traceback" not in once.stderr
    # An [imap] section without its password: status works, run names the key.
    config.write_text(game_only + '\n[imap]\nhost = "imap.cli.test"\n\n[smtp]\n'
                      'host = "127.0.0.1"\nport = 2525\nsecurity = "none"\n')
    assert speakerbot("status", "-c", str(config), cwd=tmp_path).returncode == 0
    for args in (("run", "--once"), ("run",)):
        refused = speakerbot(*args, "-c", str(config), cwd=tmp_path,
                             env={"SPEAKERBOT_IMAP_PASSWORD": ""})
        assert refused.returncode == 2, args
        assert "[imap] password" in refused.stderr and "SPEAKERBOT_IMAP_PASSWORD" in (
            refused.stderr), args


def _log_lines(stderr: str) -> list[tuple[str, str]]:
    """Return (level, logger) of each log line: ``date time LEVEL logger: message``."""
    return [(parts[2], parts[3].rstrip(":")) for parts in
            (line.split(" ", 4) for line in stderr.splitlines()) if len(parts) == 5
            and parts[2] in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")]


def test_log_level_chooses_what_run_once_logs(game: Path) -> None:
    # Nothing listens on the SMTP port: each waiting mail is deferred with a WARNING.
    default = speakerbot("run", "--once", "-c", str(game), cwd=game.parent)
    assert default.returncode == 0, default.stderr
    assert ("WARNING", "speakerbot.service.outbox") in _log_lines(default.stderr)
    for level in ("ERROR", "error"):
        quiet = speakerbot("--log-level", level, "run", "--once", "-c", str(game),
                           cwd=game.parent)
        assert (quiet.returncode, quiet.stderr) == (0, ""), level
    wrong = speakerbot("run", "--once", "--log-level", "LOUD", "-c", str(game),
                       cwd=game.parent)
    assert wrong.returncode == 2 and "--log-level" in wrong.stderr


@pytest.fixture
def daemon(game: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """The daemon in the foreground with an LMTP listener; stopped by SIGTERM at the end."""
    port = free_port()
    game.write_text(game.read_text().replace("port = 8024", f"port = {port}"))
    process = subprocess.Popen([sys.executable, "-m", "speakerbot", "run", "-c", str(game)],
                               stderr=subprocess.PIPE, text=True, cwd=game.parent)
    yield process, port
    if process.poll() is None:
        process.kill()
        process.wait(timeout=patience(60))


def _read_until(process: subprocess.Popen[str], said: str) -> list[str]:
    """Read the daemon's standard error up to the line that contains ``said``."""
    assert process.stderr is not None
    lines = []
    for line in process.stderr:
        lines.append(line)
        if said in line:
            return lines
    raise AssertionError(f"the daemon ended without saying {said!r}: {''.join(lines)}")


def test_the_daemons_info_log_is_speakerbots_own(
        daemon: tuple[subprocess.Popen[str], int]) -> None:
    import smtplib

    process, port = daemon
    lines = _read_until(process, "speakerbot is running the game")
    with smtplib.LMTP("127.0.0.1", port) as lmtp:
        lmtp.sendmail("alice@cli.test", ["game@cli.test"],
                      b"From: alice@cli.test\r\nTo: game@cli.test\r\nSubject: s\r\n\r\nSTATUS\r\n")
    lines += _read_until(process, "stored a message")
    process.send_signal(signal.SIGTERM)
    lines += _read_until(process, "speakerbot stopped")
    assert process.wait(timeout=patience(60)) == 0
    logged = _log_lines("".join(lines))
    assert ("INFO", "speakerbot.entrypoints.daemon") in logged
    # aiosmtpd ("mail.log") logs every LMTP command at INFO, APScheduler every job.
    assert {logger for _, logger in logged if not logger.startswith("speakerbot")} == set()
