"""Ballot receipts: mailed with each accepted ballot, found again in the results.

A game is played through the GameService on a real SQLite store, fed raw mail. Each voter
takes the ``Receipt:`` line of their confirmation; at the close the results publish, per
counted ballot, ``<receipt> <voter> <choice> <salt>``, the voter by their public id (their
name), never their address. Each line is recomputed as docs/verifying.md says (SHA-256 of
``game id:proposal:voter:choice:salt``), and each voter's last receipt is found there; a
changed ballot's first receipt is not. A game of record version 1 (started before public
ids) keeps its receipts over the address.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from speakerbot.engine.receipts import receipt, receipt_line
from tests.support.mailgame import ALICE, BOB, CAROL, DAVE, NAMES, Mail, MailGame

VOTERS = (ALICE, BOB, CAROL, DAVE)
_RECEIPT = re.compile(r"^Receipt: ([0-9a-f]{64})$", re.MULTILINE)
_PUBLISHED = re.compile(r"^([0-9a-f]{64}) (.+) (FOR|AGAINST) ([0-9a-f]{32})$",
                        re.MULTILINE)


@pytest.fixture
def game(tmp_path: Path) -> Iterator[MailGame]:
    played = MailGame(tmp_path, "nomicam", VOTERS)
    yield played
    played.close()


def _receipts(mail: list[Mail]) -> list[str]:
    return [found for message in mail for found in _RECEIPT.findall(message.body)]


def _results(game: MailGame, number: int) -> Mail:
    return next(mail for mail in game.outbox()
                if mail.subject.startswith(f"[Camford Nomic] Proposal {number} ")
                and ("ADOPTED" in mail.subject or "REJECTED" in mail.subject))


def test_each_receipt_is_found_in_the_results_and_a_changed_ballots_is_not(
        game: MailGame) -> None:
    game.send(ALICE, "idea", "PROPOSE Tea\nTea is served.\nEND PROPOSE\n")
    mailed: dict[str, list[str]] = {}
    for voter, choice in ((ALICE, "FOR"), (BOB, "AGAINST"), (CAROL, "FOR"), (BOB, "FOR")):
        sent = game.send(voter, "vote", f"VOTE 301 {choice}\n")
        found = _receipts(game.replies_to(sent.message_id))
        assert len(found) == 1, "one ballot, one receipt"
        mailed.setdefault(voter, []).extend(found)
    assert mailed[BOB][0] != mailed[BOB][1], "a changed ballot gets a new receipt"
    game.clock.now += timedelta(days=8)  # past the voting period: the vote closes
    game.process()
    game.service.tick()
    results = _results(game, 301)
    game_id = re.search(r"^Game id: (\S+)$", results.body, re.MULTILINE)
    assert game_id is not None
    published = _PUBLISHED.findall(results.body)
    assert {voter for _, voter, _, _ in published} == {NAMES[v] for v in (ALICE, BOB, CAROL)}
    assert "@" not in results.body.split("Game id:")[1]
    for shown, voter, choice, salt in published:
        text = f"{game_id.group(1)}:301:{voter}:{choice}:{salt}"
        assert hashlib.sha256(text.encode()).hexdigest() == shown
    shown_receipts = {shown for shown, *_ in published}
    for voter in (ALICE, BOB, CAROL):
        assert mailed[voter][-1] in shown_receipts
    assert mailed[BOB][0] not in shown_receipts
    assert dict((voter, choice) for _, voter, choice, _ in published)["Bob"] == "FOR"


def test_a_confirmation_names_its_receipt_and_no_salt(game: MailGame) -> None:
    """The salt stays sealed: the confirmation gives the receipt, never the salt."""
    game.send(ALICE, "idea", "PROPOSE Tea\nTea is served.\nEND PROPOSE\n")
    sent = game.send(BOB, "vote", "VOTE 301 AGAINST\n")
    (reply,) = game.replies_to(sent.message_id)
    salts = [ballot.salt for ballot in game.service.state().proposals[301].ballots.values()]
    assert len(salts) == 1 and re.fullmatch(r"[0-9a-f]{32}", salts[0])
    assert salts[0] not in reply.body
    assert _receipts([reply]) == [receipt(game.service.state().game_id, 301, "Bob", "AGAINST",
                                          salts[0], 2)]
    for mail in game.outbox():
        assert salts[0] not in mail.body, mail.subject


def test_the_receipt_line_is_what_the_verifying_doc_recomputes() -> None:
    line = receipt_line("g1", 301, "Mary Ann", "FOR", "0" * 32, 2)
    shown, rest = line.split(" ", 1)
    voter, choice, salt = rest.rsplit(" ", 2)
    assert voter == "Mary Ann" and choice == "FOR" and salt == "0" * 32
    assert shown == hashlib.sha256(f"g1:301:Mary Ann:FOR:{'0' * 32}".encode()).hexdigest()


def test_an_older_games_receipts_keep_the_address_formula() -> None:
    """Record version 1 (the default): the address, in lower case, as mailed then."""
    line = receipt_line("g1", 301, "Alice@Example.org", "FOR", "0" * 32)
    shown, voter, choice, salt = line.split(" ")
    assert voter == "alice@example.org" and choice == "FOR" and salt == "0" * 32
    assert shown == hashlib.sha256(f"g1:301:alice@example.org:FOR:{'0' * 32}".encode())\
        .hexdigest()


def test_the_docs_shell_loop_checks_every_line_of_a_results_mail(game: MailGame,
                                                                 tmp_path: Path) -> None:
    game.send(ALICE, "idea", "PROPOSE Tea\nTea is served.\nEND PROPOSE\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    game.send(CAROL, "vote", "VOTE 301 AGAINST\n")
    game.clock.now += timedelta(days=8)
    game.service.tick()
    results = _results(game, 301)
    game_id = re.search(r"^Game id: (\S+)$", results.body, re.MULTILINE)
    assert game_id is not None
    saved = tmp_path / "results.txt"
    saved.write_text(results.body)
    text = (Path(__file__).parents[2] / "docs" / "verifying.md").read_text()
    loop = text[text.index("    grep -E"):].split("\n\n", 1)[0]
    script = "\n".join(line[4:] for line in loop.splitlines()).replace("GAMEID", game_id.group(1))
    checked = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                             text=True, check=False)
    assert checked.stdout.count("ok ") == 2 and "BAD" not in checked.stdout, checked.stderr
    saved.write_text(results.body.replace(" FOR ", " AGAINST ", 1))
    tampered = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                              text=True, check=False)
    assert "BAD" in tampered.stdout
