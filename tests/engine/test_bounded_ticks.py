"""A tick with a budget does a bounded piece; ticking on at the same time finishes the rest.

The pieces together are exactly the one tick: the same events in the same order (die rolls
and Judges drawn included), and the same state.
"""

from __future__ import annotations

import random
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine import GameState, apply, due_by, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.luck import SeededDraws
from speakerbot.engine.model import Choice
from speakerbot.presets import load_preset
from tests.engine.test_reminder_rounds import SPEAKER, T0

PLAYERS = [f"p{i}@example.org" for i in range(6)]


def _backlog(preset: str, proposals: int, cfjs: int, seed: int) -> GameState:
    rng = random.Random(seed)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    state, _ = apply(GameState(), c.StartGame(
        SPEAKER, load_preset(preset), "Speaker",
        mechanics={"win_points": "1000000", "debate": "none", "turn_period": "none",
                   "judge_period": "2d"}), T0, draws)
    for i, player in enumerate(PLAYERS):
        state, _ = apply(state, c.AddPlayer(SPEAKER, player, f"Player {i}"), T0, draws)
    for n in range(proposals):
        state, _ = apply(state, c.Propose(PLAYERS[n % len(PLAYERS)], f"P{n}", "Text."),
                         T0 + timedelta(minutes=n), draws)
    for proposal in state.open_proposals():
        for player in PLAYERS[:rng.randint(0, len(PLAYERS))]:
            state, _ = apply(state, c.CastBallot(player, proposal.number,
                                                 rng.choice(list(Choice))), T0, draws)
    for n in range(cfjs):
        state, _ = apply(state, c.CallForJudgement(PLAYERS[n % len(PLAYERS)], f"Is {n} so?"),
                         T0, draws)
    return state


@settings(max_examples=40, deadline=None)
@given(preset=st.sampled_from(["nomicam", "speaker"]), proposals=st.integers(0, 30),
       cfjs=st.integers(0, 4), budget=st.integers(1, 7), seed=st.integers(0, 1000),
       days=st.integers(1, 20))
def test_a_backlog_ticked_in_pieces_is_the_one_tick(
        preset: str, proposals: int, cfjs: int, budget: int, seed: int, days: int) -> None:
    start = _backlog(preset, proposals, cfjs, seed)
    now = T0 + timedelta(days=days)
    whole, expected = tick(start, now, SeededDraws.by_chance(random.Random(seed).randrange))
    draws = SeededDraws.by_chance(random.Random(seed).randrange)
    state, events, pieces = start, [], 0
    while due_by(state, now):
        state, piece = tick(state, now, draws, budget=budget)
        assert piece, "a tick with something due did nothing"
        events += piece
        pieces += 1
    assert events == expected and state == whole
    assert not due_by(whole, now)
    closed = sum(isinstance(ev, e.VoteClosed) for ev in expected)
    assert pieces >= -(-closed // budget)  # never more than the budget of closes in a piece
