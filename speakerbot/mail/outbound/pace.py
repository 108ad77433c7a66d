"""The pace of play's mail: the mover's reminder, and a turn's overdue notice.

The pause and the host's ADMIN ABSENT and ADMIN SKIP are overrides: their announcement is the
override's, with their events' lines (:mod:`.sentences`) as its effects. A player's own
absence, and its end, are news to every player.
"""

from __future__ import annotations

from speakerbot.engine import pace_events as pe
from speakerbot.engine.base_event import Event
from speakerbot.mail.outbound.batch import Batch, Composer, Voice, announce
from speakerbot.mail.outbound.compose import Outgoing, format_time


def turn_reminder(voice: Voice, head: pe.TurnReminder, batch: Batch) -> Outgoing:
    """Remind the mover privately that their time to propose runs out soon."""
    state = batch.state
    body = voice.renderer.render("reminder_turn.txt", game=state, reminder=head,
                                 mover=state.name_of(head.mover), identity=voice.identity)
    subject = f"Reminder: your turn {head.turn} ends {format_time(head.deadline)}"
    return Outgoing("reminder", (head.mover,), subject, body, batch.key)


def turn_overdue(voice: Voice, head: pe.TurnOverdue, batch: Batch) -> Outgoing:
    """Tell every player (the Speaker too) who holds the game, and what the host may do."""
    state = batch.state
    mover = state.name_of(head.mover)
    absence = state.absences.get(head.mover)
    return announce(
        voice, batch, f"Turn {head.turn}: waiting for {mover}", "turn_overdue.txt",
        overdue=head, mover=mover, absence=absence, speaker=state.name_of(state.speaker),
        rule=state.sources.get("turn_period"),
    )


COMPOSERS: dict[type[Event], Composer] = {
    pe.TurnReminder: turn_reminder,
    pe.TurnOverdue: turn_overdue,
}
"""The pace's composers, by the event that heads their message."""
