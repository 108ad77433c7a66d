"""The pace of play: the host's pause, and a turn's deadline with its reminder and notice.

While the game is paused no vote closes (not even one every voter has voted on: it closes
when the game resumes), no Judge's deadline runs and no reminder goes out; proposals and
ballots are still taken in. Resuming moves every running deadline on by the time the game
was paused, so no deadline ever falls earlier than it stood.

A turn's deadline (``turn_period``) runs from when the turn began until the mover proposes.
The mover is reminded ``reminder_before`` ahead of it; when it passes, everyone is told who
holds the game, once. No preset lets a turn be skipped, so the host decides what follows:
ADMIN SKIP (an override), waiting, or the mover's forfeit.
"""

from __future__ import annotations

from datetime import datetime

from speakerbot.engine import commands as c
from speakerbot.engine import pace_events as pe
from speakerbot.engine.mechanics import Flow
from speakerbot.engine.model import GameState
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import Facts, GameError, Refusal
from speakerbot.engine.turns import pass_turn
from speakerbot.engine.voting import close_if_all_voted


def pause(play: Play, cmd: c.PauseGame) -> None:
    """Pause the game, as the host directs."""
    state = play.state
    if state.paused_at is not None:
        raise GameError(Refusal.ALREADY_PAUSED, Facts(at=state.paused_at, text=state.pause_reason))
    play.emit(pe.GamePaused(play.now, cmd.actor, " ".join(cmd.reason.split())))


def resume(play: Play, cmd: c.ResumeGame) -> None:
    """Resume the game: deadlines move on; a vote every voter voted on meanwhile closes now."""
    paused_at = play.state.paused_at
    if paused_at is None:
        raise GameError(Refusal.NOT_PAUSED)
    play.emit(pe.GameResumed(play.now, cmd.actor, paused_at))
    for proposal in play.state.open_proposals():
        close_if_all_voted(play, proposal)


def skip_turn(play: Play, cmd: c.SkipTurn) -> None:
    """Give the turn of a mover who has not proposed to the next player, as the host directs."""
    state = play.state
    turn = state.turn
    if play.mechanics.flow is not Flow.TURNS or turn is None:
        raise GameError(Refusal.NO_TURN_TO_SKIP)
    if turn.proposal is not None:
        raise GameError(Refusal.MOVER_HAS_PROPOSED, Facts(
            number=turn.proposal, address=turn.mover, name=state.name_of(turn.mover)))
    pass_turn(play)


def turn_deadline(state: GameState) -> datetime | None:
    """Return when the mover's time to propose runs out (None: no deadline runs)."""
    turn = state.turn
    period = state.rules_mechanics.turn_period
    if turn is None or period is None or turn.began_at is None or turn.proposal is not None:
        return None
    return turn.began_at + period + turn.moved_by


def mover_reminder_due(state: GameState) -> datetime | None:
    """Return when the mover is to be reminded (None: not now, or not while they are away)."""
    deadline = turn_deadline(state)
    before = state.rules_mechanics.reminder_before
    turn = state.turn
    if deadline is None or before is None or turn is None or turn.reminded:
        return None
    if turn.mover in state.absences or turn.began_at is None:
        return None
    remind_at = deadline - before
    return remind_at if remind_at > turn.began_at + turn.moved_by else None


def overdue_due(state: GameState) -> datetime | None:
    """Return when everyone is to be told that the turn is overdue (None: not, or told)."""
    deadline = turn_deadline(state)
    turn = state.turn
    if deadline is None or turn is None or turn.overdue_told:
        return None
    return deadline


def remind_mover(play: Play, _number: int) -> None:
    """Remind the mover privately that their turn's deadline is near."""
    turn = play.state.turn
    deadline = turn_deadline(play.state)
    assert turn is not None and deadline is not None
    play.emit(pe.TurnReminder(play.now, turn.number, turn.mover, deadline))


def tell_overdue(play: Play, _number: int) -> None:
    """Tell everyone that the mover's time has run out: who holds the game."""
    turn = play.state.turn
    deadline = turn_deadline(play.state)
    assert turn is not None and deadline is not None
    play.emit(pe.TurnOverdue(play.now, turn.number, turn.mover, deadline,
                            turn.mover in play.state.absences))


def override_summary(command: c.Command, state: GameState) -> str | None:
    """Say in one line what a pace override does (None: not one of them)."""
    match command:
        case c.PauseGame(reason=reason):
            return "paused the game" + (f": {' '.join(reason.split())}" if reason.strip() else "")
        case c.ResumeGame():
            since = state.paused_at
            return "resumed the game" + (f" (paused since {since:%Y-%m-%d %H:%M} UTC)"
                                         if since is not None else "")
        case c.SetAbsence(player=player, until=until):
            return f"declared {player} absent until {until:%Y-%m-%d}"
        case c.SkipTurn():
            mover = state.turn.mover if state.turn is not None else ""
            return f"skipped {state.name_of(mover)}'s turn"
    return None

