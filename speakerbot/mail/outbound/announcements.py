"""From the engine's events to the messages the Speaker sends about them.

Events are grouped: a vote's close gathers the score changes, die rolls, rule changes and the
next turn that it caused into one results message; a Speaker's override gathers its effects.
Private events (ballots, consent, refusals) never become announcements: the reply to their
sender speaks of them. Nothing announced before a vote closes mentions its ballots.
"""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from speakerbot.engine import events as e
from speakerbot.engine.mechanics import PARAMETERS, JudgePolicy
from speakerbot.engine.model import ClauseKind, GameState
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer, points, when

# Events that begin a message of their own; the events after them, up to the next one,
# belong to that message.
_HEADS = (
    e.ProposalSubmitted, e.VoteClosed, e.SpeakerOverride, e.CfjCalled, e.JudgeDeadlineMissed,
    e.JudgementDelivered, e.JudgementOverruled,
)
# Told to the sender in the reply, or bookkeeping: never announced.
_UNANNOUNCED = (
    e.BallotCast, e.BallotWithdrawn, e.ConsentDeclared, e.TurnConsentGiven, e.OverruleSupported,
    e.RemindersSent, e.CommandRejected, e.GameStarted,
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
    return tuple(everyone)


def describe(event: e.Event, state: GameState) -> str:
    """Say in one line what an event did, in the game's words."""
    name = state.name_of
    match event:
        case e.PlayerJoined(address=address, name=player):
            return f"{player} <{address}> joined the game"
        case e.PlayerLeft(address=address, reason=reason):
            verb = "forfeited" if reason == "forfeit" else "was removed from the game"
            return f"{name(address)} {verb}"
        case e.TurnPassed(number=number, mover=mover):
            return f"Turn {number}: it is {name(mover)}'s turn to propose"
        case e.ScoreChanged(player=player, delta=delta, reason=reason):
            return f"{name(player)} {points(delta, signed=True)}: {reason}"
        case e.DieThrown(player=player, value=value, sides=sides):
            return f"{name(player)} threw a {sides}-sided die: {value}"
        case e.RuleEnacted(number=number, mutable=mutable):
            return f"Rule {number} enacted ({'mutable' if mutable else 'immutable'})"
        case e.RuleAmended(number=number, new_number=new_number):
            renumbered = f", now rule {new_number}" if new_number != number else ""
            return f"Rule {number} amended{renumbered}"
        case e.RuleRepealed(number=number):
            return f"Rule {number} repealed"
        case e.RuleTransmuted(number=number, new_number=new_number, mutable=mutable):
            renumbered = f", now rule {new_number}" if new_number != number else ""
            status = "mutable" if mutable else "immutable"
            return f"Rule {number} transmuted to {status}{renumbered}"
        case e.MechanicSet(name=mechanic, value=value):
            return f"Mechanic {mechanic} set to {value}"
        case e.AdoptionSwitchedToMajority(rule=rule, circuits=circuits):
            return (f"After {circuits} complete circuits rule {rule} now requires only a simple "
                    "majority")
        case e.ClauseFailed(proposal=number, clause=clause, reason=reason):
            return f"Proposal {number}: could not {clause.describe()}: {reason}"
        case e.InformalProposalAdopted(proposal=number):
            return f"Proposal {number} has no structured clauses: the Speaker carries it out"
        case e.MechanicsMayHaveChanged(rule=rule, mechanics=mechanics):
            return (f"Rule {rule} changed; the Speaker should check {', '.join(mechanics)} "
                    "(ADMIN SET)")
        case e.JudgeAssigned(cfj=number, judge=judge, how=how):
            return f"CFJ {number}: {name(judge)} is the Judge ({how})"
        case e.VoteExtended(proposal=number, closes_at=closes_at):
            return f"The vote on proposal {number} now closes at {when(closes_at)}"
        case e.ProposalVoided(proposal=number, reason=reason):
            return f"Proposal {number} is void: {reason}"
        case e.VoteClosed(proposal=number, adopted=adopted):
            return f"Proposal {number} {'ADOPTED' if adopted else 'REJECTED'}"
        case e.SpeakerChanged(new=new):
            return f"{name(new)} is now the Speaker"
        case e.GameWon(winners=winners, reason=reason):
            return f"{_names(winners, state)} won: {reason}"
        case e.NewGameBegun(game_number=number, new_speaker=speaker):
            return f"Game {number} begins; {name(speaker)} is the Speaker"
        case e.GameEnded(reason=reason):
            return f"The game has ended: {reason}"
        case e.JudgementDelivered(cfj=number, judgement=judgement):
            return f"CFJ {number} judged {judgement.value}"
        case e.CfjCalled(number=number, statement=statement):
            return f"CFJ {number} called: {statement}"
        case e.ProposalSubmitted(number=number, title=title):
            return f"Proposal {number} submitted: {title}"
    return type(event).__name__


def text_diff(old: str, new: str, width: int = 64) -> str:
    """Show how a rule's text changes: removed lines with "-", added ones with "+".

    Every physical line keeps its mark, so the diff survives wrapping at 72 columns.
    """
    out: list[str] = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1):
        if line.startswith(("---", "+++", "@@")):
            continue
        mark, body = line[:1], line[1:]
        out += [f"{mark} {part}" for part in textwrap.wrap(body, width) or [""]]
    return "\n".join(out)


