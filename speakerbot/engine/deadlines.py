"""What time brings: reminders, votes closing, Judges' and turns' deadlines; ``tick`` runs them.

While the game is paused only absences end (at their dates); nothing else falls due.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta

from speakerbot.engine import events as e
from speakerbot.engine.absence import absences_due, end_at_date
from speakerbot.engine.debate import start_vote
from speakerbot.engine.edits import MAX_RULE_BYTES
from speakerbot.engine.judgement import replace_judge
from speakerbot.engine.model import GameState
from speakerbot.engine.pace import mover_reminder_due, overdue_due, remind_mover, tell_overdue
from speakerbot.engine.play import NO_RANDOMNESS, Play, RandomSource, require_aware
from speakerbot.engine.reminders import judge_reminder_at, remind_round, vote_reminder_due
from speakerbot.engine.scoring import check_winners
from speakerbot.engine.seeds import settle_seed
from speakerbot.engine.voting import close_vote

# What time brings, in the order it is done when several fall due at the same moment.
# A reminder round (reminders.py) sends every reminder due, to voters and Judges alike.
(_ABSENCE_ENDS, _REMIND, _CLOSE_VOTE, _JUDGE_MISSED, _REMIND_MOVER, _TURN_OVERDUE) = range(6)
_START_VOTE = 6  # a debate running out (debate.py)


def tick(
    state: GameState, now: datetime, rng: RandomSource = NO_RANDOMNESS, *,
    budget: int | None = None, max_rule_bytes: int = MAX_RULE_BYTES,
) -> tuple[GameState, list[e.Event]]:
    """Let time pass up to ``now``: send reminders, close votes, enforce judge deadlines.

    Idempotent: a second tick at the same time changes nothing. ``budget``: do at most this
    many things (a vote closed, a reminder round, a deadline missed...), so that a caller
    can commit a backlog in bounded pieces; ticking again at the same ``now`` goes on where
    this one stopped, with the same events as one tick would have had (``due_by`` tells
    whether anything is left). ``max_rule_bytes``: as for ``apply``; an adopted proposal's
    edit that would make a rule longer fails.
    """
    require_aware(now)
    if not due_by(state, now):
        return state, []  # nothing to do: no copy (every message ticks first)
    work = copy.deepcopy(state)
    play = Play(work, now, rng, max_rule_bytes=max_rule_bytes)
    actions = (end_at_date, remind_round, close_vote, _judge_missed, remind_mover, tell_overdue,
               start_vote)
    for _ in range(100_000 if budget is None else budget):
        due = _earliest_due(work, now)
        if due is None or due[0] > now or work.ended:
            break
        _, what, number = due
        actions[what](play, number)
    if not play.events:
        return state, []
    settle_seed(play)
    return work, play.events


def due_by(state: GameState, now: datetime) -> bool:
    """Tell whether ``tick`` at ``now`` has anything to do."""
    if not state.started or state.ended:
        return False
    due = _earliest_due(state, now)
    return due is not None and due[0] <= now


def next_deadline(state: GameState) -> datetime | None:
    """Return when ``tick`` next has something to do (None when nothing is scheduled)."""
    if not state.started or state.ended:
        return None
    due = _earliest_due(state)
    return due[0] if due is not None else None


_Next = tuple[datetime, int, int]


def _earliest_due(state: GameState, now: datetime | None = None) -> _Next | None:
    """Find the earliest scheduled thing: (when, what, proposal or CFJ number, or place).

    Given ``now``, a reminder whose deadline has passed by then is left out: it is moot.
    """
    found = [(until, _ABSENCE_ENDS, place) for until, place in absences_due(state)]
    if state.paused_at is None:
        before = state.rules_mechanics.reminder_before
        found += (_votes_due(state, before, now) + _judges_due(state, before, now)
                  + _turn_due(state))
    return min(found) if found else None


_Due = list[_Next]


def _votes_due(state: GameState, before: timedelta | None, now: datetime | None) -> _Due:
    found: _Due = []
    voters = state.voters()  # once, not once a proposal: who owes a reminder
    for proposal in state.open_proposals():
        if proposal.debate_until is not None:
            found.append((proposal.debate_until, _START_VOTE, proposal.number))
        if proposal.closes_at is None:
            continue
        found.append((proposal.closes_at, _CLOSE_VOTE, proposal.number))
        remind_at = vote_reminder_due(state, proposal, before, now, voters=voters)
        if remind_at is not None:
            found.append((remind_at, _REMIND, proposal.number))
    return found


def _judges_due(state: GameState, before: timedelta | None, now: datetime | None) -> _Due:
    found: _Due = []
    for cfj in state.open_cfjs():
        if cfj.deadline is None:
            continue
        found.append((cfj.deadline, _JUDGE_MISSED, cfj.number))
        if (remind_at := judge_reminder_at(state, cfj, before, now)) is not None:
            found.append((remind_at, _REMIND, cfj.number))
    return found


def _turn_due(state: GameState) -> _Due:
    turn = state.turn.number if state.turn is not None else 0
    return [(when, what, turn) for when, what in ((mover_reminder_due(state), _REMIND_MOVER),
                                                  (overdue_due(state), _TURN_OVERDUE))
            if when is not None]


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
