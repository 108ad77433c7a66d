"""The stored JSON of events never changes: today's encoding of every scripted game is pinned.

The scripted games of the engine tests are played again with every event (refusals too)
collected; each is encoded and compared line by line with ``fixtures/events.jsonl``. Stored
records and their hashes depend on these bytes, so a codec change must keep them.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine import replay
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.draw_events import RecordSoFar
from speakerbot.engine.model import GameState
from speakerbot.engine.refusals import Refusal
from speakerbot.mail.outbound.wording import clause_failure_text, refusal_text
from tests.engine import (
    harness,
    test_edge_cases,
    test_locked_open_and_rurru,
    test_nomicam,
    test_overrides_and_refusals,
    test_suber,
)

FIXTURE = Path(__file__).parent / "fixtures" / "events.jsonl"
# The same games as recorded before reminder rounds: a reminder per voter per proposal
# (VoteReminder) and per CFJ (JudgeReminder), and one even when the vote closed in the same tick.
OLDER = Path(__file__).parent / "fixtures" / "events-before-reminder-rounds.jsonl"
REMINDERS = ("VoteReminder", "JudgeReminder", "Reminded", "RemindersSent")
# The host's hand work came later still: its events are new lines, and nothing else changed.
HANDWORK = ("HandWorkOpened", "HandWorkDone")
# The same games as recorded before refusals were typed: refusals as reason/remedy words.
LEGACY = Path(__file__).parent / "fixtures" / "events-before-typed-refusals.jsonl"
WORDED = (e.CommandRejected, e.ClauseFailed)
SCRIPTS = (test_nomicam, test_suber, test_locked_open_and_rurru, test_overrides_and_refusals,
           test_edge_cases)


def _calls(function: Callable[..., Any]) -> Iterator[tuple[Any, ...]]:
    """Yield the argument tuples a test function runs with (one empty tuple if unparametrized)."""
    marks = [m for m in getattr(function, "pytestmark", []) if m.name == "parametrize"]
    if not marks:
        yield ()
        return
    (mark,) = marks
    names = mark.args[0]
    for values in mark.args[1]:
        single = isinstance(names, str) and "," not in names
        yield (values,) if single else tuple(values)


def scripted_events(monkeypatch: pytest.MonkeyPatch) -> list[e.Event]:
    """Play every scripted game of the engine tests; return every event, refusals included."""
    collected: list[e.Event] = []
    send = harness.Game.send

    def recording(game: harness.Game, command: Any) -> list[e.Event]:
        events = send(game, command)
        collected.extend(events)
        return events

    def ticking(game: harness.Game, delta: Any) -> list[e.Event]:
        events = later(game, delta)
        collected.extend(events)
        return events

    later = harness.Game.later
    monkeypatch.setattr(harness.Game, "send", recording)
    monkeypatch.setattr(harness.Game, "later", ticking)
    for module in SCRIPTS:
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("test_") or function.__module__ != module.__name__:
                continue
            for arguments in _calls(function):
                function(*arguments)
    return collected


def _line(event: e.Event) -> str:
    return json.dumps(event_to_json(event), ensure_ascii=False)


def test_every_event_encodes_exactly_as_the_pinned_fixture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [_line(event) for event in scripted_events(monkeypatch)]
    assert len(lines) > 500
    pinned = FIXTURE.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(pinned)
    for index, (line, expected) in enumerate(zip(lines, pinned, strict=True)):
        assert line == expected, f"event {index} encodes differently"


@pytest.mark.parametrize("fixture", [FIXTURE, OLDER], ids=["today", "before-reminder-rounds"])
def test_every_pinned_event_decodes_and_encodes_back_to_the_same_bytes(fixture: Path) -> None:
    for expected in fixture.read_text(encoding="utf-8").splitlines():
        assert _line(event_from_json(json.loads(expected))) == expected


def _lines(fixture: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in fixture.read_text(encoding="utf-8").splitlines()]


def _owed(lines: list[dict[str, Any]]) -> set[tuple[str, str, str, int, str]]:
    """Every (when, player, what, number, due) the reminders in ``lines`` listed."""
    found: set[tuple[str, str, str, int, str]] = set()
    for line in lines:
        if line["type"] == "VoteReminder":
            found.add((line["at"], line["voter"], "vote", line["proposal"], line["closes_at"]))
        elif line["type"] == "JudgeReminder":
            found.add((line["at"], line["judge"], "judgement", line["cfj"], line["deadline"]))
        elif line["type"] == "Reminded":
            found |= {(line["at"], line["player"], owed["what"], owed["number"], owed["due"])
                      for owed in line["owed"]}
    return found


def test_reminder_rounds_changed_only_the_reminders_one_per_player_and_none_moot() -> None:
    older, today = _lines(OLDER), _lines(FIXTURE)
    assert [line for line in today if line["type"] not in (*REMINDERS, *HANDWORK)] == \
        [line for line in older if line["type"] not in REMINDERS]
    # What is reminded is what was, less a reminder sent as its vote closed or deadline passed.
    was = _owed(older)
    moot = {item for item in was if item[0] >= item[4]}
    assert moot and _owed(today) == was - moot
    for game in _games(FIXTURE):  # one mail per player per round, some owing several things
        rounds = [(ev.at, ev.player) for ev in game if isinstance(ev, pe.Reminded)]
        assert len(rounds) == len(set(rounds))
    assert any(len(line["owed"]) > 1 for line in today if line["type"] == "Reminded")
    sent = {(line["at"], line["proposal"]) for line in today if line["type"] == "RemindersSent"}
    assert sent < {(line["at"], line["proposal"]) for line in older
                   if line["type"] == "RemindersSent"}


def _games(fixture: Path) -> list[list[e.Event]]:
    games: list[list[e.Event]] = []
    for line in _lines(fixture):
        if line["type"] == "GameStarted" or not games:
            games.append([])
        games[-1].append(event_from_json(line))
    return games


def _unmarked(state: GameState) -> GameState:
    for proposal in state.proposals.values():
        proposal.reminded = False
    for cfj in state.cfjs.values():
        cfj.reminded = False
    # The records differ in their reminders, so their public lines and heads differ too;
    # and the older has no hand work.
    state.record = RecordSoFar()
    state.handwork, state.next_handwork = {}, 1
    return state


def test_records_from_before_reminder_rounds_replay_to_the_state_the_games_reach_today() -> None:
    """An older record replays to today's state of the same game, but for reminders marked."""
    older, today = _games(OLDER), _games(FIXTURE)
    assert len(older) == len(today) > 60
    for before, now in zip(older, today, strict=True):
        assert _unmarked(replay(before)) == _unmarked(replay(now))


