"""A reminder round: one mail per player listing every vote and judgement they owe soon.

When the first reminder falls due (``reminder_before`` ahead of a vote's close or a Judge's
deadline), the round takes in everything whose reminder is due by then, and also what would
fall due within the next tenth of ``reminder_before`` (at most an hour): a flood of proposals
submitted over a few minutes brings each player one reminder, not one a minute. Each player
who owes something gets one ``Reminded`` event listing it soonest first; each vote is marked
reminded by a public ``RemindersSent`` (which says nothing of who), each CFJ by its Judge's
``Reminded``. Absent players get none; an absent Judge is reminded once back (deadlines.py).
A vote nobody owes (every voter has voted, or the rest are away) has no reminder due, and
no ``RemindersSent``: the record says only what happened.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from speakerbot.engine import events as e
from speakerbot.engine.model import Cfj, GameState, Proposal
from speakerbot.engine.pace_events import Owed, Reminded
from speakerbot.engine.play import Play

_MOST_SLACK = timedelta(hours=1)


def vote_reminder_at(proposal: Proposal, before: timedelta | None,
                     now: datetime | None = None) -> datetime | None:
    """Return when a proposal's voters are to be reminded (None: never, or already done).

    Given ``now``, a vote that has closed by then has no reminder: it is closed instead.
    """
    if before is None or proposal.closes_at is None or proposal.reminded:
        return None
    if now is not None and proposal.closes_at <= now:
        return None
    at = proposal.closes_at - before
    # A voting period no longer than reminder_before has no reminder: it began inside it.
    return at if at > proposal.submitted_at else None


def vote_reminder_due(state: GameState, proposal: Proposal, before: timedelta | None,
                      now: datetime | None = None, *,
                      voters: Sequence[str] | None = None) -> datetime | None:
    """Return when a proposal's voters are to be reminded, if any of them owes a ballot then.

    A vote every voter has cast (or whose only debtors are away) has no reminder: none would
    be sent, and the record says only what happened. One who comes to owe later (a ballot
    withdrawn, a voter back) brings it due again, while the vote is open. ``voters``: the
    state's, when the caller asks of many proposals.
    """
    at = vote_reminder_at(proposal, before, now)
    # Asked at every tick of every open vote: stops at the first voter who owes.
    if at is None:
        return None
    everyone = state.voters() if voters is None else voters
    if not any(_owes(state, proposal, at, voter) for voter in everyone):
        return None
    return at


def _owes(state: GameState, proposal: Proposal, at: datetime, voter: str) -> bool:
    """Whether ``voter`` owes ``proposal`` a ballot and is to be reminded at ``at``.

    A voter away at ``at`` is not reminded (their missing ballot counts as any other's);
    one back by then is, though a tick after an outage may settle the reminder before the
    end of the absence.
    """
    absence = state.absences.get(voter)
    return voter not in proposal.ballots and (absence is None or absence.until <= at)


def judge_reminder_at(state: GameState, cfj: Cfj, before: timedelta | None,
                      now: datetime | None = None) -> datetime | None:
    """Return when a CFJ's Judge is to be reminded (None: never, not now, or already done).

    Given ``now``, a deadline already passed has no reminder: the Judge missed it.
    """
    if before is None or cfj.deadline is None or cfj.reminded or cfj.judge is None:
        return None
    if now is not None and cfj.deadline <= now:
        return None
    if cfj.judge in state.absences:
        return None  # reminded once back, if still before the deadline
    at = cfj.deadline - before
    return at if cfj.assigned_at is None or at > cfj.assigned_at else None


def remind_round(play: Play, _number: int = 0) -> None:
    """Send one reminder to each player who owes a vote or judgement falling due soon."""
    state = play.state
    before = state.rules_mechanics.reminder_before
    if before is None:
        return
    until = play.now + min(before / 10, _MOST_SLACK)
    voters = state.voters()
    proposals = [(p, at) for p in state.open_proposals()
                 if (at := vote_reminder_due(state, p, before, play.now, voters=voters))
                 is not None and at <= until]
    cfjs = [c for c in state.open_cfjs()
            if (at := judge_reminder_at(state, c, before, play.now)) is not None and at <= until]
    owed: dict[str, list[Owed]] = {}
    for proposal, at in proposals:
        # Only a vote someone owes is due (vote_reminder_due): a reminder goes for each.
        play.emit(e.RemindersSent(play.now, proposal.number))
        assert proposal.closes_at is not None
        for voter in (voter for voter in voters if _owes(state, proposal, at, voter)):
            owed.setdefault(voter, []).append(Owed("vote", proposal.number, proposal.closes_at))
    for cfj in cfjs:
        assert cfj.judge is not None and cfj.deadline is not None
        owed.setdefault(cfj.judge, []).append(Owed("judgement", cfj.number, cfj.deadline))
    for player, items in owed.items():
        items.sort(key=lambda item: (item.due, item.what != "vote", item.number))
        play.emit(Reminded(play.now, player, tuple(items)))
