"""The engine anchors each draw where the record says: the last line before its moment.

Issue 37 (5): a draw's anchor is the record's to say, so the engine must know, in the
middle of a decision, the public record's lines as the store will link them. Each game
here is played on the engine alone; its public record is linked as the store links it
(``record_lines``) and checked as ``record verify`` checks it (``check_draws``).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from speakerbot.engine import GameState, apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.draw_check import DrawReport, check_draws
from speakerbot.engine.draw_events import RecordLine
from speakerbot.engine.luck import SeededDraws
from speakerbot.engine.model import Choice
from speakerbot.presets import load_preset
from tests.engine.cast import ALICE, BOB, CAROL, SPEAKER, T0
from tests.engine.harness import (
    OTHER_BEHAVIOUR,
    Game,
    RecordedDraws,
    enact,
    nomicam,
    record_lines,
)


def test_a_die_is_anchored_to_the_line_before_the_close_that_threw_it() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    number = g.propose(ALICE, enact("Players may sing."))
    closing = g.votes(number, alice="FOR", bob="FOR", carol="FOR")
    [thrown] = g.of(e.DieThrown, closing)
    lines = record_lines(g.events)
    closed = next(line for line in lines if line["type"] == "VoteClosed")
    # The close and the die are lines of one moment, the last ballot's: anchored before both.
    assert thrown.draw is not None and thrown.draw.after == closed["seq"] - 1
    assert closed["at"] == next(line for line in lines if line["type"] == "DieThrown")["at"]
    assert check_draws(lines) == DrawReport(verified=1)


def test_a_judge_drawn_in_a_speaker_s_override_is_anchored_as_the_record_is_written() -> None:
    """The override is recorded first, though composed after the decision's other events:
    the lines after it are linked again, and the draw still verifies."""
    g = nomicam(provable=True)
    g.ok(c.CallForJudgement(SPEAKER, "Tea is hot."))
    first = g.last(e.JudgeAssigned)
    removed = g.ok(c.RemovePlayer(SPEAKER, first.judge, "gone"))
    assert [type(event) for event in removed] == [e.SpeakerOverride, e.PlayerLeft,
                                                  e.JudgeAssigned]
    g.ok(c.RevealSeed(SPEAKER))
    lines = record_lines(g.events)
    head = g.state.record.head
    assert (head.seq, head.hash) == (lines[-1]["seq"], lines[-1]["hash"])
    assert check_draws(lines) == DrawReport(verified=2)


def test_the_record_runs_on_from_one_game_to_the_next() -> None:
    g = Game("suber", [ALICE, BOB, CAROL], provable=True)
    g.ok(c.AdjustScore(SPEAKER, "Alice", Decimal(5), "a head start"))
    g.ok(c.EndGame(SPEAKER, "time to stop"))
    assert g.provable is not None
    g.ok(c.StartGame(SPEAKER, load_preset("suber"), "Chuck",
                     commitment=g.provable.commit("the next game")))
    lines = record_lines(g.events)
    assert sum(1 for line in lines if line["type"] == "GameStarted") == 2
    head = g.state.record.head
    assert (head.seq, head.hash) == (lines[-1]["seq"], lines[-1]["hash"])


def test_a_draw_in_the_record_s_first_moment_is_anchored_to_its_start() -> None:
    """Everything at one time, from the game's start to the die: no line comes before the
    die's moment, so it is anchored to the record's start (line 0, 64 zeros)."""
    state = GameState()
    events: list[e.Event] = []
    source = RecordedDraws(events)

    def run(command: c.Command) -> list[e.Event]:
        nonlocal state
        state, made = apply(state, command, T0, source)
        assert not any(isinstance(event, e.CommandRejected) for event in made), made
        events.extend(made)
        return made

    run(c.StartGame(SPEAKER, load_preset("suber"), "Chuck", mechanics=dict(OTHER_BEHAVIOUR),
                    commitment=source.commit("")))
    for address, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")):
        run(c.AddPlayer(SPEAKER, address, name))
    run(c.Propose(ALICE, "Sing", "Players may sing.", (enact("Players may sing."),)))
    closing = [made for voter in (ALICE, BOB, CAROL)
               for made in run(c.CastBallot(voter, 301, Choice.FOR))]
    [thrown] = [event for event in closing if isinstance(event, e.DieThrown)]
    assert thrown.draw is not None and thrown.draw.after == 0
    assert check_draws(record_lines(events)) == DrawReport(verified=1)


def test_a_source_refuses_to_draw_from_a_line_the_store_hashes_otherwise() -> None:
    """The engine folds the record's hashes itself; should they ever differ from the
    store's, a draw from them would never verify: the service's source stops it."""
    source = SeededDraws(7, "ab" * 32, lambda _: bytes(32), lambda _: bytes(32), lambda _: 0)
    assert source.pick("die:301", 6, "c" * 64, RecordLine(6, "cd" * 32)) in range(6)
    assert source.pick("die:301", 6, "c" * 64, RecordLine(7, "ab" * 32)) in range(6)
    with pytest.raises(RuntimeError, match="not the store's"):
        source.pick("die:301", 6, "c" * 64, RecordLine(7, "cd" * 32))
