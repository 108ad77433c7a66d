"""One daemon plays three games of different presets from one ``[[games]]`` config.

Through real servers: the games' database (SQLite or PostgreSQL), one LMTP listener for all
of them, and an SMTP sink. Each ballot lands in its own game only; a player of one game is a
stranger to another; each game's results name that game and its own record's head; and
``--game`` picks each game for the command line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.game_harness import body_of, subject_of
from tests.integration.hosting_harness import SPEAKER, HostedGame, Hosting
from tests.support.dovecot import DovecotServer
from tests.support.patience import period
from tests.support.smtp_sink import CapturedMessage, SmtpSink

ALICE, BOB, CAROL = "alice@players.test", "bob@players.test", "carol@players.test"
DAVE = "dave@strangers.test"
FAST = (("voting_period", period(4)), ("reminder_before", "none"))
ALPHA = HostedGame("alpha", "nomicam", FAST)
BETA = HostedGame("beta", "suber", (("reminder_before", "none"),))
GAMMA = HostedGame("night-game", "locked-open", FAST)


@pytest.fixture
def hosting(tmp_path: Path, smtp_sink: SmtpSink, db_url: str) -> Iterator[Hosting]:
    host = Hosting(tmp_path, smtp_sink, db_url, [ALPHA, BETA, GAMMA], site=tmp_path / "site")
    try:
        yield host
    finally:
        for worker in host.workers:
            worker.kill()


def _public_record(hosting: Hosting, game: HostedGame) -> list[dict[str, object]]:
    out = hosting.cli("record", "export", "--public", "-", game=game.id).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_one_daemon_plays_three_games_each_in_its_own_record(hosting: Hosting) -> None:
    started = hosting.cli("init").stdout
    for game in (ALPHA, BETA, GAMMA):
        assert f"{game.id}: started {game.name}" in started
    # init again leaves started games alone.
    assert hosting.cli("init").stdout.count("already started, left alone") == 3
    for game in (ALPHA, BETA, GAMMA):
        hosting.cli("player", "add", ALICE, "Alice", game=game.id)
        hosting.cli("player", "add", BOB, "Bob", game=game.id)
    hosting.cli("player", "add", CAROL, "Carol", game=ALPHA.id)

    # With several games, a per-game command needs --game, and says which there are.
    unsaid = hosting.cli("status", check=False)
    assert unsaid.returncode == 2
    assert all(game.id in unsaid.stderr for game in (ALPHA, BETA, GAMMA))
    # A game that is not in the config: refused, the ids listed, nothing opened.
    for unknown in (hosting.cli("status", game="nope", check=False),
                    hosting.cli("admin", "pause", env={"SPEAKERBOT_GAME": "Alpha"},
                                check=False)):
        assert unknown.returncode == 2 and "alpha, beta, night-game" in unknown.stderr
    for game in (ALPHA, BETA, GAMMA):
        assert game.name in hosting.cli("status", game=game.id).stdout
        chosen = hosting.cli("status", env={"SPEAKERBOT_GAME": game.id}).stdout
        assert chosen.startswith(game.name)

    worker = hosting.worker()
    for game in (ALPHA, BETA, GAMMA):
        worker.wait_log(f"running the game {game.name}")
    listing = hosting.cli("games").stdout.splitlines()
    assert [line.split()[0] for line in listing] == [ALPHA.id, BETA.id, GAMMA.id]
    assert all("running" in line and "pid" in line for line in listing), listing

    # A recipient that is no game's is refused before the message is sent.
    refused = hosting.send(ALICE, "nobody@host.test", "lost", "STATUS\n")
    assert refused["nobody@host.test"][0] == 550

    # Carol plays alpha only: in beta she is a stranger, and nothing of hers is recorded.
    # (The Speaker never sends a stranger more than it received: a signature pads it.)
    hosting.send(CAROL, BETA.address, "my vote in beta",
                 "VOTE 301 FOR\n-- \n" + "Carol, who plays another game.\n" * 30)
    stranger = hosting.wait_for(lambda m: "Not a player" in subject_of(m)
                                and CAROL in m.rcpt_tos)
    assert f"You are not a player of {BETA.name}" in body_of(stranger)
    assert subject_of(stranger).startswith(f"[{BETA.name}]")

    # A stranger's one message to two games: all it draws costs no more than it did. (A
    # stranger's reply is about 500 bytes: this message could buy one, not two.)
    hosting.send(DAVE, [ALPHA.address, GAMMA.address], "to both",
                 "STATUS\n-- \n" + "Dave, who plays no game here.\n" * 14)
    sent_by_dave = len(hosting.last_sent)
    assert 600 < sent_by_dave < 1000

    # One message to two games is stored, read and answered once in each.
    hosting.send(ALICE, [ALPHA.address, GAMMA.address], "status of both", "STATUS\n")
    replies = [_reply_from(hosting, game, "status of both") for game in (ALPHA, GAMMA)]
    assert len(hosting.sent("Re: status of both", to=ALICE)) == 2
    assert [_game_of(reply.mail_from) for reply in replies] == [ALPHA.address, GAMMA.address]
    # Dave's message was read before Alice's, in each game.
    assert sum(len(m.data) for m in hosting.sent(to=DAVE)) <= sent_by_dave

    # A proposal in alpha and one in the night game; the ballots go to their own game only.
    hosting.send(ALICE, ALPHA.address, "PROPOSE: Sing", "Players may sing.\n")
    hosting.wait_for(lambda m: subject_of(m) == f"[{ALPHA.name}] Proposal 301: Sing")
    hosting.send(ALICE, GAMMA.address, "PROPOSE: Dance", "Players may dance.\n")
    gamma_number = _proposal_number(hosting, GAMMA, "Dance")
    for voter in (ALICE, BOB, CAROL):
        hosting.send(voter, ALPHA.address, f"alpha vote {voter}", "VOTE 301 FOR\n")
    for voter in (ALICE, BOB):
        hosting.send(voter, GAMMA.address, f"gamma vote {voter}",
                     f"VOTE {gamma_number} AGAINST\n")
    alpha_results = hosting.wait_for(
        lambda m: subject_of(m) == f"[{ALPHA.name}] Proposal 301 ADOPTED: Sing")
    gamma_results = hosting.wait_for(
        lambda m: f"[{GAMMA.name}] Proposal {gamma_number} REJECTED" in subject_of(m))
    assert "Carol" in body_of(alpha_results) and "Carol" not in body_of(gamma_results)

    records = {game.id: _public_record(hosting, game) for game in (ALPHA, BETA, GAMMA)}
    for game, results in ((ALPHA, alpha_results), (GAMMA, gamma_results)):
        seq, head = _record_line(body_of(results))
        own = [line for line in records[game.id] if line.get("hash") == head]
        assert own and own[0]["seq"] == seq, (game.id, seq, head)
        for other, lines in records.items():
            if other != game.id:
                assert all(line.get("hash") != head for line in lines)
    assert not any("Carol" in json.dumps(line) for line in records[BETA.id])

    # Each game numbers its own proposals: 301 is alpha's Sing, the night game's Dance, and
    # nothing in beta.
    for game, title in ((ALPHA, "Sing"), (BETA, None), (GAMMA, "Dance")):
        shown = hosting.cli("show", "proposal", "301", game=game.id, check=False)
        assert (shown.returncode == 0) == (title is not None), (game.id, shown.stderr)
        history = hosting.cli("history", game=game.id).stdout
        for other in ("Sing", "Dance"):
            assert (other in shown.stdout) == (other == title), (game.id, shown.stdout)
            assert (other in history) == (other == title), (game.id, history)
        hosting.cli("record", "verify", game=game.id)
    paused = hosting.cli("admin", "pause", "for tea", game=BETA.id)
    assert paused.returncode == 0
    listed = {line.split()[0]: line for line in hosting.cli("games").stdout.splitlines()}
    assert "paused" in listed[BETA.id]
    assert "running" in listed[ALPHA.id]  # the refused ADMIN PAUSE for "Alpha" changed nothing
    for worker in hosting.workers:
        assert worker.stop() == 0
    assert not hosting.sent(to=SPEAKER, fragment="failed")

    # [site] dir: each game's archive in the folder of its id, and an index of the games.
    assert hosting.site is not None
    index = (hosting.site / "index.html").read_text()
    for game in (ALPHA, BETA, GAMMA):
        assert f'href="{game.id}/index.html"' in index and game.name in index
        assert game.name in (hosting.site / game.id / "index.html").read_text()
    assert "Sing" in (hosting.site / ALPHA.id / "proposals" / "index.html").read_text()
    assert "Sing" not in (hosting.site / BETA.id / "proposals" / "index.html").read_text()


def _game_of(return_path: str) -> str:
    """Return the game's address a VERP return path (``local+bounce-TOKEN@domain``) is of."""
    local, _, domain = return_path.partition("@")
    base, _, token = local.partition("+bounce-")
    assert token, return_path
    return f"{base}@{domain}"


