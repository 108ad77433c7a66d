"""From the engine's events to the messages the Speaker sends about them.

Events are grouped: a vote's close gathers the score changes, die rolls, rule changes and the
next turn that it caused into one results message; a Speaker's override gathers its effects.
Private events (ballots, consent, refusals) never become announcements: the reply to their
sender speaks of them. Nothing announced before a vote closes mentions its ballots.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine import replay
from speakerbot.engine.model import GameState
from speakerbot.engine.receipts import ballot_receipt_line
from speakerbot.engine.starting import ruleset_digest
from speakerbot.mail.outbound import debate, pace, reminders
from speakerbot.mail.outbound.batch import ENDINGS, Batch, Composer, Voice, announce
from speakerbot.mail.outbound.batch import public_recipients as public_recipients
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer, points
from speakerbot.mail.outbound.diffs import clause_views
from speakerbot.mail.outbound.diffs import text_diff as text_diff
from speakerbot.mail.outbound.naming import judge_reason, without_addresses
from speakerbot.mail.outbound.notice import AT_THE_DESK, BY_MAIL, channel_words, notice_lines
from speakerbot.mail.outbound.proofs import news_subject
from speakerbot.mail.outbound.sentences import Words, news_line
from speakerbot.mail.outbound.welcome import welcomes

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


HOST_TOPIC = "override"
"""The topic of the host's overrides' announcements: the hourly limit on public mail does
not count them (the host is not a flood), and never keeps them back while nothing is."""
ADDED = "AddPlayer"
"""The action of an override that adds a player: several in a row are announced together."""


def added_player(event: e.Event | None) -> bool:
    """Whether ``event`` is the host's override that adds a player."""
    return isinstance(event, e.SpeakerOverride) and event.action == ADDED


@dataclass
class _Group:
    head: e.Event | None
    events: list[e.Event] = field(default_factory=list)


def _belongs(head: e.Event | None, event: e.Event) -> bool:
    """Tell whether an event is part of the message its group's head began."""
    match head:
        case e.ProposalSubmitted() | e.ProposalRevised() | e.VoteStarted() \
                | e.DebateContributed():
            return False  # a distribution (or revision, vote's start, argument) stands alone
        case e.CfjCalled(number=number):
            return isinstance(event, e.JudgeAssigned) and event.cfj == number
        case e.JudgementDelivered():
            return isinstance(event, ENDINGS)  # a paradox judged TRUE ends the game
    return True


def _group(events: Sequence[e.Event]) -> list[_Group]:
    groups: list[_Group] = []
    current: _Group | None = None
    for event in events:
        if isinstance(event, _UNANNOUNCED):
            continue
        if added_player(event) and current is not None and added_player(current.head):
            # The host added several players (one message, or added before the daemon
            # looked): one message says them all, not one to everyone for each.
            current.events.append(event)
        elif isinstance(event, _HEADS):
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


def game_folder(game_id: str) -> str:
    """Return where a game's pages stay in the archive (``games/<id>/``), or the root."""
    return f"games/{game_id}/" if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", game_id) else ""


def receipt_lines(closed: e.VoteClosed, state: GameState) -> list[str]:
    """Return the published line of each counted ballot that has a receipt, in ballot order."""
    salts = dict(closed.salts)
    return [ballot_receipt_line(state, closed.proposal, voter, choice, salts[voter])
            for voter, choice in closed.ballots if voter in salts]


def _said(events: Sequence[e.Event], state: GameState) -> list[str]:
    """Say each event in one line, as the announcements list them."""
    return [news_line(ev, state) for ev in events]


def _proposal(voice: Voice, head: e.ProposalSubmitted, batch: Batch) -> Outgoing:
    return announce(
        voice, batch, f"Proposal {head.number}: {head.title}", "proposal.txt",
        topic="distribution", proposal=head, proposer=batch.state.name_of(head.proposer),
        clauses=clause_views(head.clauses, batch.before),
    )


def _results(voice: Voice, head: e.VoteClosed, batch: Batch) -> Outgoing:
    state, name = batch.state, batch.state.name_of
    proposal = state.proposals[head.proposal]
    verdict = "ADOPTED" if head.adopted else "REJECTED"
    # The quorum and consent lines say the mechanics the vote was counted under, not those
    # the adopted proposal has just changed.
    return announce(
        voice, batch, f"Proposal {head.proposal} {verdict}: {proposal.title}", "results.txt",
        topic="results", result=head, proposal=proposal,
        ballots=[(name(voter), choice.value) for voter, choice in head.ballots],
        receipts=receipt_lines(head, state),
        non_voters=[name(voter) for voter in head.non_voters],
        changes=batch.plain(), describe=lambda ev: news_line(ev, state),
        scores=scoreboard(state), rules=_changed_rules(batch.rest, state),
        mechanics=batch.before.rules_mechanics, record=batch.record,
        archive=game_folder(state.game_id),
    )


