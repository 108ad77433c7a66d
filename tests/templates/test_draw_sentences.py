"""What mail and the record say of a provable draw and of the game's seeds.

A draw is said by its label, its candidates in order and its outcome; an event recorded
before draws were provable is said as it always was. Only the sentence of a seed revealed
holds a seed: a seed committed and a game begun show commitments.
"""

from __future__ import annotations

import dataclasses

import pytest

from speakerbot.engine import events as e
from speakerbot.engine.draw_events import Draw
from speakerbot.engine.model import GameState
from speakerbot.engine.seeds import CLOSED_VOTE, GAME_OVER, HOST_ASKED
from speakerbot.mail.outbound.sentences import news_line, record_line
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, NAMES, T0
from tests.engine.harness import Game

SEED = "5e" * 32
COMMITMENT = "c0" * 32
NEXT = "ae" * 32
LOST = "10" * 32


@pytest.fixture(scope="module")
def state() -> GameState:
    return Game("nomicam", [ALICE, BOB, CAROL, DAVE]).state


def _name(address: str) -> str:
    return NAMES.get(address, address)


def _die(draw: Draw | None = None) -> e.DieThrown:
    return e.DieThrown(T0, ALICE, 6, 4, draw)


def _judge(draw: Draw | None = None, drawn_from: tuple[str, ...] = ()) -> e.JudgeAssigned:
    return e.JudgeAssigned(T0, 4, BOB, "a random Voter, as the Speaker invoked judgement",
                           None, drawn_from, draw)


def _new_game(draw: Draw | None = None) -> e.NewGameBegun:
    return e.NewGameBegun(T0, 2, CAROL, ALICE, (BOB, CAROL), 50, draw)


DIE_DRAW = Draw("die:302", tuple(str(face) for face in range(1, 7)), "4", 41, COMMITMENT)
JUDGE_DRAW = Draw("judge:cfj-4", (BOB, CAROL, DAVE), BOB, 52, COMMITMENT)
SPEAKER_DRAW = Draw("speaker:game-2", (BOB, CAROL), CAROL, 60, COMMITMENT)


def test_a_die_with_its_draw(state: GameState) -> None:
    assert news_line(_die(DIE_DRAW), state) == (
        "Alice threw a 6-sided die: 4 (draw die:302, from 1 to 6)")
    # The record names the line the draw was anchored to, for whoever checks it.
    assert record_line(_die(DIE_DRAW), _name) == (
        "Alice threw a 6-sided die: 4 (draw die:302, from 1 to 6, after line 41)")


def test_a_die_without_a_draw_is_said_as_before(state: GameState) -> None:
    assert news_line(_die(), state) == "Alice threw a 6-sided die: 4"
    assert record_line(_die(), _name) == "Alice threw a 6-sided die: 4"


def test_a_random_judge_with_its_draw(state: GameState) -> None:
    assert news_line(_judge(JUDGE_DRAW, (BOB, CAROL, DAVE)), state) == (
        "CFJ 4: Bob is the Judge (a random Voter, because the Speaker called this CFJ; draw "
        "judge:cfj-4 among Bob, Carol and Dave)")
    assert record_line(_judge(JUDGE_DRAW, (BOB, CAROL, DAVE)), _name) == (
        "CFJ 4: Bob is the Judge (a random Voter, because the Speaker called this CFJ; draw "
        "judge:cfj-4 among Bob, Carol and Dave, after line 52)")


def test_a_judge_drawn_before_draws_were_provable_is_said_as_before(state: GameState) -> None:
    said = "CFJ 4: Bob is the Judge (a random Voter, because the Speaker called this CFJ)"
    assert news_line(_judge(None, (BOB, CAROL, DAVE)), state) == said
    assert record_line(_judge(None, (BOB, CAROL, DAVE)), _name) == said


def test_a_new_speaker_drawn_among_winners(state: GameState) -> None:
    assert news_line(_new_game(SPEAKER_DRAW), state) == (
        "Game 2 begins; Carol is the Speaker (draw speaker:game-2 among Bob and Carol)")
    assert news_line(_new_game(), state) == "Game 2 begins; Carol is the Speaker"
    assert record_line(_new_game(SPEAKER_DRAW), _name) == (
        "Game 2 begins; Carol is the Speaker (draw speaker:game-2 among Bob and Carol, "
        "after line 60)")


def test_a_draw_in_the_public_record_names_its_candidates_by_public_id() -> None:
    """In a public record the candidates are public ids: named as the archive knows them."""
    public = {"p-1": "Bob", "p-2": "Carol"}
    draw = Draw("judge:cfj-4", ("p-1", "p-2", "p-3"), "p-1", 52, COMMITMENT)
    line = record_line(e.JudgeAssigned(T0, 4, "p-1", "a random Voter", None, (), draw),
                       lambda key: public.get(key, key))
    assert line == ("CFJ 4: Bob is the Judge (a random Voter; draw judge:cfj-4 among Bob, "
                    "Carol and p-3, after line 52)")


@pytest.mark.parametrize("reason", [CLOSED_VOTE, HOST_ASKED])
def test_a_seed_revealed_gives_the_seed_why_the_next_and_how_to_check(
        state: GameState, reason: str) -> None:
    event = e.SeedRevealed(T0, COMMITMENT, SEED, NEXT, reason)
    said = news_line(event, state)
    assert said == (
        f"The seed of the game's draws is revealed, because {reason}: seed {SEED}, which "
        f"matches the commitment published before its draws, {COMMITMENT}; the next "
        f"seed's commitment is {NEXT}. To check every draw made with it: speakerbot record "
        "verify (docs/verifying.md)")
    # The record keeps the seed whole: a shortened one could not be checked.
    assert record_line(event, _name) == said


def test_a_seed_revealed_at_the_end_of_the_game_needs_no_next(state: GameState) -> None:
    said = news_line(e.SeedRevealed(T0, COMMITMENT, SEED, "", GAME_OVER), state)
    assert "because the game is over" in said and SEED in said
    assert "no next seed is needed: the game is over." in said
    assert "next seed's commitment" not in said


def test_a_seed_committed_gives_its_commitment_and_what_it_replaces(state: GameState) -> None:
    assert news_line(e.SeedCommitted(T0, COMMITMENT), state) == (
        "A seed was drawn for the game's draws and kept secret until it is revealed; its "
        f"commitment is {COMMITMENT}")
    replacing = record_line(e.SeedCommitted(T0, COMMITMENT, replaces=LOST), _name)
    assert replacing is not None and replacing.endswith(
        f"its commitment is {COMMITMENT}, replacing the seed of commitment {LOST}, which the "
        "game no longer holds")


def test_the_record_gives_a_game_s_first_commitment(state: GameState) -> None:
    started = next(ev for ev in Game("nomicam").events if isinstance(ev, e.GameStarted))
    before = record_line(started, _name)
    assert before is not None and "seed" not in before  # a game begun before seeds
    with_seed = dataclasses.replace(started, commitment=COMMITMENT)
    assert record_line(with_seed, _name) == f"{before}; its first seed's commitment is {COMMITMENT}"
    assert news_line(with_seed, state) == news_line(started, state)
