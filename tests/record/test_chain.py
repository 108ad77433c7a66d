"""The record's hash chains: pure properties, and the database's chain under tampering.

A game is played through the GameService on a real SQLite store; ``record export`` and
``record verify`` are then run as a user runs them (a subprocess with a config file).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speakerbot.engine import chain
from tests.record.cli import speakerbot, write_config
from tests.support.mailgame import ALICE, BOB, CAROL, MailGame

# --- Pure -----------------------------------------------------------------------------------

values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                      lambda inner: st.lists(inner, max_size=3), max_leaves=6)
event_data = st.fixed_dictionaries(
    {"type": st.sampled_from(["ProposalSubmitted", "BallotCast", "ScoreChanged", "Mystery"]),
     "at": st.just("2026-11-24T00:00:00+00:00")},
    optional={"number": st.integers(0, 999), "text": st.text(max_size=20), "list": values})


@given(st.lists(event_data, min_size=1, max_size=12))
def test_a_chain_holds_and_any_change_to_a_line_breaks_it_there(
        events: list[dict[str, Any]]) -> None:
    lines = list(chain.extend(chain.Head(), events))
    assert chain.verify(lines) is None
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    for index in range(len(lines)):
        changed = [dict(line) for line in lines]
        changed[index]["at"] = "2026-11-24T00:00:01+00:00"
        broken = chain.verify(changed)
        assert broken is not None and broken.seq == index + 1
        shortened = lines[:index] + lines[index + 1:]
        if index < len(lines) - 1:
            assert chain.verify(shortened) is not None


@given(st.lists(event_data, max_size=12))
def test_the_public_record_takes_no_number_from_a_private_event(
        events: list[dict[str, Any]]) -> None:
    placed, links = chain.link_all(chain.Links(), enumerate(events, start=1))
    public = [event for event in events if chain.is_public(event)]
    assert links.public.seq == len(public)
    assert [place.public_seq for place in placed if place.public_seq] == \
        list(range(1, len(public) + 1))
    assert all(place.public_seq is None for place, event in zip(placed, events, strict=True)
               if event["type"] == "BallotCast")
    stored = [chain.StoredEvent(seq, data, place)
              for (seq, data), place in zip(enumerate(events, start=1), placed, strict=True)]
    assert chain.verify_stored(stored) is None
    assert chain.verify(list(chain.lines(stored, public=True))) is None
    assert chain.verify(list(chain.lines(stored, public=False))) is None


@given(st.lists(event_data, max_size=12), st.lists(st.integers(0, 12), max_size=4),
       st.booleans())
def test_reading_a_record_in_pieces_gives_the_lines_of_reading_it_whole(
        events: list[dict[str, Any]], cuts: list[int], public: bool) -> None:
    placed, _ = chain.link_all(chain.Links(), enumerate(events, start=1))
    stored = [chain.StoredEvent(seq, data, place)
              for (seq, data), place in zip(enumerate(events, start=1), placed, strict=True)]
    found, mark = [], chain.Bookmark()
    bounds = [0, *sorted(min(cut, len(stored)) for cut in cuts), len(stored)]
    for low, high in itertools.pairwise(bounds):
        lines, mark = chain.read_on(stored[low:high], mark, public=public)
        found.extend(lines)
    assert found == list(chain.lines(stored, public=public))
    assert mark.after == len(stored)


# --- On a real database, through the command line -------------------------------------------

@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[MailGame, Path]]:
    game = MailGame(tmp_path, "nomicam", (ALICE, BOB, CAROL))
    game.send(ALICE, "idea", "PROPOSE Tea\nTea is served.\nEND PROPOSE\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    game.send(CAROL, "vote", "VOTE 301 AGAINST\n")
    game.clock.now += timedelta(days=8)
    game.service.tick()
    yield game, write_config(game, tmp_path, "nomicam")
    game.close()


def test_verify_holds_on_a_played_game_and_names_the_event_whose_byte_changed(
        played: tuple[MailGame, Path]) -> None:
    game, config = played
    held = speakerbot(config, "record", "verify")
    assert held.returncode == 0, held.stdout + held.stderr
    assert "holds" in held.stdout
    database = game.settings.database.url.removeprefix("sqlite:///")
    with sqlite3.connect(database) as connection:
        seqs = [row[0] for row in connection.execute("SELECT seq FROM events ORDER BY seq")]
    assert len(seqs) > 10
    for seq in (seqs[0], seqs[len(seqs) // 2], seqs[-1]):
        with sqlite3.connect(database) as connection:
            (data,) = connection.execute("SELECT data FROM events WHERE seq = ?",
                                         (seq,)).fetchone()
            altered = data.replace("2026", "2025", 1)
            assert altered != data
            connection.execute("UPDATE events SET data = ? WHERE seq = ?", (altered, seq))
        broken = speakerbot(config, "record", "verify")
        assert broken.returncode == 1
        assert f"broken at event {seq}:" in broken.stdout
        with sqlite3.connect(database) as connection:
            connection.execute("UPDATE events SET data = ? WHERE seq = ?", (data, seq))
    assert speakerbot(config, "record", "verify").returncode == 0


def test_the_public_export_verifies_holds_no_sealed_ballot_and_matches_the_results_mail(
        played: tuple[MailGame, Path], tmp_path: Path) -> None:
    game, config = played
    export = tmp_path / "public.jsonl"
    assert speakerbot(config, "record", "export", "--public", str(export)).returncode == 0
    lines = [json.loads(text) for text in export.read_text().splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert not any(line["type"] in ("BallotCast", "BallotWithdrawn", "ConsentDeclared",
                                    "VoteReminder", "Reminded") for line in lines)
    assert speakerbot(config, "record", "verify", str(export)).returncode == 0
    results = next(mail for mail in game.outbox() if "ADOPTED" in mail.subject
                   or "REJECTED" in mail.subject)
    quoted = next(line for line in results.body.splitlines() if line.startswith("Record: "))
    _, seq, digest = quoted.split(" ")
    assert lines[int(seq) - 1]["hash"] == digest
    assert lines[int(seq) - 1]["type"] in ("VoteClosed", "ScoreChanged", "RuleEnacted",
                                           "TurnPassed", "GameWon")
    closed = next(line for line in lines if line["type"] == "VoteClosed")
    assert int(seq) >= closed["seq"], "the results quote a head that includes their close"
    lines[0]["title"] = "Rewritten"
    export.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rewritten = speakerbot(config, "record", "verify", str(export))
    assert rewritten.returncode == 1 and "broken at event 1:" in rewritten.stdout


def test_full_export_to_standard_output_has_every_event(played: tuple[MailGame, Path]) -> None:
    game, config = played
    out = speakerbot(config, "record", "export", "-")
    assert out.returncode == 0
    lines = [json.loads(text) for text in out.stdout.splitlines()]
    assert len(lines) == len(game.store.load_events())
    assert any(line["type"] == "BallotCast" for line in lines)
    assert chain.verify(lines) is None


def test_a_record_kept_before_the_chains_is_linked_as_if_new(
        played: tuple[MailGame, Path]) -> None:
    game, config = played
    linked = [(ev.seq, ev.links) for ev in game.store.load_events(links=True)]
    database = game.settings.database.url.removeprefix("sqlite:///")
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE events SET hash = NULL, public_seq = NULL, "
                           "public_hash = NULL")
    unlinked = speakerbot(config, "record", "verify")
    assert unlinked.returncode == 1 and "not linked" in unlinked.stdout
    assert game.service.public_record() == list(
        chain.lines(game.service.stored_record(), public=True))
    game.send(ALICE, "status", "STATUS\n")  # the next write links the older record first
    relinked = [(ev.seq, ev.links) for ev in game.store.load_events(links=True)]
    assert relinked[:len(linked)] == linked
    assert speakerbot(config, "record", "verify").returncode == 0


def _doc_block(after: str) -> str:
    """Return the indented code block that follows ``after`` in docs/verifying.md."""
    text = (Path(__file__).parents[2] / "docs" / "verifying.md").read_text()
    rest = text[text.index(after):].split("\n\n", 1)[1]
    block = []
    for line in rest.splitlines():
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return "\n".join(block).strip() + "\n"


def test_the_docs_python_check_verifies_an_export_and_finds_a_change(
        played: tuple[MailGame, Path], tmp_path: Path) -> None:
    _, config = played
    script = tmp_path / "check.py"
    script.write_text(_doc_block("Without speakerbot installed"))
    export = tmp_path / "record.jsonl"
    assert speakerbot(config, "record", "export", "--public", str(export)).returncode == 0
    ok = subprocess.run([sys.executable, str(script), str(export)], capture_output=True,
                        text=True, check=False)
    assert ok.returncode == 0 and "holds" in ok.stdout, ok.stderr
    export.write_text(export.read_text().replace("Tea is served", "Tea is banned", 1))
    bad = subprocess.run([sys.executable, str(script), str(export)], capture_output=True,
                         text=True, check=False)
    assert bad.returncode != 0
