"""Folding events into a state: ``evolve`` is the only place where a game's state changes.

Every public event also moves the public record the state follows (``anchors.follow``),
which only ``apply`` links again, when it records a Speaker's override before the events
it folded first (``anchors.refollow``).

``replay`` rebuilds a state from a game's whole record by folding every event in turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from typing import Any, TypeVar

from speakerbot.engine import events as ev
from speakerbot.engine import pace_events as pe
from speakerbot.engine.anchors import follow
from speakerbot.engine.draw_events import Draw
from speakerbot.engine.mechanics import PARAMETERS, Adoption
from speakerbot.engine.model import (
    Absence,
    Ballot,
    Cfj,
    GameState,
    HandItem,
    Player,
    Proposal,
    ProposalStatus,
    Role,
    Rule,
    RuleChange,
    RuleSpec,
    Turn,
)
from speakerbot.engine.publicity import assign

E = TypeVar("E", bound=ev.Event)
_EVOLVERS: dict[type[ev.Event], Callable[[GameState, Any], None]] = {}


_Evolver = Callable[[GameState, E], None]


def _on(kind: type[E]) -> Callable[[_Evolver[E]], _Evolver[E]]:
    def register(function: _Evolver[E]) -> _Evolver[E]:
        _EVOLVERS[kind] = function
        return function

    return register


def evolve(state: GameState, event: ev.Event) -> None:
    """Fold one event into the state, in place; a public one moves the record it follows."""
    evolver = _EVOLVERS.get(type(event))
    if evolver is not None:
        evolver(state, event)
    follow(state, event)


def replay(events: list[ev.Event]) -> GameState:
    """Rebuild a game's state from its whole record."""
    state = GameState()
    for event in events:
        evolve(state, event)
    return state


@_on(ev.GameStarted)
def _game_started(state: GameState, e: ev.GameStarted) -> None:
    # A record may hold several games, one after another: each starts from nothing, but
    # the public record runs on from the last game's.
    fresh = GameState(record=state.record)
    for name in GameState.__dataclass_fields__:
        setattr(state, name, getattr(fresh, name))
    state.started = True
    state.preset = e.preset
    state.title = e.title
    state.mechanics = e.mechanics
    state.sources = dict(e.sources)
    state.phrases = dict(e.phrases)
    state.set_by = dict.fromkeys(e.overridden, "host")
    state.rules = {
        spec.number: Rule(spec.number, spec.text, spec.mutable, _first_history(e, spec),
                          spec.title)
        for spec in sorted(e.rules, key=lambda spec: spec.number)
    }
    state.host, state.host_name = e.host, e.host_name
    state.record_version = e.record_version
    assign(state.public_ids, e.host, e.host_name)
    assign(state.public_ids, e.named_judge, e.named_judge_name)
    state.speaker = e.host
    state.named_judge, state.named_judge_name = e.named_judge, e.named_judge_name
    state.open_registration = e.open_registration
    state.game_id = e.game_id
    state.next_proposal = e.next_proposal or e.mechanics.first_proposal_number
    state.commitment = e.commitment


def _first_history(e: ev.GameStarted, spec: RuleSpec) -> list[RuleChange]:
    """Return a rule's first history: initial, or what it went through before an import."""
    if not e.imported_from:
        return [RuleChange("initial", e.at)]
    return [RuleChange("imported", e.at, note=line) for line in spec.history] or [
        RuleChange("imported", e.at)]


@_on(ev.PlayerJoined)
def _player_joined(state: GameState, e: ev.PlayerJoined) -> None:
    state.players[e.address] = Player(e.address, e.name, e.role, joined_at=e.at,
                                      by_speaker=e.by_speaker)
    assign(state.public_ids, e.address, e.name)


@_on(ev.PlayerLeft)
def _player_left(state: GameState, e: ev.PlayerLeft) -> None:
    state.players[e.address].active = False
    state.absences.pop(e.address, None)
    for proposal in state.open_proposals():
        proposal.ballots.pop(e.address, None)


@_on(ev.TurnPassed)
def _turn_passed(state: GameState, e: ev.TurnPassed) -> None:
    state.turn = Turn(e.number, e.mover, began_at=e.at)
    state.circuits_completed = e.circuits_completed


@_on(ev.TurnConsentGiven)
def _turn_consent(state: GameState, e: ev.TurnConsentGiven) -> None:
    assert state.turn is not None
    state.turn.consenters.append(e.player)


@_on(ev.SpeakerChanged)
def _speaker_changed(state: GameState, e: ev.SpeakerChanged) -> None:
    _hand_speaker(state, e.old, e.new)


