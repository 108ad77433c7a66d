"""The archive shows each provable draw and each seed revealed, and no seed still secret.

The timeline and the page of the proposal whose close threw the die say the draw (label,
candidates, outcome) and the reveal of its seed; the seed committed in its place shows on
no page, in no file.
"""

from __future__ import annotations

import html

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.luck import SeededDraws, commitment_of
from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER
from tests.engine.harness import Game, enact
from tests.site.records import public_lines

SEEDS = [bytes([n]) * 32 for n in range(1, 5)]


def _site() -> tuple[Game, dict[str, str]]:
    fresh = iter(SEEDS)
    game = Game("suber", [ALICE, BOB, CAROL])
    game.provable = SeededDraws(after=7, anchor="ab" * 32, seed_of=lambda _: None,
                                   fresh=lambda _: next(fresh), chance=lambda _: 0)
    first = game.propose(ALICE, enact("Players may sing."))
    game.votes(first, alice="FOR", bob="FOR", carol="FOR")
    game.ok(c.RevealSeed(SPEAKER))
    files = build_site(public_lines([("g-one", game)]), templates_dir() / "site", name="Test")
    return game, {path: html.unescape(content.decode("utf-8", "replace"))
                  for path, content in files.items()}


def test_the_proposal_page_and_the_timeline_show_the_draw_and_the_reveal() -> None:
    game, pages = _site()
    die = game.last(e.DieThrown)
    assert die.draw is not None  # anchored where the record says: the line before its moment
    said = (f"Alice threw a 6-sided die: {die.value} (draw die:301, from 1 to 6, after line "
            f"{die.draw.after})")
    revealed = (f"The seed of the game's draws is revealed, because a voting period in which "
                f"it was used has closed: seed {SEEDS[0].hex()}, which matches the commitment "
                f"published before its draws, {commitment_of(SEEDS[0])}")
    proposal = pages["proposals/301.html"]
    assert said in proposal and revealed in proposal
    timeline = pages["history/index.html"]
    assert said in timeline and revealed in timeline
    assert f"its commitment is {commitment_of(SEEDS[0])}" in timeline  # the first, committed
    # ADMIN REVEAL: the second seed, revealed because the host asked.
    assert f"because the host asked: seed {SEEDS[1].hex()}" in timeline
    assert f"the next seed's commitment is {commitment_of(SEEDS[2])}" in timeline


def test_no_file_holds_a_seed_not_yet_revealed() -> None:
    game, pages = _site()
    assert game.state.commitment == commitment_of(SEEDS[2])
    assert all(SEEDS[2].hex() not in content for content in pages.values())
    # A revealed seed stands only where its reveal is said (and in the record's own line).
    # The game's pages stand at the root and again under games/<id>/.
    for path, content in pages.items():
        page = path.removeprefix("games/g-one/")
        if SEEDS[0].hex() in content:
            assert page in ("proposals/301.html", "record.jsonl") or page.startswith(
                "history/"), path