def _game_started(voice: Voice, head: e.GameStarted, batch: Batch) -> Outgoing:
    """Announce the next game in the same record (init starts the first in silence)."""
    state = batch.state
    if head.imported_from:
        return _imported(voice, head, batch)
    return announce(
        voice, batch, f"A new game begins, from the ruleset {head.title}", "new_game.txt",
        started=head,
        players=[player.name for player in state.active_players()],
        speaker=state.name_of(state.speaker),
    )


def _imported(voice: Voice, head: e.GameStarted, batch: Batch) -> Outgoing:
    """Tell the players of a hand-run game that speakerbot is its Speaker from now on."""
    state = batch.state
    mutable = sum(1 for rule in head.rules if rule.mutable)
    numbers = sorted(rule.number for rule in head.rules)
    return announce(
        voice, batch, "The game continues here, with speakerbot as its Speaker",
        "imported.txt", started=head, speaker=state.name_of(state.speaker),
        rules=f"{len(numbers)} rules ({len(numbers) - mutable} immutable, {mutable} mutable), "
              f"numbered {numbers[0]} to {numbers[-1]}",
        digest=ruleset_digest(head.rules),
        players=[(player.name, points(player.score)) for player in state.active_players()],
        turn=state.name_of(state.turn.mover) if state.turn is not None else "",
        proposals=state.open_proposals(),
    )


def _override(voice: Voice, head: e.SpeakerOverride, batch: Batch) -> Outgoing:
    summary = without_addresses(head.summary, batch.state.name_of)
    added = 1 + sum(1 for event in batch.rest if added_player(event))
    if added > 1:
        summary = f"added {added} players"  # each is named in what changed
    return announce(
        voice, batch, f"Speaker's override: {summary}", "override.txt", topic=HOST_TOPIC,
        summary=summary, speaker_name=batch.state.name_of(head.speaker),
        effects=_said([ev for ev in batch.plain() if not added_player(ev)], batch.state),
        rules=_changed_rules(batch.rest, batch.state),
    )


def _cfj(voice: Voice, head: e.CfjCalled, batch: Batch) -> Outgoing:
    judge = next((ev for ev in batch.rest if isinstance(ev, e.JudgeAssigned)), None)
    drawn = Words(batch.state.name_of).draw(judge.draw) if judge is not None else ""
    return announce(
        voice, batch, f"CFJ {head.number}: {head.statement}", "cfj.txt",
        cfj=head, judge=judge, drawn=drawn, caller=batch.state.name_of(head.caller),
        how=judge_reason(judge.how) if judge is not None else "",
    )


def _judge_missed(voice: Voice, head: e.JudgeDeadlineMissed, batch: Batch) -> Outgoing:
    return announce(
        voice, batch, f"CFJ {head.cfj}: the Judge missed the deadline", "judge_missed.txt",
        missed=head, effects=_said(batch.rest, batch.state),
    )


def _judgement(voice: Voice, head: e.JudgementDelivered, batch: Batch) -> Outgoing:
    return announce(
        voice, batch, f"CFJ {head.cfj} judged {head.judgement.value}", "judgement.txt",
        judgement=head, cfj=batch.state.cfjs[head.cfj], judge=batch.state.name_of(head.judge),
    )


def _overruled(voice: Voice, head: e.JudgementOverruled, batch: Batch) -> Outgoing:
    return announce(
        voice, batch, f"CFJ {head.cfj}: judgement overruled", "overruled.txt",
        cfj=batch.state.cfjs[head.cfj], effects=_said(batch.rest, batch.state),
    )


# The composer of each kind of message, by the event that begins it (see _HEADS); those of
# the debate, the pace of play and the reminders register themselves in their own modules.
_COMPOSERS: dict[type[e.Event], Composer] = {
    e.ProposalSubmitted: _proposal,
    e.VoteClosed: _results,
    e.GameStarted: _game_started,
    e.SpeakerOverride: _override,
    e.CfjCalled: _cfj,
    e.JudgeDeadlineMissed: _judge_missed,
    e.JudgementDelivered: _judgement,
    e.JudgementOverruled: _overruled,
    **reminders.COMPOSERS,
    **debate.COMPOSERS,
    **pace.COMPOSERS,
}