def _hand_speaker(state: GameState, old: str, new: str) -> None:
    state.speaker = new
    if state.rules_mechanics.speaker_role:
        if old in state.players:
            state.players[old].role = Role.VOTER
        state.players[new].role = Role.SPEAKER
        for proposal in state.open_proposals():  # the Speaker may not vote
            proposal.ballots.pop(new, None)


@_on(ev.ProposalSubmitted)
def _proposal_submitted(state: GameState, e: ev.ProposalSubmitted) -> None:
    state.proposals[e.number] = Proposal(
        e.number, e.title, e.text, e.clauses, e.proposer, e.at, e.closes_at, e.quorum_base, e.turn,
        debate_until=e.debate_until, unclear=e.unclear,
    )
    # Never back: an imported game's open proposals are numbered below its next proposal.
    state.next_proposal = max(state.next_proposal, e.number + 1)
    if state.turn is not None and e.turn == state.turn.number:
        state.turn.proposal = e.number
        # A new turn has begun: judgements of earlier turns can no longer be overruled.
        for cfj in state.cfjs.values():
            cfj.overrule_open = False


@_on(ev.BallotCast)
def _ballot_cast(state: GameState, e: ev.BallotCast) -> None:
    state.proposals[e.proposal].ballots[e.voter] = Ballot(e.choice, e.at, e.salt)


@_on(ev.BallotWithdrawn)
def _ballot_withdrawn(state: GameState, e: ev.BallotWithdrawn) -> None:
    state.proposals[e.proposal].ballots.pop(e.voter, None)


@_on(ev.ConsentDeclared)
def _consent(state: GameState, e: ev.ConsentDeclared) -> None:
    state.proposals[e.proposal].consent_refused = not e.consent


@_on(ev.RemindersSent)
def _reminders_sent(state: GameState, e: ev.RemindersSent) -> None:
    state.proposals[e.proposal].reminded = True


@_on(ev.VoteExtended)
def _vote_extended(state: GameState, e: ev.VoteExtended) -> None:
    proposal = state.proposals[e.proposal]
    proposal.closes_at = e.closes_at
    proposal.reminded = False


@_on(ev.VoteClosed)
def _vote_closed(state: GameState, e: ev.VoteClosed) -> None:
    proposal = state.proposals[e.proposal]
    proposal.status = ProposalStatus.ADOPTED if e.adopted else ProposalStatus.REJECTED
    proposal.closed_at = e.at


@_on(ev.ProposalVoided)
def _proposal_voided(state: GameState, e: ev.ProposalVoided) -> None:
    proposal = state.proposals[e.proposal]
    proposal.status = ProposalStatus.VOID
    proposal.closed_at = e.at
    if state.turn is not None and state.turn.proposal == e.proposal:
        state.turn.proposal = None  # the mover's turn is not done: they propose again
        # ...and their time to propose (pace.py) runs afresh from now.
        state.turn.began_at, state.turn.moved_by = e.at, timedelta(0)
        state.turn.reminded = state.turn.overdue_told = False


@_on(ev.ScoreChanged)
def _score_changed(state: GameState, e: ev.ScoreChanged) -> None:
    state.players[e.player].score += e.delta


@_on(ev.DieThrown)
def _die_thrown(state: GameState, e: ev.DieThrown) -> None:
    _drawn(state, e.draw)


def _drawn(state: GameState, draw: Draw | None) -> None:
    """Count a provable draw against the seed it used (a seed used is revealed: seeds.py)."""
    if draw is not None:
        state.seed_draws += 1


@_on(ev.SeedCommitted)
def _seed_committed(state: GameState, e: ev.SeedCommitted) -> None:
    state.commitment, state.seed_draws = e.commitment, 0


@_on(ev.SeedRevealed)
def _seed_revealed(state: GameState, e: ev.SeedRevealed) -> None:
    state.commitment, state.seed_draws = e.next_commitment, 0


@_on(ev.NewGameBegun)
def _new_game(state: GameState, e: ev.NewGameBegun) -> None:
    _drawn(state, e.draw)
    state.game_number = e.game_number
    state.winners = []
    for player in state.players.values():
        player.score = player.score * e.score_percent / Decimal(100)
    _hand_speaker(state, e.old_speaker, e.new_speaker)


@_on(ev.GameWon)
def _game_won(state: GameState, e: ev.GameWon) -> None:
    state.winners = list(e.winners)


@_on(ev.GameEnded)
def _game_ended(state: GameState, e: ev.GameEnded) -> None:
    state.ended = True
    state.end_reason = e.reason
    if e.winners:
        state.winners = list(e.winners)