def _names(addresses: Sequence[str], state: GameState) -> str:
    names = [state.name_of(a) for a in addresses]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _belongs(head: e.Event | None, event: e.Event) -> bool:
    """Tell whether an event is part of the message its group's head began."""
    match head:
        case e.ProposalSubmitted():
            return False  # a distribution is about the proposal alone
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
        elif isinstance(event, e.VoteReminder | e.JudgeReminder):
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


class Announcer:
    """Turns a batch of events into the messages they call for."""

    def __init__(self, identity: GameIdentity, renderer: Renderer) -> None:
        self.identity = identity
        self.renderer = renderer

    def messages(self, events: Sequence[e.Event], state: GameState, key: str,
                 before: GameState | None = None) -> list[Outgoing]:
        """Compose the messages for ``events``; ``state`` is the state after them.

        ``key`` is stable for this batch of events (the first event's number in the record),
        so composing them again gives the same Message-IDs. ``before`` is the state the
        events started from (for the old text of amended rules).
        """
        out: list[Outgoing] = []
        for index, group in enumerate(_group(events)):
            out += self._compose(group, state, before or state, f"{key}.{index}")
        return out

    def _public(self, state: GameState, subject: str, template: str, key: str,
                **context: object) -> Outgoing:
        body = self.renderer.render(template, game=state, identity=self.identity, **context)
        return Outgoing("announcement", public_recipients(state, self.identity), subject, body,
                        key, public=True)

    def _compose(self, group: _Group, state: GameState, before: GameState,
                 key: str) -> list[Outgoing]:
        head, rest = group.head, group.events
        name = state.name_of
        out: list[Outgoing] = []
        match head:
            case e.ProposalSubmitted():
                out.append(self._proposal(head, state, before, key))
            case e.VoteClosed():
                proposal = state.proposals[head.proposal]
                verdict = "ADOPTED" if head.adopted else "REJECTED"
                out.append(self._public(
                    state, f"Proposal {head.proposal} {verdict}: {proposal.title}",
                    "results.txt", key, result=head, proposal=proposal,
                    ballots=[(name(voter), choice.value) for voter, choice in head.ballots],
                    non_voters=[name(voter) for voter in head.non_voters],
                    changes=[ev for ev in rest if not isinstance(ev, _ENDINGS)],
                    describe=lambda ev: describe(ev, state), scores=scoreboard(state),
                    rules=_changed_rules(rest, state), mechanics=state.rules_mechanics,
                ))
            case e.SpeakerOverride():
                out.append(self._public(
                    state, f"Speaker's override: {head.summary}", "override.txt", key,
                    override=head, speaker_name=name(head.speaker),
                    effects=[describe(ev, state) for ev in rest if not isinstance(ev, _ENDINGS)],
                    rules=_changed_rules(rest, state),
                ))
            case e.CfjCalled():
                judge = next((ev for ev in rest if isinstance(ev, e.JudgeAssigned)), None)
                out.append(self._public(
                    state, f"CFJ {head.number}: {head.statement}", "cfj.txt", key,
                    cfj=head, judge=judge, caller=name(head.caller),
                ))
            case e.JudgeDeadlineMissed():
                out.append(self._public(
                    state, f"CFJ {head.cfj}: the Judge missed the deadline", "judge_missed.txt",
                    key, missed=head, effects=[describe(ev, state) for ev in rest],
                ))
            case e.JudgementDelivered():
                cfj = state.cfjs[head.cfj]
                out.append(self._public(
                    state, f"CFJ {head.cfj} judged {head.judgement.value}", "judgement.txt", key,
                    judgement=head, cfj=cfj, judge=name(head.judge),
                ))
            case e.JudgementOverruled():
                out.append(self._public(
                    state, f"CFJ {head.cfj}: judgement overruled", "overruled.txt", key,
                    cfj=state.cfjs[head.cfj], effects=[describe(ev, state) for ev in rest],
                ))
            case e.VoteReminder():
                proposal = state.proposals[head.proposal]
                body = self.renderer.render("reminder_vote.txt", game=state, proposal=proposal,
                                            reminder=head, voter=name(head.voter),
                                            identity=self.identity)
                out.append(Outgoing("reminder", (head.voter,),
                                    f"Reminder: vote on proposal {proposal.number} closes "
                                    f"{when(head.closes_at)}", body, key))
            case e.JudgeReminder():
                cfj = state.cfjs[head.cfj]
                body = self.renderer.render("reminder_judge.txt", game=state, cfj=cfj,
                                            reminder=head, judge=name(head.judge),
                                            identity=self.identity)
                out.append(Outgoing("reminder", (head.judge,),
                                    f"Reminder: your judgement on CFJ {cfj.number} is due "
                                    f"{when(head.deadline)}", body, key))
            case None:
                plain = [ev for ev in rest if not isinstance(ev, _ENDINGS)]
                if plain:
                    out.append(self._public(state, describe(plain[0], state), "news.txt", key,
                                            lines=[describe(ev, state) for ev in plain]))
        endings = [ev for ev in rest if isinstance(ev, _ENDINGS)]
        if endings:
            won = next((ev for ev in endings if isinstance(ev, e.GameWon)), None)
            subject = (f"{_names(won.winners, state)} won the game" if won
                       else "The game has ended")
            final = ([(name(address), points(score)) for address, score in
                      sorted(won.scores, key=lambda item: (-item[1], name(item[0]).lower()))]
                     if won else scoreboard(state))
            new_game = any(isinstance(ev, e.NewGameBegun) for ev in endings)
            out.append(self._public(state, subject, "game_over.txt", f"{key}.end",
                                    lines=[describe(ev, state) for ev in endings],
                                    final=final, scores=scoreboard(state) if new_game else []))
        notices = [ev for ev in rest if isinstance(ev, _SPEAKER_NOTICES)]
        if notices:
            body = self.renderer.render("speaker_notice.txt", game=state, identity=self.identity,
                                        lines=[describe(ev, state) for ev in notices])
            out.append(Outgoing("notice", (state.speaker,), "Action needed by the Speaker", body,
                                f"{key}.notice"))
        return out

    def _proposal(self, head: e.ProposalSubmitted, state: GameState, before: GameState,
                  key: str) -> Outgoing:
        clauses = []
        for clause in head.clauses:
            diff = ""
            if clause.kind is ClauseKind.AMEND and clause.rule in before.rules:
                diff = text_diff(before.rules[clause.rule].text, clause.text.strip())
            setting = ""
            if clause.kind is ClauseKind.SET and clause.parameter in PARAMETERS:
                setting = PARAMETERS[clause.parameter].description
            clauses.append({"clause": clause, "what": clause.describe(), "diff": diff,
                            "setting": setting})
        return self._public(
            state, f"Proposal {head.number}: {head.title}", "proposal.txt", key,
            proposal=head, proposer=state.name_of(head.proposer), clauses=clauses,
        )

    def digest(self, state: GameState, since: Sequence[e.Event], key: str) -> Outgoing:
        """Compose the digest: open proposals and CFJs, what happened since the last one."""
        happened = [describe(ev, state) for ev in since
                    if isinstance(ev, e.VoteClosed | e.JudgementDelivered | e.GameWon
                                  | e.ProposalVoided | e.JudgementOverruled)]
        return self._public(
            state, "Digest", "digest.txt", key, proposals=state.open_proposals(),
            cfjs=state.open_cfjs(), happened=happened, scores=scoreboard(state),
        )


def scoreboard(state: GameState) -> list[tuple[str, str]]:
    """Return the scoreboard: players in the game, best first, then by name."""
    players = sorted(state.active_players(), key=lambda p: (-p.score, p.name.lower()))
    return [(p.name + (" (Speaker)" if p.address == state.speaker and state.rules_mechanics
                       .speaker_role else ""), points(p.score)) for p in players]


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
