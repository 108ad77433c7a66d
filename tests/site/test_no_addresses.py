"""The archive and the public record name players, never their addresses.

A nomicam game is played through the GameService on SQLite, fed raw mail: proposals whose
text and an override's words hold addresses, ballots, a close with its receipts, a player
removed and a newcomer taking her name. No page of the archive and no line of the public
record holds a player's address; the public chain still holds (as ``record verify`` checks
it, in the database and in the export), and each receipt is recomputed from the public id
that stands on its line.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from speakerbot.engine import chain
from speakerbot.engine.publicity import WITHHELD, without_addresses
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.support.mailgame import ALICE, BOB, CAROL, DAVE, PASSWORD, SPEAKER, MailGame

PLAYERS = (ALICE, BOB, CAROL, DAVE)
ERIN = "erin@example.org"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailGame]:
    game = MailGame(tmp_path_factory.mktemp("game"), "nomicam", PLAYERS)
    game.send(ALICE, "idea", "PROPOSE Tea for bob@example.org\nBob <bob@example.org> "
              "serves tea; write to stranger@elsewhere.test.\nEND PROPOSE\n")
    for voter, choice in ((ALICE, "FOR"), (BOB, "FOR"), (CAROL, "AGAINST")):
        game.send(voter, "vote", f"VOTE 301 {choice}\n")
    game.send(SPEAKER, "score", f"PASSWORD {PASSWORD}\nADMIN SCORE {DAVE} +5 for tea\n")
    game.clock.now += timedelta(days=8)
    game.service.tick()
    game.send(SPEAKER, "out", f"PASSWORD {PASSWORD}\nADMIN REMOVE {CAROL}\n")
    game.send(ERIN, "join", "JOIN Carol\n")
    game.send(ALICE, "open", "PROPOSE Coffee\nCoffee too.\nEND PROPOSE\n")
    yield game
    game.close()


@pytest.fixture(scope="module")
def lines(played: MailGame) -> list[dict[str, object]]:
    return played.service.public_record()


@pytest.fixture(scope="module")
def files(lines: list[dict[str, object]]) -> dict[str, bytes]:
    return build_site(lines, templates_dir() / "site", name="Camford Nomic")


def _addresses() -> list[str]:
    return [*PLAYERS, ERIN, SPEAKER]


def test_no_page_and_no_public_line_holds_a_players_address(
        files: dict[str, bytes], lines: list[dict[str, object]]) -> None:
    assert any(line["type"] == "VoteClosed" for line in lines)
    for path, content in files.items():
        text = content.decode("utf-8").lower()
        for address in _addresses():
            assert address not in text, (path, address)
        assert "stranger@elsewhere.test" not in text, path
    assert files["record.jsonl"].count(b"@") == 0


def test_the_public_record_names_players_by_their_public_ids(
        lines: list[dict[str, object]]) -> None:
    joined = [(line["address"], line["name"]) for line in lines
              if line["type"] == "PlayerJoined"]
    assert ("Alice", "Alice") in joined and ("Carol", "Carol") in joined
    assert ("Carol (2)", "Carol") in joined  # a departed player's name, taken again
    started = next(line for line in lines if line["type"] == "GameStarted")
    assert started["record_version"] == 2 and started["host"] == "Chuck"
    submitted = next(line for line in lines if line["type"] == "ProposalSubmitted")
    assert submitted["proposer"] == "Alice"
    assert submitted["title"] == "Tea for Bob"
    assert submitted["text"] == f"Bob <Bob> serves tea; write to {WITHHELD}."


def test_the_public_chain_holds_in_the_export_and_in_the_database(
        played: MailGame, files: dict[str, bytes]) -> None:
    exported = [json.loads(text) for text in files["record.jsonl"].decode().splitlines()]
    assert chain.verify(exported) is None
    assert chain.verify_stored(played.service.stored_record(as_stored=True)) is None
    # Relinked from the first event, the chain is the one linked a transaction at a time.
    relinked = chain.lines(played.service.stored_record(), public=True)
    assert [line["hash"] for line in relinked] == [line["hash"] for line in exported]


def test_each_receipt_is_recomputed_from_the_public_id_on_its_line(
        files: dict[str, bytes], lines: list[dict[str, object]]) -> None:
    game_id = next(line["game_id"] for line in lines if line["type"] == "GameStarted")
    page = files["proposals/301.html"].decode()
    block = re.search(r'<pre class="receipts">(.*?)</pre>', page, re.S)
    assert block is not None
    published = re.sub(r"</?span>", "", block.group(1)).strip().splitlines()  # one per line
    assert len(published) == 3
    for line in published:
        shown, rest = line.split(" ", 1)
        voter, choice, salt = rest.rsplit(" ", 2)
        assert voter in ("Alice", "Bob", "Carol")
        text = f"{game_id}:301:{voter}:{choice}:{salt}"
        assert hashlib.sha256(text.encode()).hexdigest() == shown


def test_an_address_in_a_text_is_found_in_linear_time() -> None:
    ids = {"bob@example.org": "Bob"}
    assert without_addresses("(bob@example.org), Bob@Example.org. x@y", ids) == \
        "(Bob), Bob. (an address)"
    long = "a" * 200_000 + "@" + "b" * 200_000
    assert without_addresses(long, ids) == WITHHELD


def test_the_results_mail_names_voters_not_addresses(played: MailGame) -> None:
    results = next(mail for mail in played.outbox() if "ADOPTED" in mail.subject
                   or "REJECTED" in mail.subject)
    # The proposal's own words are quoted as written; the receipts name voters by name.
    receipts = results.body.split("Receipts of the counted ballots", 1)[1].split("\n\n")[0]
    assert "Alice FOR" in receipts and "@" not in receipts


def test_an_exported_public_record_verifies_through_the_command_line(
        files: dict[str, bytes], tmp_path: Path) -> None:
    from speakerbot.entrypoints.record import _read_lines

    saved = tmp_path / "record.jsonl"
    saved.write_bytes(files["record.jsonl"])
    assert chain.verify(_read_lines(saved)) is None