@_on(ev.RuleEnacted)
def _rule_enacted(state: GameState, e: ev.RuleEnacted) -> None:
    change = RuleChange("enacted", e.at, e.proposal, e.by_speaker)
    state.rules[e.number] = Rule(e.number, e.text, e.mutable, [change], e.title)
    state.rules = dict(sorted(state.rules.items()))


def _renumber(state: GameState, rule: Rule, new_number: int) -> None:
    if new_number == rule.number:
        return
    old = rule.number
    del state.rules[old]
    rule.number = new_number
    state.rules[new_number] = rule
    state.rules = dict(sorted(state.rules.items()))
    state.sources = {name: new_number if n == old else n for name, n in state.sources.items()}
    # An open item of hand work names the rule by the number it has now, so that the Speaker's
    # edit of the renumbered rule closes it and the archive marks the rule that is awaiting it.
    state.handwork = {item: replace(open_item, rules=tuple(
        new_number if number == old else number for number in open_item.rules))
        for item, open_item in state.handwork.items()}


@_on(ev.RuleAmended)
def _rule_amended(state: GameState, e: ev.RuleAmended) -> None:
    rule = state.rules[e.number]
    rule.history.append(
        RuleChange("amended", e.at, e.proposal, e.by_speaker, e.number, previous_text=rule.text)
    )
    rule.text = e.text
    if state.sources.get("adoption") == e.number:
        state.adoption_rule_amended = True
    _renumber(state, rule, e.new_number)


@_on(ev.RuleRetitled)
def _rule_retitled(state: GameState, e: ev.RuleRetitled) -> None:
    rule = state.rules[e.number]
    rule.history.append(RuleChange("retitled", e.at, e.proposal, e.by_speaker,
                                   note=e.old_title))
    rule.title = e.title


@_on(ev.RuleRepealed)
def _rule_repealed(state: GameState, e: ev.RuleRepealed) -> None:
    rule = state.rules.pop(e.number)
    rule.history.append(RuleChange("repealed", e.at, e.proposal, e.by_speaker))
    state.repealed.append(rule)
    if state.sources.get("adoption") == e.number:
        state.adoption_rule_amended = True
    for name in [name for name, n in state.sources.items() if n == e.number]:
        del state.sources[name]
        if name in state.phrases:  # SHOW MECHANICS says where its value came from
            state.set_by[name] = f"rule {e.number}, since repealed"


@_on(ev.RuleTransmuted)
def _rule_transmuted(state: GameState, e: ev.RuleTransmuted) -> None:
    rule = state.rules[e.number]
    rule.history.append(RuleChange("transmuted", e.at, e.proposal, e.by_speaker, e.number))
    rule.mutable = e.mutable
    _renumber(state, rule, e.new_number)


@_on(ev.MechanicSet)
def _mechanic_set(state: GameState, e: ev.MechanicSet) -> None:
    _give_mechanic(state, e.name, e.value)
    state.set_by[e.name] = "host" if e.proposal is None else f"proposal {e.proposal}"


@_on(ev.MechanicChanged)
def _mechanic_changed(state: GameState, e: ev.MechanicChanged) -> None:
    _give_mechanic(state, e.mechanic, e.new)
    state.sources[e.mechanic] = e.rule  # an enacted rule that states it becomes its source
    state.set_by.pop(e.mechanic, None)  # the rule says it now


def _give_mechanic(state: GameState, name: str, written: str) -> None:
    state.mechanics = state.rules_mechanics.with_value(name, PARAMETERS[name].parse(written))
    if name == "adoption":
        state.adoption_rule_amended = True


@_on(ev.AdoptionSwitchedToMajority)
def _switched(state: GameState, e: ev.AdoptionSwitchedToMajority) -> None:
    state.mechanics = state.rules_mechanics.with_value("adoption", Adoption.MAJORITY)
    if e.rule in state.rules:
        state.rules[e.rule].history.append(
            RuleChange("switched", e.at, note=f"changed to simple majority after {e.circuits} "
                       "complete circuits, as the rule itself provides")
        )


@_on(ev.CfjCalled)
def _cfj_called(state: GameState, e: ev.CfjCalled) -> None:
    state.cfjs[e.number] = Cfj(
        e.number, e.statement, e.arguments, e.caller, e.at, e.paradox, e.turn, e.mover
    )
    state.next_cfj = e.number + 1


@_on(ev.JudgeAssigned)
def _judge_assigned(state: GameState, e: ev.JudgeAssigned) -> None:
    _drawn(state, e.draw)
    cfj = state.cfjs[e.cfj]
    cfj.judges.append(e.judge)
    cfj.deadline = e.deadline
    cfj.assigned_at = e.at
    cfj.reminded = False


