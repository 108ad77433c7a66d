"""Players: joining, leaving, the Speaker role, and agreeing that a held turn may begin."""

from __future__ import annotations

from speakerbot.addresses import canonical_address
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.judgement import replace_judge
from speakerbot.engine.mechanics import Flow
from speakerbot.engine.model import ProposalStatus, Role
from speakerbot.engine.play import MAX_NAME, Play
from speakerbot.engine.refusals import Facts, GameError, Refusal
from speakerbot.engine.turns import pass_turn
from speakerbot.engine.voting import close_if_all_voted


def join(play: Play, cmd: c.Join) -> None:
    """Let a player join by mail, where registration is open."""
    if not play.state.open_registration:
        raise GameError(Refusal.REGISTRATION_CLOSED)
    add_player(play, cmd.actor, cmd.name, by_speaker=False)


def add_by_speaker(play: Play, cmd: c.AddPlayer) -> None:
    """Register a player the Speaker adds."""
    add_player(play, cmd.address, cmd.name, by_speaker=True)


def forfeit(play: Play, cmd: c.Forfeit) -> None:
    """Let a player leave the game (000 113)."""
    play.player(cmd.actor)
    leave(play, cmd.actor, "forfeit")


def remove(play: Play, cmd: c.RemovePlayer) -> None:
    """Remove a player, as the Speaker directs."""
    leave(play, play.find(cmd.player).address, "removed")


def hand_speaker(play: Play, cmd: c.HandSpeaker) -> None:
    """Hand the Speaker role to another player, as the Speaker directs."""
    new = play.find(cmd.player).address
    if new == play.state.speaker:
        raise GameError(Refusal.ALREADY_SPEAKER, Facts(address=new))
    play.emit(e.SpeakerChanged(play.now, play.state.speaker, new))


def agree_to_next_turn(play: Play, cmd: c.AgreeToNextTurn) -> None:
    """Record a player's agreement that the next turn may begin although a CFJ is undecided."""
    play.player(cmd.actor)
    turn = play.state.turn
    if turn is None or turn.proposal is not None:
        raise GameError(Refusal.NO_TURN_WAITING)
    if cmd.actor == turn.mover:
        raise GameError(Refusal.MOVER_CANNOT_AGREE)
    if not play.state.open_cfjs():
        raise GameError(Refusal.NO_CFJ_HOLDING_TURN)
    if cmd.actor in turn.consenters:
        raise GameError(Refusal.ALREADY_AGREED)
    play.emit(e.TurnConsentGiven(play.now, cmd.actor, turn.number))


def add_player(play: Play, address: str, name: str, *, by_speaker: bool) -> None:
    """Register a player; in the turn-based presets the first one (again) takes the turn."""
    canonical = canonical_address(address)
    if canonical is None:
        raise GameError(Refusal.NOT_AN_ADDRESS, Facts(address=address.strip()))
    address = canonical
    name = " ".join(name.split())
    _check_newcomer(play, address, name, by_speaker=by_speaker)
    role = Role.PLAYER if play.mechanics.flow is Flow.TURNS else Role.VOTER
    play.emit(e.PlayerJoined(play.now, address, name, role, by_speaker))
    turn = play.state.turn
    if play.mechanics.flow is Flow.TURNS and (
        turn is None or not play.state.players[turn.mover].active
    ):
        # The first player, or the first after everyone left: their turn now.
        number = 1 if turn is None else turn.number + 1
        play.emit(e.TurnPassed(play.now, number, address, play.state.circuits_completed))


def _check_newcomer(play: Play, address: str, name: str, *, by_speaker: bool) -> None:
    if not name or len(name) > MAX_NAME:
        raise GameError(Refusal.BAD_NAME, Facts(limit=MAX_NAME))
    existing = play.state.players.get(address)
    if existing is not None and existing.active:
        raise GameError(Refusal.ALREADY_PLAYER, Facts(address=address, name=existing.name))
    if existing is not None and not by_speaker:
        raise GameError(Refusal.LEFT_GAME)
    if address == play.state.speaker and play.mechanics.speaker_role:
        raise GameError(Refusal.IS_SPEAKER, Facts(address=address))
    if play.state.find_player(name) is not None:
        raise GameError(Refusal.NAME_TAKEN, Facts(name=name))


def leave(play: Play, address: str, reason: str) -> None:
    """Take a player out: their turn passes, their judging moves on, votes may close."""
    state = play.state
    if play.mechanics.speaker_role and address == state.speaker:
        raise GameError(Refusal.SPEAKER_CANNOT_LEAVE)
    turn = state.turn
    was_mover = turn is not None and turn.mover == address
    play.emit(e.PlayerLeft(play.now, address, reason))
    if was_mover and turn is not None:
        if turn.proposal is not None and state.proposals[turn.proposal].status is (
            ProposalStatus.OPEN
        ):
            play.emit(e.ProposalVoided(play.now, turn.proposal, "its proposer left the game"))
        pass_turn(play)
    for cfj in state.open_cfjs():
        if cfj.judge == address:
            replace_judge(play, cfj, "the Judge left the game")
    for proposal in state.open_proposals():
        close_if_all_voted(play, proposal)
