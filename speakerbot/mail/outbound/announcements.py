"""From the engine's events to the messages the Speaker sends about them.

Events are grouped: a vote's close gathers the score changes, die rolls, rule changes and the
next turn that it caused into one results message; a Speaker's override gathers its effects.
Private events (ballots, consent, refusals) never become announcements: the reply to their
sender speaks of them. Nothing announced before a vote closes mentions its ballots.
"""

from __future__ import annotations

import difflib
import itertools
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.edits import EDITS, edited_text
from speakerbot.engine.mechanics import PARAMETERS, JudgePolicy
from speakerbot.engine.model import Clause, ClauseKind, GameState
from speakerbot.engine.receipts import ballot_receipt_line
from speakerbot.mail.outbound import debate, pace, reminders
from speakerbot.mail.outbound.compose import (
    GameIdentity,
    Outgoing,
    Renderer,
    points,
)
from speakerbot.mail.outbound.describe import describe, names, without_addresses

# Events that begin a message of their own; the events after them, up to the next one,
# belong to that message.
_HEADS = (
    e.ProposalSubmitted, e.VoteClosed, e.SpeakerOverride, e.CfjCalled, e.JudgeDeadlineMissed,
    e.JudgementDelivered, e.JudgementOverruled, e.GameStarted,
    e.ProposalRevised, e.VoteStarted, e.DebateContributed,  # debate.py
    pe.TurnOverdue,  # pace.py
)
# Told to the sender in the reply, or bookkeeping: never announced.
_UNANNOUNCED = (
    e.BallotCast, e.BallotWithdrawn, e.ConsentDeclared, e.TurnConsentGiven, e.OverruleSupported,
    e.RemindersSent, e.CommandRejected,
)
_ENDINGS = (e.GameWon, e.NewGameBegun, e.GameEnded)
_SPEAKER_NOTICES = (e.InformalProposalAdopted, e.ClauseFailed, e.MechanicsMayHaveChanged)


@dataclass
class _Group:
    head: e.Event | None
    events: list[e.Event] = field(default_factory=list)


def public_recipients(state: GameState, identity: GameIdentity) -> tuple[str, ...]:
    """Return who gets public mail: the list, else every player and the Speaker."""
    if identity.list_address:
        return (identity.list_address,)
    everyone = [p.address for p in state.active_players()]
    # The Speaker and a named Judge (rurru 210) need not be players but must hear everything.
    extra = [state.speaker]
    if state.mechanics is not None and state.mechanics.judge_policy is JudgePolicy.NAMED:
        extra.append(state.named_judge)
    everyone += [address for address in extra if address and address not in everyone]
    return tuple(dict.fromkeys(everyone))  # the host may be both Speaker and named Judge


def text_diff(old: str, new: str, width: int = 64) -> str:
    """Show how a rule's text changes: removed lines with "-", added ones with "+".

    Every physical line keeps its mark, so the diff survives wrapping at 72 columns.
    """
    out: list[str] = []
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1)
    # The first two lines name the files; a rule line may itself begin with "--" or "++".
    for line in itertools.islice(diff, 2, None):
        if line.startswith("@@"):
            continue
        mark, body = line[:1], line[1:]
        out += [f"{mark} {part}" for part in textwrap.wrap(body, width) or [""]]
    return "\n".join(out)


def _belongs(head: e.Event | None, event: e.Event) -> bool:
    """Tell whether an event is part of the message its group's head began."""
    match head:
        case e.ProposalSubmitted() | e.ProposalRevised() | e.VoteStarted() \
                | e.DebateContributed():
            return False  # a distribution (or revision, vote's start, argument) stands alone
        case e.CfjCalled(number=number):
            return isinstance(event, e.JudgeAssigned) and event.cfj == number
        case e.JudgementDelivered():
            return isinstance(event, _ENDINGS)  # a paradox judged TRUE ends the game
    return True


def _group(events: Sequence[e.Event]) -> list[_Group]:
    groups: list[_Group] = []
    current: _Group | None = None
    for event in events:
        if isinstance(event, _UNANNOUNCED):
            continue
        if isinstance(event, _HEADS):
            current = _Group(event)
            groups.append(current)
        elif isinstance(event, e.VoteReminder | e.JudgeReminder | pe.Reminded | pe.TurnReminder):
            groups.append(_Group(event))
        else:
            if current is None or not _belongs(current.head, event):
                current = _Group(None)
                groups.append(current)
            current.events.append(event)
            if isinstance(current.head, e.CfjCalled):
                current = _Group(None)  # one Judge per CFJ message; what follows is news
                groups.append(current)
    return [group for group in groups if group.head is not None or group.events]