@_on(ev.JudgementDelivered)
def _judgement(state: GameState, e: ev.JudgementDelivered) -> None:
    cfj = state.cfjs[e.cfj]
    cfj.judgement = e.judgement
    cfj.reasons = e.reasons
    cfj.judged_at = e.at
    cfj.deadline = None
    cfj.overrule_open = e.overrule_possible
    cfj.overrulers = []


@_on(ev.OverruleSupported)
def _overrule_supported(state: GameState, e: ev.OverruleSupported) -> None:
    state.cfjs[e.cfj].overrulers.append(e.player)


@_on(ev.JudgementOverruled)
def _overruled(state: GameState, e: ev.JudgementOverruled) -> None:
    cfj = state.cfjs[e.cfj]
    cfj.judgement = None
    cfj.reasons = ""
    cfj.judged_at = None
    cfj.overrule_open = False
    cfj.overrulers = []


@_on(ev.JudgeReminder)
def _judge_reminder(state: GameState, e: ev.JudgeReminder) -> None:
    state.cfjs[e.cfj].reminded = True


@_on(pe.Reminded)
def _reminded(state: GameState, e: pe.Reminded) -> None:
    for owed in e.owed:  # a vote is marked by its RemindersSent, which every voter shares
        if owed.what == "judgement":
            state.cfjs[owed.number].reminded = True


# --- The pace of play: pauses, absences, a turn's deadline (pace.py, absence.py) -----------


@_on(pe.GamePaused)
def _game_paused(state: GameState, e: pe.GamePaused) -> None:
    state.paused_at = e.at
    state.pause_reason = e.reason


@_on(pe.GameResumed)
def _game_resumed(state: GameState, e: pe.GameResumed) -> None:
    # Every running deadline moves on by the time the game was paused (never back).
    moved = max(e.at - e.paused_at, timedelta(0))
    state.paused_at, state.pause_reason = None, ""
    for proposal in state.open_proposals():
        if proposal.closes_at is not None:
            proposal.closes_at += moved
        if proposal.debate_until is not None:
            proposal.debate_until += moved
    for cfj in state.open_cfjs():
        if cfj.deadline is not None:
            cfj.deadline += moved
    if state.turn is not None:
        state.turn.moved_by += moved


@_on(pe.AbsenceDeclared)
def _absence_declared(state: GameState, e: pe.AbsenceDeclared) -> None:
    state.absences[e.player] = Absence(e.until, e.reason, e.by_speaker)


@_on(pe.AbsenceEnded)
def _absence_ended(state: GameState, e: pe.AbsenceEnded) -> None:
    state.absences.pop(e.player, None)


@_on(pe.TurnReminder)
def _turn_reminder(state: GameState, e: pe.TurnReminder) -> None:
    if state.turn is not None and state.turn.number == e.turn:
        state.turn.reminded = True


@_on(pe.TurnOverdue)
def _turn_overdue(state: GameState, e: pe.TurnOverdue) -> None:
    if state.turn is not None and state.turn.number == e.turn:
        state.turn.overdue_told = True


# --- Debate before the vote (debate.py) ----------------------------------------------------


@_on(ev.ProposalRevised)
def _proposal_revised(state: GameState, e: ev.ProposalRevised) -> None:
    proposal = state.proposals[e.proposal]
    if proposal.first_text is None:  # the text as distributed, for the vote's diff
        proposal.first_text, proposal.first_clauses = proposal.text, proposal.clauses
    proposal.text, proposal.clauses, proposal.unclear = e.text, e.clauses, e.unclear
    proposal.revisions += 1


@_on(ev.VoteStarted)
def _vote_started(state: GameState, e: ev.VoteStarted) -> None:
    proposal = state.proposals[e.proposal]
    proposal.debate_until = None
    proposal.closes_at = e.closes_at
    proposal.quorum_base = e.quorum_base
    proposal.reminded = False


@_on(ev.DebateContributed)
def _debate_contributed(state: GameState, e: ev.DebateContributed) -> None:
    proposal = state.proposals[e.proposal]
    proposal.debated = (*proposal.debated, (e.player, e.at))


# --- The host's hand work (handwork_events.py) ---------------------------------------------


@_on(ev.HandWorkOpened)
def _handwork_opened(state: GameState, e: ev.HandWorkOpened) -> None:
    state.handwork[e.item] = HandItem(e.item, e.proposal, e.words, e.rules, e.at)
    state.next_handwork = max(state.next_handwork, e.item + 1)


@_on(ev.HandWorkDone)
def _handwork_done(state: GameState, e: ev.HandWorkDone) -> None:
    state.handwork.pop(e.item, None)
