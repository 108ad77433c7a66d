"""Scores and winning: points for a closed vote, the second part of a turn, and the win."""

from __future__ import annotations

import math
from fractions import Fraction

from speakerbot.engine import events as e
from speakerbot.engine.mechanics import Adoption, Mechanics, OnWin, TurnAward
from speakerbot.engine.model import Choice, Proposal, Role
from speakerbot.engine.play import Play


def score_vote(play: Play, proposal: Proposal, adopted: bool, ballots: dict[str, Choice],
               mechanics: Mechanics) -> None:
    """Score a closed vote under the rules it was held under."""
    number = proposal.number
    proposer = play.state.players.get(proposal.proposer)
    if proposer is not None and proposer.active:
        points = mechanics.proposer_adopted_points if adopted else (
            -mechanics.proposer_rejected_points
        )
        outcome = "adopted" if adopted else "defeated"
        source = "proposer_adopted_points" if adopted else "proposer_rejected_points"
        play.score(proposer.address, points,
                   f"proposal {number} {outcome}{play.per(source)}", proposal=number)
    if adopted:
        bonus = mechanics.dissent_points
        if mechanics.dissent_needs_majority_rule and mechanics.adoption is Adoption.UNANIMOUS:
            bonus = 0
        rewarded, why = Choice.AGAINST, f"voted against adopted proposal {number}"
        source = "dissent_points"
    else:
        bonus = mechanics.for_rejected_points
        rewarded, why = Choice.FOR, f"voted for rejected proposal {number}"
        source = "for_rejected_points"
    for voter, choice in ballots.items():
        if choice is rewarded:
            play.score(voter, bonus, why + play.per(source), proposal=number)


def turn_award(play: Play, proposal: Proposal, for_votes: int, eligible: int) -> None:
    """Give the mover the second part of their turn: a die throw or the Heavens."""
    mechanics = play.mechanics
    mover = proposal.proposer
    if not play.state.players[mover].active:
        return
    if mechanics.turn_award is TurnAward.DIE:
        faces = tuple(str(face) for face in range(1, mechanics.die_sides + 1))
        thrown, proof = play.draw(f"die:{proposal.number}", faces)
        value = int(thrown)
        play.emit(e.DieThrown(play.now, mover, mechanics.die_sides, value, proof))
        play.score(mover, value, f"threw {value} on the die{play.per('turn_award')}",
                   proposal=proposal.number)
    elif mechanics.turn_award is TurnAward.HEAVENS:
        share = Fraction(for_votes, eligible) if eligible else Fraction(0)
        exact = (proposal.number - mechanics.heavens_offset) * share
        heavens = math.floor(exact + Fraction(1, 2))  # to the nearest, halves up
        play.score(
            mover, heavens,
            f"Heavens for proposal {proposal.number}: ({proposal.number} - "
            f"{mechanics.heavens_offset}) x {for_votes}/{eligible} favourable = {heavens}"
            f"{play.per('turn_award')}",
            proposal=proposal.number,
        )


def check_winners(play: Play) -> None:
    """End the game (or begin a new one) once someone has the winning score."""
    state, mechanics = play.state, play.mechanics
    if state.ended:
        return
    winners = tuple(
        p.address for p in state.active_players()
        if p.score >= mechanics.win_points and p.role is not Role.SPEAKER
    )
    if not winners:
        return
    reason = f"reached {mechanics.win_points} points{play.per('win_points')}"
    play.emit(e.GameWon(play.now, winners, reason, play.scores_now()))
    if mechanics.on_win is OnWin.NEW_GAME and mechanics.speaker_role:
        new_speaker, proof = winners[0], None
        if len(winners) > 1:
            new_speaker, proof = play.draw(f"speaker:game-{state.game_number + 1}", winners)
        play.emit(e.NewGameBegun(
            play.now, state.game_number + 1, new_speaker, state.speaker,
            winners if len(winners) > 1 else (), mechanics.new_game_score_percent, proof,
        ))
    else:
        play.emit(e.GameEnded(play.now, f"won: {reason}", winners))
