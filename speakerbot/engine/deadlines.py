"""What time brings: reminders, votes closing, and Judges' deadlines; ``tick`` runs them."""

from __future__ import annotations

import copy
from datetime import datetime

from speakerbot.engine import events as e
from speakerbot.engine.judgement import replace_judge
from speakerbot.engine.model import GameState
from speakerbot.engine.play import NO_RANDOMNESS, Play, RandomSource, require_aware
from speakerbot.engine.scoring import check_winners
from speakerbot.engine.voting import close_vote

# What time brings, in the order it is done when several fall due at the same moment.
_REMIND_VOTERS, _CLOSE_VOTE, _REMIND_JUDGE, _JUDGE_MISSED = range(4)


def tick(
    state: GameState, now: datetime, rng: RandomSource = NO_RANDOMNESS
) -> tuple[GameState, list[e.Event]]:
    """Let time pass up to ``now``: send reminders, close votes, enforce judge deadlines.

    Idempotent: a second tick at the same time changes nothing.
    """
    require_aware(now)
    if not state.started or state.ended:
        return state, []
    due = _earliest_due(state)
    if due is None or due[0] > now:
        return state, []  # nothing to do: no copy (every message ticks first)
    work = copy.deepcopy(state)
    play = Play(work, now, rng)
    actions = (_remind_voters, close_vote, _remind_judge, _judge_missed)
    for _ in range(100_000):
        due = _earliest_due(work)
        if due is None or due[0] > now or work.ended:
            break
        _, what, number = due
        actions[what](play, number)
    if not play.events:
        return state, []
    return work, play.events


def next_deadline(state: GameState) -> datetime | None:
    """Return when ``tick`` next has something to do (None when nothing is scheduled)."""
    if not state.started or state.ended:
        return None
    due = _earliest_due(state)
    return due[0] if due is not None else None


def _earliest_due(state: GameState) -> tuple[datetime, int, int] | None:
    """Find the earliest scheduled thing: (when, what, proposal or CFJ number)."""
    before = state.rules_mechanics.reminder_before
    found: list[tuple[datetime, int, int]] = []
    for proposal in state.open_proposals():
        if proposal.closes_at is None:
            continue
        found.append((proposal.closes_at, _CLOSE_VOTE, proposal.number))
        remind_at = proposal.closes_at - before if before is not None else None
        if remind_at is not None and not proposal.reminded and remind_at > proposal.submitted_at:
            found.append((remind_at, _REMIND_VOTERS, proposal.number))
    for cfj in state.open_cfjs():
        if cfj.deadline is None:
            continue
        found.append((cfj.deadline, _JUDGE_MISSED, cfj.number))
        remind_at = cfj.deadline - before if before is not None else None
        if remind_at is not None and not cfj.reminded and (
            cfj.assigned_at is None or remind_at > cfj.assigned_at
        ):
            found.append((remind_at, _REMIND_JUDGE, cfj.number))
    return min(found) if found else None


def _remind_voters(play: Play, number: int) -> None:
    proposal = play.state.proposals[number]
    play.emit(e.RemindersSent(play.now, number))
    assert proposal.closes_at is not None
    for voter in play.state.voters():
        if voter not in proposal.ballots:
            play.emit(e.VoteReminder(play.now, number, voter, proposal.closes_at))


def _remind_judge(play: Play, number: int) -> None:
    cfj = play.state.cfjs[number]
    assert cfj.judge is not None and cfj.deadline is not None
    play.emit(e.JudgeReminder(play.now, number, cfj.judge, cfj.deadline))


def _judge_missed(play: Play, number: int) -> None:
    cfj = play.state.cfjs[number]
    judge = cfj.judge
    assert judge is not None
    play.emit(e.JudgeDeadlineMissed(play.now, number, judge))
    if judge in play.state.players:
        play.score(judge, -play.mechanics.judge_penalty,
                   f"did not judge CFJ {number} in time{play.per('judge_period')}", cfj=number)
    replace_judge(play, cfj, "the Judge missed the deadline", fallback=judge)
    check_winners(play)
