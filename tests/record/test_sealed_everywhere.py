"""Sealed means sealed, everywhere: before a vote closes, nothing published depends on it.

Two games are played side by side through the GameService on real SQLite stores, fed raw
mail at the same moments: in one the players cast, change and withdraw ballots; in the
other they send STATUS instead. After every message, everything either game publishes —
the web archive's every page, the public record's export, every message to more than one
person — must be the same in both, once each game's own id and hashes are set aside.
Whatever differed would be something a ballot changed. At the close they may differ.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.support.mailgame import ALICE, BOB, CAROL, DAVE, MailGame

VOTERS = (ALICE, BOB, CAROL, DAVE)
_HASH = re.compile(r"\b[0-9a-f]{64}\b")
_DATE_HEADER = re.compile(r"^Date: .*$", re.MULTILINE)

# Each step: who sends what in the game with ballots. DAVE never votes, so no vote
# closes early because everyone has voted.
BALLOTS = (
    (BOB, "VOTE 301 FOR"), (CAROL, "VOTE 301 AGAINST"), (BOB, "VOTE 301 AGAINST"),
    (ALICE, "VOTE 302 FOR\nVOTE 301 FOR"), (CAROL, "VOTE 301 ABSTAIN"),
    (BOB, "VOTE 302 AGAINST"),
)


@pytest.fixture
def games(tmp_path: Path) -> Iterator[tuple[MailGame, MailGame]]:
    voting = MailGame(tmp_path / "voting", "nomicam", VOTERS)
    silent = MailGame(tmp_path / "silent", "nomicam", VOTERS)
    yield voting, silent
    voting.close()
    silent.close()


def published(game: MailGame) -> dict[str, str]:
    """Everything the game has published, by where, with its own id and hashes masked."""
    game_id = game.service.state().game_id
    lines = game.service.public_record()
    files = build_site(lines, templates_dir() / "site", name="Camford Nomic")
    out = {f"site/{path}": content.decode("utf-8", "replace") for path, content in
           files.items() if not path.endswith(".svg")}
    out["record"] = "\n".join(repr({k: v for k, v in line.items() if k not in ("prev", "hash")})
                              for line in lines)
    for number, mail in enumerate(m for m in game.outbox() if len(m.recipients) > 1):
        out[f"mail/{number}"] = f"{mail.subject}\n{mail.body}"
    return {where.replace(game_id, "GAME-ID"): _HASH.sub("HASH", text.replace(game_id, "GAME-ID"))
            for where, text in out.items()}


def test_nothing_published_before_the_close_depends_on_the_ballots(
        games: tuple[MailGame, MailGame]) -> None:
    voting, silent = games
    for game in games:
        game.send(ALICE, "idea", "PROPOSE Tea\nTea is served.\nEND PROPOSE\n")
        game.send(CAROL, "idea", "PROPOSE Cake\nCake is served.\nEND PROPOSE\n")
    assert published(voting) == published(silent)
    for voter, body in BALLOTS:
        voting.send(voter, "ballot", body + "\n")
        silent.send(voter, "status", "STATUS\n")
        assert published(voting) == published(silent), body
    for game in games:  # the reminders and a digest, still before the close
        game.clock.now += timedelta(days=6)
        game.service.tick()
        game.service.send_digest()
    assert published(voting) == published(silent)
    for game in games:
        game.clock.now += timedelta(days=2)
        game.service.tick()
    after = published(voting), published(silent)
    assert after[0] != after[1], "at the close the ballots are revealed, so they differ"