@dataclass(frozen=True)
class _Batch:
    """What a group's composer needs besides its head: the state after and before, the key."""

    state: GameState
    before: GameState
    key: str
    rest: Sequence[e.Event]
    record: tuple[int, str] | None = None  # the public record's head: number, hash

    def describe_all(self, events: Sequence[e.Event] | None = None) -> list[str]:
        """Describe each event (the group's own events when none are given)."""
        return [describe(ev, self.state) for ev in (self.rest if events is None else events)]

    def plain(self) -> list[e.Event]:
        """Return the group's events but those that end a game (they get their own message)."""
        return [ev for ev in self.rest if not isinstance(ev, _ENDINGS)]


def game_folder(game_id: str) -> str:
    """Return where a game's pages stay in the archive (``games/<id>/``), or the root."""
    return f"games/{game_id}/" if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", game_id) else ""


def receipt_lines(closed: e.VoteClosed, state: GameState) -> list[str]:
    """Return the published line of each counted ballot that has a receipt, in ballot order."""
    salts = dict(closed.salts)
    return [ballot_receipt_line(state, closed.proposal, voter, choice, salts[voter])
            for voter, choice in closed.ballots if voter in salts]


class Announcer:
    """Turns a batch of events into the messages they call for."""

    def __init__(self, identity: GameIdentity, renderer: Renderer) -> None:
        self.identity = identity
        self.renderer = renderer

    def messages(self, events: Sequence[e.Event], state: GameState, key: str,
                 before: GameState | None = None, *,
                 record: tuple[int, str] | None = None) -> list[Outgoing]:
        """Compose the messages for ``events``; ``state`` is the state after them.

        ``key`` is stable for this batch of events (the first event's number in the record),
        so composing them again gives the same Message-IDs. ``before`` is the state the
        events started from (for the old text of amended rules). ``record`` is the public
        record's head once the events are in it, quoted by the results.
        """
        out: list[Outgoing] = []
        for index, group in enumerate(_group(events)):
            batch = _Batch(state, before or state, f"{key}.{index}", group.events, record)
            out += self._compose(group.head, batch)
        return out

    def _public(self, batch: _Batch, subject: str, template: str, key: str | None = None,
                topic: str | None = None, **context: object) -> Outgoing:
        state = batch.state
        body = self.renderer.render(template, game=state, identity=self.identity, **context)
        return Outgoing("announcement", public_recipients(state, self.identity), subject, body,
                        batch.key if key is None else key, public=True, topic=topic)

    def _compose(self, head: e.Event | None, batch: _Batch) -> list[Outgoing]:
        """Compose a group's message, then its game-over message and Speaker's notice."""
        main = self._news(batch) if head is None else _COMPOSERS[type(head)](self, head, batch)
        extra = (self._game_over(batch), self._speaker_notice(batch))
        return [message for message in (main, *extra) if message is not None]

    def _proposal(self, head: e.ProposalSubmitted, batch: _Batch) -> Outgoing:
        return self._public(
            batch, f"Proposal {head.number}: {head.title}", "proposal.txt", topic="distribution",
            proposal=head, proposer=batch.state.name_of(head.proposer),
            clauses=_clause_views(head.clauses, batch.before),
        )

    def _results(self, head: e.VoteClosed, batch: _Batch) -> Outgoing:
        state, name = batch.state, batch.state.name_of
        proposal = state.proposals[head.proposal]
        verdict = "ADOPTED" if head.adopted else "REJECTED"
        return self._public(
            batch, f"Proposal {head.proposal} {verdict}: {proposal.title}", "results.txt",
            topic="results",
            result=head, proposal=proposal,
            ballots=[(name(voter), choice.value) for voter, choice in head.ballots],
            receipts=receipt_lines(head, state),
            non_voters=[name(voter) for voter in head.non_voters],
            changes=batch.plain(), describe=lambda ev: describe(ev, state),
            scores=scoreboard(state), rules=_changed_rules(batch.rest, state),
            mechanics=state.rules_mechanics, record=batch.record,
            archive=game_folder(state.game_id),
        )

    def _game_started(self, head: e.GameStarted, batch: _Batch) -> Outgoing:
        """Announce the next game in the same record (init starts the first in silence)."""
        state = batch.state
        return self._public(
            batch, f"A new game begins: {head.title}", "new_game.txt", started=head,
            players=[player.name for player in state.active_players()],
            speaker=state.name_of(state.speaker),
        )

    def _override(self, head: e.SpeakerOverride, batch: _Batch) -> Outgoing:
        summary = without_addresses(head.summary, batch.state.name_of)
        return self._public(
            batch, f"Speaker's override: {summary}", "override.txt",
            summary=summary, speaker_name=batch.state.name_of(head.speaker),
            effects=batch.describe_all(batch.plain()),
            rules=_changed_rules(batch.rest, batch.state),
        )

    def _cfj(self, head: e.CfjCalled, batch: _Batch) -> Outgoing:
        judge = next((ev for ev in batch.rest if isinstance(ev, e.JudgeAssigned)), None)
        return self._public(
            batch, f"CFJ {head.number}: {head.statement}", "cfj.txt",
            cfj=head, judge=judge, caller=batch.state.name_of(head.caller),
        )

    def _judge_missed(self, head: e.JudgeDeadlineMissed, batch: _Batch) -> Outgoing:
        return self._public(
            batch, f"CFJ {head.cfj}: the Judge missed the deadline", "judge_missed.txt",
            missed=head, effects=batch.describe_all(),
        )

    def _judgement(self, head: e.JudgementDelivered, batch: _Batch) -> Outgoing:
        return self._public(
            batch, f"CFJ {head.cfj} judged {head.judgement.value}", "judgement.txt",
            judgement=head, cfj=batch.state.cfjs[head.cfj], judge=batch.state.name_of(head.judge),
        )

    def _overruled(self, head: e.JudgementOverruled, batch: _Batch) -> Outgoing:
        return self._public(
            batch, f"CFJ {head.cfj}: judgement overruled", "overruled.txt",
            cfj=batch.state.cfjs[head.cfj], effects=batch.describe_all(),
        )

    def _news(self, batch: _Batch) -> Outgoing | None:
        plain = batch.plain()
        if not plain:
            return None
        return self._public(batch, describe(plain[0], batch.state), "news.txt",
                            lines=batch.describe_all(plain))

    def _game_over(self, batch: _Batch) -> Outgoing | None:
        """Compose the message that a game was won or ended, if the group ended one."""
        endings = [ev for ev in batch.rest if isinstance(ev, _ENDINGS)]
        if not endings:
            return None
        state = batch.state
        won = next((ev for ev in endings if isinstance(ev, e.GameWon)), None)
        subject = f"{names(won.winners, state)} won the game" if won else "The game has ended"
        final = _final_scores(won, state) if won else scoreboard(state)
        new_game = any(isinstance(ev, e.NewGameBegun) for ev in endings)
        return self._public(batch, subject, "game_over.txt", f"{batch.key}.end",
                            lines=batch.describe_all(endings), final=final,
                            scores=scoreboard(state) if new_game else [])

    def _speaker_notice(self, batch: _Batch) -> Outgoing | None:
        """Compose the Speaker's notice of what needs their hand, if anything does."""
        notices = [ev for ev in batch.rest if isinstance(ev, _SPEAKER_NOTICES)]
        if not notices:
            return None
        body = self.renderer.render("speaker_notice.txt", game=batch.state,
                                    identity=self.identity, lines=batch.describe_all(notices))
        return Outgoing("notice", (batch.state.speaker,), "Action needed by the Speaker", body,
                        f"{batch.key}.notice")

    def digest(self, state: GameState, since: Sequence[e.Event], key: str, *,
               record: tuple[int, str] | None = None) -> Outgoing:
        """Compose the digest: open proposals and CFJs, what happened since the last one.

        ``record``: the public record's head, quoted so every player holds a copy of it.
        """
        happened = [describe(ev, state) for ev in since
                    if isinstance(ev, e.VoteClosed | e.JudgementDelivered | e.GameWon
                                  | e.ProposalVoided | e.JudgementOverruled)]
        return self._public(
            _Batch(state, state, key, ()), "Digest", "digest.txt",
            proposals=state.open_proposals(), cfjs=state.open_cfjs(), happened=happened,
            scores=scoreboard(state), record=record,
        )


