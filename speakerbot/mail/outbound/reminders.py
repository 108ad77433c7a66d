"""A player's reminder: one mail listing every vote and judgement they owe soon, soonest first.

A reminder that owes one thing reads as it always did (``reminder_vote.txt``,
``reminder_judge.txt``); one that owes several lists them (``reminder.txt``), each with the
exact line to send. The reminders of older records (one per proposal or CFJ) are read as a
``Reminded`` that owes one thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.mail.outbound.batch import Batch, Composer, Voice
from speakerbot.mail.outbound.compose import Outgoing, format_time


@dataclass(frozen=True)
class _Item:
    what: str
    number: int
    due: datetime
    subject: str  # the proposal's title, or the CFJ's statement


def as_reminded(event: e.VoteReminder | e.JudgeReminder | pe.Reminded) -> pe.Reminded:
    """Read an older record's reminder of one thing as a ``Reminded``."""
    if isinstance(event, e.VoteReminder):
        return pe.Reminded(event.at, event.voter,
                           (pe.Owed("vote", event.proposal, event.closes_at),))
    if isinstance(event, e.JudgeReminder):
        return pe.Reminded(event.at, event.judge,
                           (pe.Owed("judgement", event.cfj, event.deadline),))
    return event


def reminded(voice: Voice, head: e.Event, batch: Batch) -> Outgoing:
    """Compose one player's reminder of everything the event says they owe."""
    assert isinstance(head, e.VoteReminder | e.JudgeReminder | pe.Reminded)
    event = as_reminded(head)
    state = batch.state
    player = state.name_of(event.player)
    render = voice.renderer.render
    identity = voice.identity
    if len(event.owed) == 1:
        owed = event.owed[0]
        if owed.what == "vote":
            proposal = state.proposals[owed.number]
            body = render("reminder_vote.txt", game=state, proposal=proposal, due=owed.due,
                          voter=player, identity=identity)
            subject = f"Reminder: vote on proposal {owed.number} closes {format_time(owed.due)}"
        else:
            body = render("reminder_judge.txt", game=state, cfj=state.cfjs[owed.number],
                          due=owed.due, judge=player, identity=identity)
            subject = (f"Reminder: your judgement on CFJ {owed.number} is due "
                       f"{format_time(owed.due)}")
        return Outgoing("reminder", (event.player,), subject, body, batch.key)
    items = [_Item(owed.what, owed.number, owed.due,
                   state.proposals[owed.number].title if owed.what == "vote"
                   else state.cfjs[owed.number].statement)
             for owed in event.owed]
    votes = sum(1 for item in items if item.what == "vote")
    judgements = len(items) - votes
    owing = _count(votes, "vote") + (" and " if votes and judgements else "") + \
        _count(judgements, "judgement")
    body = render("reminder.txt", game=state, player=player, items=items, owed=owing,
                  judgements=judgements, identity=identity)
    subject = f"Reminder: {owing}, the first due {format_time(items[0].due)}"
    return Outgoing("reminder", (event.player,), subject, body, batch.key)


COMPOSERS: dict[type[e.Event], Composer] = {
    e.VoteReminder: reminded,  # an older record's
    e.JudgeReminder: reminded,
    pe.Reminded: reminded,
}
"""The reminders' composer, by each kind of reminder that heads a message."""


def _count(n: int, thing: str) -> str:
    return "" if n == 0 else f"1 {thing}" if n == 1 else f"{n} {thing}s"
