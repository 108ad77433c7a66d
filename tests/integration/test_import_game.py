"""A hand-run game imported at proposal 457 and played on through the running daemon.

Real Dovecot, a real SMTP sink, SQLite and PostgreSQL. ``speakerbot import`` reads the
project's worked example (six players with scores, proposal 456 open, ruleset suber); the
players are told with the ruleset's digest and 456 is distributed again; the next proposal
by mail is numbered 457; the scores count on from the imported ones; and HISTORY, ``speakerbot
history`` and the archive all begin with the import, naming its source.
"""

from __future__ import annotations

import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from speakerbot.engine.model import ProposalStatus
from tests.cli.test_rulesets import ROOT
from tests.integration.game_harness import MakeGame, RunningGame, body_of, subject_of

pytestmark = pytest.mark.integration

SOURCE = "the Pine Street list, run by hand by Ann from January to November 2026"
IMPORTED = {"ann@example.org": 57, "bea@example.org": 112, "cyd@example.org": -5,
            "dora@example.org": 88, "eli@example.org": 31, "fay@example.org": 0}
ANN, DORA, ELI = "ann@example.org", "dora@example.org", "eli@example.org"
WELCOME = "Welcome to "
FIRST_LINE = f"The game Pine Street Nomic was imported from {SOURCE}"


def flat(text: str) -> str:
    """Text with its wrapping undone, to find a sentence wherever its lines broke."""
    return " ".join(text.split())


def imported(game: RunningGame) -> str:
    """Import the worked example (copied beside the config) and return the digest printed."""
    shutil.copy(ROOT / "config" / "example-import.toml", game.tmp / "pine-street.toml")
    done = game.cli("import", "pine-street.toml")
    assert "6 players, next proposal 457" in done.stdout, done.stdout
    found = re.search(r"^ruleset digest: sha256 ([0-9a-f]{64})$", done.stdout, re.MULTILINE)
    assert found is not None, done.stdout
    return found.group(1)


def vote_all(game: RunningGame, number: int, against: tuple[str, ...] = ()) -> None:
    for address in IMPORTED:
        choice = "AGAINST" if address in against else "FOR"
        game.send(address, f"vote {number}", f"VOTE {number} {choice}\n")


def die_thrown(game: RunningGame, mover: str) -> list[int]:
    return [int(str(event["value"])) for event in game.events()
            if event["type"] == "DieThrown" and event["player"] == mover]


def check_announced(game: RunningGame, digest: str) -> None:
    """Each player is told, with the digest; proposal 456 is sent again to each."""
    for address in IMPORTED:
        body = body_of(game.wait_subject("The game continues here", to=address))
        assert "Ruleset digest (SHA-256" in body and f"    {digest}" in body.splitlines(), body
        assert "The next proposal is numbered 457." in flat(body), body
        assert "Bea 112" in flat(body) and "Cyd -5" in flat(body), body
        assert "Open proposals, each sent again in a message of its own: 456." in flat(body)
        again = body_of(game.wait_subject("Proposal 456: Shorter titles", to=address))
        assert "Every proposal shall have a title of no more than six words." in flat(again)


