"""Proposals and votes: submitting, ballots, the Speaker's consent, and closing a vote."""

from __future__ import annotations

from datetime import timedelta

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.clauses import carry_out, check_proposal
from speakerbot.engine.debate import opening_debate, require_vote_started
from speakerbot.engine.mechanics import Flow
from speakerbot.engine.model import Choice, ClauseKind, Proposal, ProposalStatus, Role
from speakerbot.engine.play import MAX_TEXT, MAX_TITLE, Play
from speakerbot.engine.refusals import Facts, GameError, Refusal
from speakerbot.engine.scoring import check_winners, score_vote, turn_award
from speakerbot.engine.tally import count_vote, transmutation_needs_unanimity
from speakerbot.engine.turns import pass_turn, turn_may_begin


def propose(play: Play, cmd: c.Propose) -> None:
    """Submit a proposal: number and distribute it; its voting period begins."""
    play.player(cmd.actor)
    mechanics, state = play.mechanics, play.state
    title = " ".join(cmd.title.split())
    if not title or len(title) > MAX_TITLE:
        raise GameError(Refusal.BAD_TITLE, Facts(limit=MAX_TITLE))
    if not cmd.text.strip() and not cmd.clauses:
        raise GameError(Refusal.NO_TEXT)
    if len(cmd.text) > MAX_TEXT:
        raise GameError(Refusal.TEXT_TOO_LONG, Facts(limit=MAX_TEXT))
    turn_number = None
    if mechanics.flow is Flow.TURNS:
        turn_number = _turn_to_propose(play, cmd.actor)
    number = state.next_proposal
    check_proposal(play, cmd.clauses, number)
    period = mechanics.voting_period
    debate_until = opening_debate(play)  # while debated, the voting period has not begun
    closes_at = play.now + period if period is not None and debate_until is None else None
    play.emit(e.ProposalSubmitted(
        play.now, number, title, cmd.text.strip("\n"), tuple(cmd.clauses), cmd.actor, closes_at,
        len(state.voters()), turn_number, debate_until, tuple(cmd.unclear),
    ))


def _turn_to_propose(play: Play, actor: str) -> int:
    """Return the number of the turn the actor proposes in, or refuse."""
    state = play.state
    turn = state.turn
    assert turn is not None
    if turn.mover != actor:
        raise GameError(Refusal.NOT_YOUR_TURN, Facts(
            address=turn.mover, name=state.name_of(turn.mover), rule=play.source("flow")))
    if turn.proposal is not None:
        raise GameError(Refusal.ALREADY_PROPOSED, Facts(number=turn.proposal))
    turn_may_begin(play)
    return turn.number


def cast_ballot(play: Play, cmd: c.CastBallot) -> None:
    """Take a ballot (ABSTAIN withdraws one); the vote may close once everyone has voted."""
    number = cmd.proposal
    player = play.player(cmd.actor)
    # Lateness first: after downtime the vote may already be closed when a late ballot
    # is read, and its voter should hear that it came too late, not just that it is over.
    proposal = play.proposal(number, open_only=False)
    # While the game is paused the deadline does not run: ballots are still taken in.
    running = play.state.paused_at is None
    if running and proposal.closes_at is not None and play.now >= proposal.closes_at:
        raise GameError(Refusal.BALLOT_TOO_LATE,
                        Facts(number=number, at=play.now, deadline=proposal.closes_at))
    proposal = play.proposal(number)
    require_vote_started(play, proposal)
    if player.role is Role.SPEAKER:
        raise GameError(Refusal.SPEAKER_MAY_NOT_VOTE, Facts(rule=play.source("speaker_role")))
    if cmd.choice is Choice.ABSTAIN:
        play.emit(e.BallotWithdrawn(play.now, number, cmd.actor))
    else:
        play.emit(e.BallotCast(play.now, number, cmd.actor, cmd.choice, cmd.salt))
    close_if_all_voted(play, proposal)


def declare_consent(play: Play, cmd: c.DeclareConsent) -> None:
    """Record the Speaker's consent to a proposal, or its refusal (nomicam 208)."""
    if cmd.actor != play.state.speaker:
        raise GameError(Refusal.CONSENT_NOT_SPEAKER)
    if not play.mechanics.speaker_consent:
        raise GameError(Refusal.NO_CONSENT_RULE)
    proposal = play.proposal(cmd.proposal)
    running = play.state.paused_at is None
    if running and proposal.closes_at is not None and play.now >= proposal.closes_at:
        raise GameError(Refusal.VOTING_PERIOD_OVER, Facts(number=cmd.proposal))
    play.emit(e.ConsentDeclared(play.now, cmd.proposal, cmd.actor, cmd.consent))