# The composer of each kind of message, by the event that begins it (see _HEADS).
_COMPOSERS: dict[type[e.Event], Callable[[Announcer, Any, _Batch], Outgoing]] = {
    e.ProposalSubmitted: Announcer._proposal,
    e.VoteClosed: Announcer._results,
    e.GameStarted: Announcer._game_started,
    e.SpeakerOverride: Announcer._override,
    e.CfjCalled: Announcer._cfj,
    e.JudgeDeadlineMissed: Announcer._judge_missed,
    e.JudgementDelivered: Announcer._judgement,
    e.JudgementOverruled: Announcer._overruled,
    e.VoteReminder: reminders.reminded,  # an older record's (reminders.py)
    e.JudgeReminder: reminders.reminded,
    pe.Reminded: reminders.reminded,
    e.ProposalRevised: debate.revised,
    e.VoteStarted: debate.vote_started,
    e.DebateContributed: debate.argument,
    pe.TurnReminder: pace.turn_reminder,
    pe.TurnOverdue: pace.turn_overdue,
}


def _clause_views(clauses: Sequence[Clause], before: GameState) -> list[dict[str, object]]:
    """Return what proposal.txt shows of each clause.

    Several edits of one rule follow each other: each one's diff starts from the text the
    ones before it leave.
    """
    texts: dict[int, str] = {}
    views = []
    for clause in clauses:
        old = None
        if clause.kind in EDITS and clause.rule in before.rules:
            assert clause.rule is not None
            old = texts.get(clause.rule, before.rules[clause.rule].text)
            texts[clause.rule] = edited_text(old, clause)
        views.append(_clause_view(clause, before, old))
    return views


