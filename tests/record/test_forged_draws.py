"""A die changed after its seed's reveal, re-anchored and every hash written again, fails.

Issue 37 (5). A suber game is played through the GameService on a real SQLite store: two
proposals adopted, a die thrown for each with its own seed, both seeds revealed. Its public
export verifies. A forger then does what the check once let through: changes the first die
to another face by naming another earlier line as its anchor (``after``), re-anchors the
second die (whose old anchor came after the change) so that it keeps its face, and writes
every hash of the chain again. Each forged draw is what its revealed seed gives from the
line it names, and the chain holds; ``record verify`` must still fail, naming the die,
because the record, not the draw, says where a draw is anchored. The Python of
docs/verifying.md must say the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from speakerbot.adapters.arrival import Received
from speakerbot.engine import chain
from speakerbot.engine.luck import derive_index
from speakerbot.entrypoints.cli import main
from tests.support.docs_checker import run_docs_checker
from tests.support.mailgame import ALICE, BOB, CAROL, MailGame, raw_mail

Lines = list[dict[str, Any]]
UNCHAINED = ("seq", "prev", "hash")


@pytest.fixture
def played(tmp_path: Path) -> Iterator[MailGame]:
    """A suber game with dice on proposals 301 and 302, each with its seed revealed."""
    game = MailGame(tmp_path, "suber", (ALICE, BOB, CAROL))
    for proposer, number in ((ALICE, 301), (BOB, 302)):
        game.send(proposer, "idea", f"PROPOSE Idea {number}\nPlayers may sing.\nEND PROPOSE\n")
        for voter in (ALICE, BOB, CAROL):
            game.send(voter, "vote", f"VOTE {number} FOR\n")
    yield game
    game.close()


def _export(game: MailGame) -> Lines:
    return [dict(line) for line in chain.lines(game.service.stored_record(), public=True)]


def _write(path: Path, lines: Lines) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["record", "verify", str(path)])
    return status, capsys.readouterr().out


def _relinked(lines: Lines) -> Lines:
    """Every hash written again from the first line: a chain that holds."""
    events = [{key: value for key, value in line.items() if key not in UNCHAINED}
              for line in lines]
    return list(chain.extend(chain.Head(), events))


def _seeds(lines: Lines) -> dict[str, bytes]:
    """The revealed seeds, by commitment: public once revealed, so the forger's too."""
    return {line["commitment"]: bytes.fromhex(line["seed"])
            for line in lines if line["type"] == "SeedRevealed"}


def _face(seed: bytes, anchor: Mapping[str, Any], draw: Mapping[str, Any]) -> str:
    candidates = draw["candidates"]
    return str(candidates[derive_index(seed, anchor["hash"], draw["label"], len(candidates))])


def _dice(lines: Lines) -> list[int]:
    return [index for index, line in enumerate(lines) if line["type"] == "DieThrown"]


def _forged(honest: Lines) -> tuple[Lines, str]:
    """The record with the first die changed as a forger would; the label of that die.

    The forger tries each earlier line as the first die's anchor, keeps one that gives
    another face, and then looks for a line that gives the second die its face again once
    every hash after the change is written anew (the game's id is random: the lines that
    suit differ from run to run, but some always do).
    """
    seeds = _seeds(honest)
    first, second = _dice(honest)
    die = honest[first]
    draw = die["draw"]
    seed = seeds[draw["commitment"]]
    for anchor in honest[:first]:
        face = _face(seed, anchor, draw)
        if face == draw["outcome"]:
            continue
        lines = [dict(line) for line in honest]
        lines[first] = {**die, "value": int(face),
                        "draw": {**draw, "outcome": face, "after": anchor["seq"]}}
        lines = _relinked(lines)
        later = lines[second]["draw"]
        kept = [line for line in lines[:second]
                if _face(seeds[later["commitment"]], line, later) == later["outcome"]]
        if kept:
            lines[second] = {**lines[second], "draw": {**later, "after": kept[0]["seq"]}}
            return _relinked(lines), str(draw["label"])
    raise AssertionError("no forgery found: every earlier line gives the die its face")


def test_the_honest_export_verifies_both_dice(
        played: MailGame, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _export(played)
    assert [lines[index]["draw"]["label"] for index in _dice(lines)] == ["die:301", "die:302"]
    path = _write(tmp_path / "record.jsonl", lines)
    status, said = _verify(path, capsys)
    assert status == 0 and "2 draws verified, 0 awaiting reveal" in said, said
    checked = run_docs_checker(path)
    assert (checked.returncode, checked.stdout) == (0, "2 draws verified, 0 awaiting reveal\n")


def test_a_die_re_anchored_with_every_hash_written_again_fails_naming_the_die(
        played: MailGame, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    honest = _export(played)
    forged, label = _forged(honest)
    first, second = _dice(forged)
    # A forgery done well: the chain holds, and each draw is what its revealed seed gives
    # from the line it names, with the first die on another face than it fell.
    assert chain.verify(forged) is None
    seeds = _seeds(forged)
    for index in (first, second):
        draw = forged[index]["draw"]
        named = forged[draw["after"] - 1]
        assert _face(seeds[draw["commitment"]], named, draw) == draw["outcome"]
    assert forged[first]["value"] != honest[first]["value"]
    path = _write(tmp_path / "forged.jsonl", forged)
    status, said = _verify(path, capsys)
    assert status == 1, said
    assert "the record's chain holds" in said
    named = f"draw {label} (event {forged[first]['seq']}) does not verify: it is anchored to "
    assert named in said and "the last line recorded before its moment" in said, said
    checked = run_docs_checker(path)
    assert checked.returncode == 1 and checked.stderr == "", checked.stderr
    assert f"draw {label} (event {forged[first]['seq']}) does not verify" in checked.stdout


def test_a_die_thrown_after_other_mail_of_its_batch_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An IMAP fetch taken in one transaction: the proposal, then the ballots that close it.

    The die's moment (the last ballot's time) comes after a public line of the same
    transaction, the proposal; its anchor is that line, the last before its moment, and the
    engine's view of the record's head is the store's.
    """
    game = MailGame(tmp_path, "suber", (ALICE, BOB, CAROL))
    try:
        fetched = []
        for minutes, (sender, body) in enumerate(
                [(ALICE, "PROPOSE Tea\nTea is served.\nEND PROPOSE\n")]
                + [(voter, "VOTE 301 FOR\n") for voter in (ALICE, BOB, CAROL)], start=1):
            at = game.clock.now + timedelta(minutes=minutes)
            fetched.append(Received(raw_mail(sender, "mail", body, date=at), at, "imap"))
        game.clock.now += timedelta(minutes=10)
        assert game.service.take_in(fetched) == ["processed"] * 4
        lines = _export(game)
        [first] = _dice(lines)
        proposed = next(line for line in lines if line["type"] == "ProposalSubmitted")
        assert lines[first]["draw"]["after"] == proposed["seq"]
        status, said = _verify(_write(tmp_path / "record.jsonl", lines), capsys)
        assert status == 0 and "1 draws verified, 0 awaiting reveal" in said, said
        head = game.service.state().record.head
        assert (head.seq, head.hash) == (lines[-1]["seq"], lines[-1]["hash"])
    finally:
        game.close()