class Announcer:
    """Turns a batch of events into the messages they call for."""

    def __init__(self, identity: GameIdentity, renderer: Renderer, *,
                 admin_by_mail: bool = True) -> None:
        """Speak as ``identity``, with the templates of ``renderer``.

        ``admin_by_mail``: whether the host may send ADMIN by mail (an admin password is
        set); the Speaker's notice names ``speakerbot admin`` otherwise.
        """
        self.identity = identity
        self.renderer = renderer
        self.admin_by_mail = admin_by_mail

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
            batch = Batch(state, before or state, f"{key}.{index}", group.events, record)
            out += self._compose(group.head, batch)
            if isinstance(group.head, e.GameStarted):
                # What follows a game's start in the same batch (an import's open proposals,
                # distributed again) is shown against the rules that game began with, not
                # the state before it (no rules, or the last game's): else no diff.
                before = replay([group.head, *group.events])
        return out

    def _compose(self, head: e.Event | None, batch: Batch) -> list[Outgoing]:
        """Compose a group's message, then its game-over message and Speaker's notice."""
        main = self._news(batch) if head is None else _COMPOSERS[type(head)](self, head, batch)
        extra = (self._game_over(batch), self._speaker_notice(batch))
        # A new player is welcomed; the players a next game (or an import) starts with are
        # not newcomers to it.
        welcomed = [] if isinstance(head, e.GameStarted | e.NewGameBegun) else welcomes(
            self, (head, *batch.rest) if head is not None else batch.rest, batch)
        return [message for message in (main, *extra) if message is not None] + welcomed

    def _news(self, batch: Batch) -> Outgoing | None:
        plain = batch.plain()
        if not plain:
            return None
        first = plain[0]
        # A seed's sentence is long and holds hex: its news gets a short Subject.
        subject = (news_subject(first) if isinstance(first, e.SeedRevealed | e.SeedCommitted)
                   else news_line(first, batch.state))
        lines = _said(plain, batch.state)
        if len(plain) == 1 and isinstance(first, e.PlayerJoined):
            # Not the Subject again: who plays now.
            players = [player.name for player in batch.state.active_players()]
            lines.append(f"The players now ({len(players)}): {', '.join(players)}.")
        return announce(self, batch, subject, "news.txt", lines=lines)

    def _game_over(self, batch: Batch) -> Outgoing | None:
        """Compose the message that a game was won or ended, if the group ended one."""
        endings = [ev for ev in batch.rest if isinstance(ev, ENDINGS)]
        if not endings:
            return None
        state = batch.state
        won = next((ev for ev in endings if isinstance(ev, e.GameWon)), None)
        winners = Words(state.name_of).names(won.winners) if won else ""
        subject = f"{winners} won the game" if won else "The game has ended"
        final = _final_scores(won, state) if won else scoreboard(state)
        new_game = any(isinstance(ev, e.NewGameBegun) for ev in endings)
        return announce(self, batch, subject, "game_over.txt", key=f"{batch.key}.end",
                        lines=_said(endings, state), final=final,
                        scores=scoreboard(state) if new_game else [])

    def _speaker_notice(self, batch: Batch) -> Outgoing | None:
        """Compose the Speaker's notice of what needs their hand, if anything does."""
        via = BY_MAIL if self.admin_by_mail else AT_THE_DESK
        lines = notice_lines(batch, via)
        if not lines:
            return None
        body = self.renderer.render("speaker_notice.txt", game=batch.state,
                                    identity=self.identity, lines=lines,
                                    channel=channel_words(via))
        return Outgoing("notice", (batch.state.speaker,), "Action needed by the Speaker", body,
                        f"{batch.key}.notice")

    def digest(self, state: GameState, since: Sequence[e.Event], key: str, *,
               record: tuple[int, str] | None = None) -> Outgoing:
        """Compose the digest: open proposals and CFJs, what happened since the last one.

        ``record``: the public record's head, quoted so every player holds a copy of it.
        """
        happened = [news_line(ev, state) for ev in since
                    if isinstance(ev, e.VoteClosed | e.JudgementDelivered | e.GameWon
                                  | e.ProposalVoided | e.JudgementOverruled)]
        return announce(
            self, Batch(state, state, key, ()), "Digest", "digest.txt",
            proposals=state.open_proposals(), cfjs=state.open_cfjs(), happened=happened,
            scores=scoreboard(state), record=record,
        )


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