def test_an_imported_game_goes_on_from_proposal_457_and_its_scores(
        make_game: MakeGame, tmp_path: Path) -> None:
    game = make_game("suber", {"reminder_before": "none"})
    digest = imported(game)
    game.start()
    check_announced(game, digest)
    state = game.state()
    assert {a: p.score for a, p in state.players.items() if a in IMPORTED} == {
        a: Decimal(s) for a, s in IMPORTED.items()}
    assert state.turn is not None and state.turn.mover == DORA
    assert state.proposals[456].ballots == {}

    # Dora's open proposal is defeated: she loses 5 (the snapshot's rule 389) from her 88,
    # and throws the die for her turn.
    vote_all(game, 456, against=(ANN,))
    game.wait_subject("Proposal 456 REJECTED")
    [dora_threw] = die_thrown(game, DORA)
    # Then it is Eli's turn, and the next proposal is numbered 457.
    turn = game.state().turn
    assert turn is not None and turn.mover == ELI
    game.send(ELI, "PROPOSE: Biscuits", "Biscuits.\nENACT RULE:\nBiscuits come with tea.\n")
    game.wait_subject("Proposal 457: Biscuits")
    vote_all(game, 457)
    game.wait_subject("Proposal 457 ADOPTED")
    [eli_threw] = die_thrown(game, ELI)
    state = game.state()
    assert state.proposals[456].status is ProposalStatus.REJECTED
    assert state.rules[457].text == "Biscuits come with tea."
    expected = {**IMPORTED, DORA: 88 - 5 + dora_threw, ELI: 31 + eli_threw}
    assert {a: p.score for a, p in state.players.items() if a in IMPORTED} == {
        a: Decimal(s) for a, s in expected.items()}
    assert state.next_proposal == 458

    # HISTORY by mail, speakerbot history and the archive begin with the import.
    game.send(ANN, "what happened", "HISTORY 100\n")
    history = flat(body_of(game.wait_subject("Re: what happened", to=ANN)))
    assert re.search(r"#1 \S+ \S+ UTC " + re.escape(FIRST_LINE), history), history
    # An imported rule keeps its title and the history the group kept by hand.
    game.send(ANN, "which rule", "SHOW RULE 412\n")
    shown = flat(body_of(game.wait_subject("Re: which rule", to=ANN)))
    assert "Rule 412: Winning (mutable)" in shown, shown
    assert "Rule 208 in the initial set (100 points)" in shown, shown
    assert "Amended by proposal 412, 30 August 2026, and renumbered 412" in shown, shown
    assert game.stop() == 0
    printed = flat(game.cli("history", "100").stdout)
    assert re.search(r"#1 \S+ \S+ UTC " + re.escape(FIRST_LINE), printed), printed
    assert "#2 " in printed and printed.index("#1 ") < printed.index("#2 ")
    game.cli("site", "build", str(tmp_path / "built"))
    timeline = (tmp_path / "built" / "history" / "index.html").read_text()
    first = timeline[timeline.index('<li id="e'):]
    assert first.startswith('<li id="e1">'), first[:200]
    assert FIRST_LINE in first[: first.index("</li>")], first[:400]
    record = (tmp_path / "built" / "record.jsonl").read_text().splitlines()
    assert '"type":"GameStarted"' in record[0] and f'"imported_from":"{SOURCE}"' in record[0]
    # An import's players are no newcomers: no welcome unless the host asks.
    assert not [m for m in game.sink.messages if subject_of(m).startswith("Welcome")]


def welcomes_to(game: RunningGame, address: str) -> list[str]:
    return [body_of(m) for m in game.sink.messages
            if WELCOME in subject_of(m) and address in m.rcpt_tos]


def test_an_import_welcomes_its_players_when_the_host_asks(make_game: MakeGame) -> None:
    game = make_game("suber", {"reminder_before": "none"})
    shutil.copy(ROOT / "config" / "example-import.toml", game.tmp / "pine-street.toml")
    done = game.cli("import", "--welcome", "pine-street.toml")
    assert "each of the 6 players gets the welcome" in done.stdout, done.stdout
    game.start()
    first = {}
    for address in IMPORTED:
        first[address] = game.wait_subject(WELCOME, to=address)
        body = body_of(first[address])
        # What is open now, with the exact lines to vote on it.
        assert "Proposal 456: Shorter titles" in body and "VOTE 456 AGAINST" in body, body
    # Asked again for one player, she alone gets it again; a stranger is refused, and
    # nothing is queued for anyone.
    refused = game.cli("player", "welcome", ELI, "zed@example.org", check=False)
    assert refused.returncode == 1 and "zed@example.org" in refused.stderr, refused.stderr
    assert game.cli("player", "welcome", check=False).returncode != 0
    again = game.cli("player", "welcome", ELI)
    assert f"a welcome for 1 player is in the outbox: {ELI}" in again.stdout, again.stdout
    game.wait_for(lambda m: m is not first[ELI] and ELI in m.rcpt_tos
                  and WELCOME in subject_of(m))
    game.send(ANN, "anything new", "STATUS\n")
    game.wait_subject("Re: anything new", to=ANN)
    assert [len(welcomes_to(game, a)) for a in IMPORTED] == [1, 1, 1, 1, 2, 1]