def _clause_view(clause: Clause, before: GameState,
                 edited_from: str | None = None) -> dict[str, object]:
    """Return what proposal.txt shows of a clause: what it does, its diff, its setting.

    ``edited_from``: for an edit, the rule's text it is made to.
    """
    diff = ""
    if clause.kind is ClauseKind.AMEND and clause.rule in before.rules:
        diff = text_diff(before.rules[clause.rule].text, clause.text.strip())
    elif clause.kind in EDITS and edited_from is not None:
        # The same diff as an amendment's: the rule's text as the edit will leave it.
        diff = text_diff(edited_from, edited_text(edited_from, clause).strip())
    setting = ""
    if clause.kind is ClauseKind.SET and clause.parameter in PARAMETERS:
        setting = PARAMETERS[clause.parameter].description
    return {"clause": clause, "what": clause.describe(), "diff": diff, "setting": setting}


def _final_scores(won: e.GameWon, state: GameState) -> list[tuple[str, str]]:
    """Return the scores the game was won with, best first, then by name.

    The order of ``GameState.scoreboard``, over the scores the win recorded: a new game may
    already have reset the state's.
    """
    name = state.name_of
    ranked = sorted(won.scores, key=lambda item: (-item[1], name(item[0]).lower()))
    return [(name(address), points(score)) for address, score in ranked]


def scoreboard(state: GameState) -> list[tuple[str, str]]:
    """Return the scoreboard as mail shows it: (name, points), in the engine's order."""
    speaker_plays = state.rules_mechanics.speaker_role
    return [(p.name + (" (Speaker)" if speaker_plays and p.address == state.speaker else ""),
             points(p.score)) for p in state.scoreboard()]


def _changed_rules(events: Sequence[e.Event], state: GameState) -> list[tuple[int, str, str]]:
    """Return (number, status, text) for each rule the events enacted or changed.

    The text is the one these events gave it, not a later batch's: two proposals closing
    together may amend the same rule.
    """
    known: dict[int, tuple[str, str]] = {}
    order: list[int] = []

    def status(mutable: bool) -> str:
        return "mutable" if mutable else "immutable"

    for event in events:
        match event:
            case e.RuleEnacted(number=number, text=text, mutable=mutable):
                known[number] = (status(mutable), text)
            case e.RuleAmended(number=old, new_number=number, text=text):
                before = known.pop(old, None)
                rule = state.rules.get(number)
                kept = before[0] if before else status(rule.mutable if rule else True)
                known[number] = (kept, text)
            case e.RuleTransmuted(number=old, new_number=number, mutable=mutable):
                before = known.pop(old, None)
                rule = state.rules.get(number)
                text = before[1] if before else (rule.text if rule else "")
                known[number] = (status(mutable), text)
            case _:
                continue
        order = [n for n in order if n in known and n != number] + [number]
    return [(number, *known[number]) for number in order]
