"""The game engine's entry: ``apply(state, command, now)`` and ``tick(state, now)``.

Both are pure: the state passed in is never changed; a new state and the events that led to
it come back. Time is passed in (timezone-aware); randomness comes from a source passed in,
and every draw is recorded in the event it decided, so a game's record replays exactly.
A refused command comes back as the unchanged state and one ``CommandRejected`` event that
records the kind of refusal and its facts (the mail layer words it).

The moves themselves live by topic: players (``players``), turns (``turns``), proposals and
votes (``voting``), scores (``scoring``), clauses (``clauses``), judgement (``judgement``)
and time (``deadlines``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime
from typing import Any

from speakerbot.engine import (
    absence,
    debate,
    handwork,
    judgement,
    pace,
    players,
    seeds,
    starting,
    voting,
)
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.anchors import refollow
from speakerbot.engine.clauses import edit_directly
from speakerbot.engine.deadlines import due_by, next_deadline, tick
from speakerbot.engine.durations import format_duration
from speakerbot.engine.edits import MAX_RULE_BYTES
from speakerbot.engine.model import Clause, ClauseKind, GameState
from speakerbot.engine.play import NO_RANDOMNESS, Play, RandomSource, require_aware
from speakerbot.engine.refusals import GameError

__all__ = ["NO_RANDOMNESS", "GameError", "RandomSource", "apply", "due_by", "next_deadline",
           "tick"]


def apply(
    state: GameState, command: c.Command, now: datetime, rng: RandomSource = NO_RANDOMNESS,
    *, max_rule_bytes: int = MAX_RULE_BYTES,
) -> tuple[GameState, list[e.Event]]:
    """Apply one command at time ``now``; return the new state and the events it caused.

    ``max_rule_bytes``: the longest a rule's text may become (the host's ``[limits]``).
    """
    require_aware(now)
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise TypeError(f"not an engine command: {command!r}")
    work = copy.deepcopy(state)
    play = Play(work, now, rng, max_rule_bytes=max_rule_bytes)
    try:
        if not isinstance(command, c.StartGame | c.ImportGame):
            play.require_running()
        if isinstance(command, c.SPEAKER_COMMANDS):
            play.require_speaker(command)
        handler(play, command)
        seeds.settle_seed(play, asked=isinstance(command, c.RevealSeed))
        if isinstance(command, c.SPEAKER_COMMANDS):
            # Announced first, though composed last: only a valid override is described.
            summary = pace.override_summary(command, state) or _override_summary(command)
            override = e.SpeakerOverride(now, command.actor, type(command).__name__, summary)
            play.events.insert(0, override)
            # Recorded first, the override moves the decision's lines: link them again.
            work.record = refollow(state.record, state, play.events)
    except GameError as error:
        rejected = e.CommandRejected(now, command.actor, type(command).__name__,
                                     error.refusal, error.facts)
        return state, [rejected]
    return work, play.events


def _set_mechanic(play: Play, cmd: c.SetMechanic) -> None:
    edit_directly(play, Clause(ClauseKind.SET, None, cmd.value, parameter=cmd.name))


def _edit_rule(play: Play, cmd: c.EditRule) -> None:
    edit_directly(play, cmd.clause)
    # The host's edit of a rule is the hand work left on it: its open items are done.
    handwork.close_by_edit(play, cmd.clause)


def _end_game(play: Play, cmd: c.EndGame) -> None:
    play.emit(e.GameEnded(play.now, cmd.reason or "ended by the Speaker", ()))


_HANDLERS: dict[type[c.Command], Callable[[Play, Any], None]] = {
    c.StartGame: starting.start_game,
    c.ImportGame: starting.import_game,
    c.Join: players.join,
    c.Forfeit: players.forfeit,
    c.Propose: voting.propose,
    c.CastBallot: voting.cast_ballot,
    c.ReviseProposal: debate.revise,
    c.CallVote: debate.call_vote,
    c.DebateProposal: debate.argue,
    c.DeclareConsent: voting.declare_consent,
    c.CallForJudgement: judgement.call_for_judgement,
    c.DeliverJudgement: judgement.deliver_judgement,
    c.Overrule: judgement.overrule,
    c.AgreeToNextTurn: players.agree_to_next_turn,
    c.AddPlayer: players.add_by_speaker,
    c.RemovePlayer: players.remove,
    c.AdjustScore: voting.adjust_score,
    c.SetMechanic: _set_mechanic,
    c.ExtendVote: voting.extend_vote,
    c.CloseVote: voting.close_vote_now,
    c.VoidProposal: voting.void_proposal,
    c.EditRule: _edit_rule,
    c.CloseHandWork: handwork.close_handwork,
    c.AssignJudge: judgement.assign_judge,
    c.HandSpeaker: players.hand_speaker,
    c.EndGame: _end_game,
    c.RevealSeed: seeds.reveal_seed,
    # The pace of play.
    c.PauseGame: pace.pause,
    c.ResumeGame: pace.resume,
    c.SkipTurn: pace.skip_turn,
    c.DeclareAbsence: absence.declare,
    c.EndAbsence: absence.back,
    c.SetAbsence: absence.set_by_host,
}


def _override_summary(command: c.Command) -> str:
    """Say in one line what an override does, for the announcement to every player."""
    match command:
        case c.AddPlayer(address=address, name=name):
            return f"added player {name} <{address}>"
        case c.RemovePlayer(player=player, reason=reason):
            return f"removed player {player}" + (f": {reason}" if reason else "")
        case c.AdjustScore(player=player, delta=delta, reason=reason):
            return f"changed {player}'s score by {delta:+}" + (f": {reason}" if reason else "")
        case c.SetMechanic(name=name, value=value):
            return f"set {name} = {value}"
        case c.ExtendVote(proposal=number, by=by):
            return f"extended the vote on proposal {number} by {format_duration(by)}"
        case c.CloseVote(proposal=number):
            return f"closed the vote on proposal {number} early"
        case c.VoidProposal(proposal=number, reason=reason):
            return f"voided proposal {number}" + (f": {reason}" if reason else "")
        case c.EditRule(clause=clause):
            return f"edited the rules directly: {clause.describe()}"
        case c.CloseHandWork(item=item, reason=reason):
            return f"closed item {item} of the hand work" + (f": {reason}" if reason else "")
        case c.AssignJudge(cfj=number, player=player):
            return f"made {player} the Judge of CFJ {number}"
        case c.HandSpeaker(player=player):
            return f"handed the Speaker role to {player}"
        case c.EndGame(reason=reason):
            return "ended the game" + (f": {reason}" if reason else "")
        case c.RevealSeed():
            return "revealed the seed the game's draws are made with"
    return type(command).__name__