def adjust_score(play: Play, cmd: c.AdjustScore) -> None:
    """Change a player's score, as the Speaker directs."""
    player = play.find(cmd.player)
    if not cmd.delta:
        raise GameError(Refusal.ZERO_ADJUSTMENT)
    play.score(player.address, cmd.delta, cmd.reason or "adjusted by the Speaker",
               by_speaker=True)
    check_winners(play)


def extend_vote(play: Play, cmd: c.ExtendVote) -> None:
    """Move a vote's deadline later, as the Speaker directs."""
    proposal = play.proposal(cmd.proposal)
    require_vote_started(play, proposal)
    if cmd.by <= timedelta(0):
        raise GameError(Refusal.NO_EXTENSION)
    base = proposal.closes_at or play.now
    play.emit(e.VoteExtended(play.now, cmd.proposal, max(base, play.now) + cmd.by))


def close_vote_now(play: Play, cmd: c.CloseVote) -> None:
    """Close a vote early, as the Speaker directs."""
    require_vote_started(play, play.proposal(cmd.proposal))
    close_vote(play, cmd.proposal)


def void_proposal(play: Play, cmd: c.VoidProposal) -> None:
    """Void a proposal, as the Speaker directs."""
    play.proposal(cmd.proposal)
    play.emit(e.ProposalVoided(play.now, cmd.proposal, cmd.reason or "voided by the Speaker"))


def close_if_all_voted(play: Play, proposal: Proposal) -> None:
    """Close a vote early where the rules say so and every voter has voted.

    Never while the game is paused: such a vote closes when the game resumes (pace.py).
    """
    voters = play.state.voters()
    if (
        play.state.paused_at is None
        and play.mechanics.close_when_all_voted
        and proposal.status is ProposalStatus.OPEN
        and voters
        and all(v in proposal.ballots for v in voters)
    ):
        close_vote(play, proposal.number)


def close_vote(play: Play, number: int) -> None:
    """Close a vote: count it, carry out an adopted proposal, score, and pass the turn."""
    state, mechanics = play.state, play.mechanics
    proposal = state.proposals[number]
    if proposal.status is not ProposalStatus.OPEN:
        return
    voters = state.voters()
    ballots = {v: b.choice for v, b in proposal.ballots.items()}
    needs_unanimity = any(
        clause.kind is ClauseKind.TRANSMUTE
        and clause.rule in state.rules
        and transmutation_needs_unanimity(mechanics, not state.rules[clause.rule].mutable)
        for clause in proposal.clauses
    )
    tally = count_vote(
        ballots, voters, proposal.quorum_base, mechanics,
        unanimity_for_transmutation=needs_unanimity, consent_refused=proposal.consent_refused,
    )
    order = {address: index for index, address in enumerate(state.players)}
    revealed = tuple(sorted(ballots.items(), key=lambda item: order[item[0]]))
    play.emit(e.VoteClosed(
        play.now, number, tally.adopted, revealed,
        tuple(v for v in voters if v not in ballots), tally.for_votes, tally.against_votes,
        tally.eligible, tally.quorum_base, tally.quorum_needed, tally.quorum_reached,
        tally.requirement, proposal.consent_refused, tally.reason,
        tuple((voter, proposal.ballots[voter].salt) for voter, _ in revealed
              if proposal.ballots[voter].salt),
    ))
    # The vote is scored by the rules it was held under: no rule change it adopts applies
    # to itself retroactively (nomicam 108). The turn's second part comes after the vote,
    # under the rules as they then stand.
    if tally.adopted:
        carry_out(play, number, proposal.clauses)
    score_vote(play, proposal, tally.adopted, ballots, mechanics)
    turn = state.turn
    is_turn_proposal = turn is not None and proposal.turn == turn.number
    if is_turn_proposal:
        turn_award(play, proposal, tally.for_votes, tally.eligible)
    check_winners(play)
    if is_turn_proposal and not state.ended:
        pass_turn(play)
