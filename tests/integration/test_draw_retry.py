"""A transaction tried again draws again exactly as its first attempt would have.

Found by an attack review of issue 27: had a draw depended on anything the transaction
decided itself (a seed it committed, a time read from the clock, a fresh salt), a host
could pull the plug until the draw suited them, and the record would show only the attempt
that committed. Here the host reveals the seed and calls for judgement in one message, so
that the random Judge is drawn with the seed committed in that very transaction; the first
attempt fails after the engine decided, and the retry must draw the same Judge with the
same seeds.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import events as e
from tests.support.mailgame import ALICE, BOB, CAROL, DAVE, PASSWORD, SPEAKER, mail_games

MESSAGE = f"PASSWORD {PASSWORD}\nADMIN REVEAL\nCFJ Proposal 301 is legal.\n"


def test_a_message_tried_again_draws_the_same_judge_with_the_same_seed(
        tmp_path: Path) -> None:
    with mail_games(tmp_path) as make:
        game = make("nomicam", [ALICE, BOB, CAROL, DAVE])
        announcer = game.service.announcer
        decided: list[list[e.Event]] = []
        real = announcer.messages

        def fails_once(events: list[e.Event], *args: Any, **kwargs: Any) -> Any:
            if any(isinstance(event, e.JudgeAssigned) for event in events) and not decided:
                decided.append(list(events))
                raise RuntimeError("the power failed after the draw")
            return real(events, *args, **kwargs)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(announcer, "messages", fails_once)
            game.receive(SPEAKER, "reveal and judge", MESSAGE)
            for delay in (0, *game.service.retry_delays[:2]):
                game.clock.now += timedelta(seconds=delay)
                game.process()
        assert decided, "the first attempt never drew"
        recorded = [row.data for row in game.store.load_events()]
        [first] = [ev for ev in decided[0] if isinstance(ev, e.JudgeAssigned)]
        [committed] = [data for data in recorded if data["type"] == "JudgeAssigned"]
        assert first.draw is not None and committed["draw"] is not None
        assert committed["judge"] == first.judge
        assert committed["draw"]["after"] == first.draw.after
        assert committed["draw"]["commitment"] == first.draw.commitment
        [revealed] = [ev for ev in decided[0] if isinstance(ev, e.SeedRevealed)]
        [kept] = [data for data in recorded if data["type"] == "SeedRevealed"]
        assert kept["next_commitment"] == revealed.next_commitment
        # The Judge was drawn with the seed committed in the same transaction.
        assert first.draw.commitment == revealed.next_commitment