def _words(event: e.Event) -> tuple[str, str]:
    if isinstance(event, e.CommandRejected):
        return refusal_text(event)
    assert isinstance(event, e.ClauseFailed)
    return clause_failure_text(event), ""


def test_typed_refusals_are_worded_as_before_and_nothing_else_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Reminder rounds came later; the test above compares them with the older reminders.
    legacy = [line for line in LEGACY.read_text(encoding="utf-8").splitlines()
              if json.loads(line)["type"] not in REMINDERS]
    events = [event for event in scripted_events(monkeypatch)
              if type(event).__name__ not in (*REMINDERS, *HANDWORK)]
    assert len(events) == len(legacy)
    worded = 0
    for event, before in zip(events, legacy, strict=True):
        if isinstance(event, WORDED):
            old = json.loads(before)
            assert _words(event) == (old["reason"], old.get("remedy", ""))
            assert "reason" not in event_to_json(event)  # the record holds no words now
            worded += 1
        else:
            assert _line(event) == before
    assert worded > 50


def test_refusals_recorded_as_words_decode_and_are_said_exactly_as_recorded() -> None:
    recorded = 0
    for line in LEGACY.read_text(encoding="utf-8").splitlines():
        old = json.loads(line)
        event = event_from_json(old)
        if isinstance(event, WORDED):
            assert event.refusal is Refusal.RECORDED
            assert _words(event) == (old["reason"], old.get("remedy", ""))
            recorded += 1
        else:
            assert _line(event) == line
    assert recorded > 50


if __name__ == "__main__":  # regenerate: only ever for a new kind of event, never a changed one
    with pytest.MonkeyPatch.context() as patch:
        FIXTURE.write_text("".join(_line(ev) + "\n" for ev in scripted_events(patch)),
                           encoding="utf-8")
