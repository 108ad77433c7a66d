"""The public record as the state folds it, and the line each draw is anchored to.

Where a draw is anchored is the record's to say, never the draw's (docs/verifying.md): the
last public line recorded before the draw's *moment*, the first line that bears the draw's
time. Every line that one decision, or one tick, records bears its time, and the event
that called for a draw (a vote closed, a CFJ called, a game won) always comes before the
draw in the same decision: so the anchor comes before everything that moment decided, and
a transaction tried again draws again exactly as it first did.

The engine draws in the middle of a decision, before the store has linked anything the
transaction records, so the state keeps the public record's head itself (``GameState.
record``): ``follow`` links each public event as ``chain.link_all`` will, in its public form
with the ids known once it is folded, and ``refollow`` links a decision again when one of
its events is recorded before others folded first.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from speakerbot.engine import chain
from speakerbot.engine.codec import event_to_json, to_json
from speakerbot.engine.draw_events import RecordLine, RecordSoFar
from speakerbot.engine.events import Event
from speakerbot.engine.model import GameState


def follow(state: GameState, event: Event) -> None:
    """Link ``event``, just folded into ``state``, after the record's head if it is public."""
    if not event.public:
        return
    data = event_to_json(event)
    # The evolvers have folded the event's ids and version already, as learn() does for the
    # store's chain before it writes the event's public form.
    shown = chain.shown(data, state.public_ids, state.record_version)
    head = state.record.head
    line = chain.link(head.seq + 1, shown, head.hash)
    state.record = state.record.then(RecordLine(line["seq"], line["hash"]), str(data["at"]))


def refollow(record: RecordSoFar, before: GameState, events: Sequence[Event]) -> RecordSoFar:
    """Return ``record`` once ``events`` follow it, as the state ``before`` them names players.

    For a decision recorded in another order than it was folded in: a Speaker's override
    is recorded first, though composed last (game.py).
    """
    links = chain.Links(public=chain.Head(record.head.seq, record.head.hash),
                        ids=dict(before.public_ids), version=before.record_version)
    for line in chain.public_lines_after(links, (event_to_json(event) for event in events)):
        record = record.then(RecordLine(line["seq"], line["hash"]), str(line["at"]))
    return record


def anchor_for(state: GameState, now: datetime) -> RecordLine:
    """Return the line a draw made at ``now`` is anchored to: the last before its moment."""
    return state.record.anchor_at(str(to_json(now)))