def _reply_from(hosting: Hosting, game: HostedGame, subject: str) -> CapturedMessage:
    return hosting.wait_for(lambda m: subject_of(m) == f"[{game.name}] Re: {subject}")


def _proposal_number(hosting: Hosting, game: HostedGame, title: str) -> int:
    distributed = hosting.wait_for(lambda m: subject_of(m).startswith(f"[{game.name}] Proposal")
                                   and subject_of(m).endswith(f": {title}"))
    found = re.search(r"Proposal (\d+):", subject_of(distributed))
    assert found is not None
    return int(found.group(1))


def _record_line(body: str) -> tuple[int, str]:
    found = re.search(r"Record: (\d+) ([0-9a-f]+)", body)
    assert found is not None, body
    return int(found.group(1)), found.group(2)


def test_a_game_with_its_own_mailbox_reads_it_beside_the_listener(
        tmp_path: Path, smtp_sink: SmtpSink, dovecot: DovecotServer) -> None:
    user = f"hosted-{os.getpid()}"
    dovecot.add_user(user, "imap-password")
    by_imap = HostedGame("by-imap", "nomicam", (("reminder_before", "none"),), tables=f"""
[games.imap]
host = "127.0.0.1"
port = {dovecot.port}
security = "none"
username = "{user}"
password = "imap-password"
idle = true
""")
    hosting = Hosting(tmp_path, smtp_sink, f"sqlite:///{tmp_path / 'games.db'}",
                      [ALPHA, by_imap])
    try:
        hosting.cli("init")
        for game in (ALPHA, by_imap):
            hosting.cli("player", "add", ALICE, "Alice", game=game.id)
        worker = hosting.worker()
        worker.wait_log(f"running the game {by_imap.name}")
        dovecot.append(user, "INBOX", hosting.message(ALICE, by_imap.address, "by imap",
                                                      "STATUS\n"))
        hosting.send(ALICE, ALPHA.address, "by lmtp", "STATUS\n")
        assert _game_of(_reply_from(hosting, by_imap, "by imap").mail_from) == by_imap.address
        assert _game_of(_reply_from(hosting, ALPHA, "by lmtp").mail_from) == ALPHA.address
        assert worker.stop() == 0
        assert dovecot.list_folder(user, "INBOX") == []
    finally:
        for worker in hosting.workers:
            worker.kill()
