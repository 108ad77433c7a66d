"""With ``[site] url`` set, results and digests link to the archive's pages; without, not."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from tests.support.mailgame import ALICE, BOB, MailGame

URL = "https://nomic.example/archive"


def _results_and_digest(game: MailGame) -> tuple[str, str]:
    game.send(ALICE, "idea", "PROPOSE Tea\nTea is served.\nEND PROPOSE\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    game.clock.now += timedelta(days=8)
    game.service.tick()
    game.service.send_digest()
    mail = game.outbox()
    results = next(m for m in mail if "Proposal 301 ADOPTED" in m.subject
                   or "Proposal 301 REJECTED" in m.subject)
    digest = next(m for m in mail if m.subject.endswith("Digest"))
    return results.body, digest.body


@pytest.mark.parametrize("url", [URL, URL + "/"])
def test_results_and_digests_link_to_the_archive(tmp_path: Path, url: str) -> None:
    game = MailGame(tmp_path, "nomicam", (ALICE, BOB), site={"url": url})
    try:
        results, digest = _results_and_digest(game)
    finally:
        game.close()
    assert re.search(rf"  {re.escape(URL)}/games/[0-9a-f]{{16}}/proposals/301\.html\n", results)
    assert f"  {URL}/index.html\n" in digest


def test_without_an_address_no_link_is_written(tmp_path: Path) -> None:
    game = MailGame(tmp_path, "nomicam", (ALICE, BOB))
    try:
        results, digest = _results_and_digest(game)
    finally:
        game.close()
    assert "http" not in results and "http" not in digest

