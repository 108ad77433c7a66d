"""Debate before the vote, and voting in turn order.

Under ``debate = proponent`` (suber 111, rurru 109) a proposal opens for debate when it is
distributed: the other players argue (``DebateProposal``, forwarded to every player), its
proposer may replace its whole text (``ReviseProposal``) and starts the vote
(``CallVote``); when ``debate_period`` runs out first, the vote starts by itself. Under
``debate = period`` (locked-open 111) the vote starts when the period runs out, and no one
revises the proposal or calls its vote. Under ``none`` the vote starts at distribution.
The voting period starts when the vote does; ballots on a proposal in debate are refused.

Voting in turn order (``vote_in_turn_order``, locked-open 203). The turn order is the order
the players joined in, the order turns pass in; a proposal's order starts with its proposer
(whose turn it is) and runs on from them, round the table. Players who have left are not in
it, and neither is the Speaker where the Speaker does not vote; a player absent when the
ballot is cast is passed over, as the turn would be handled without them, so that nobody
waits on a player who said they are away. A ballot whose predecessors in that order have not
all voted is held: it is kept, sealed like any other, and counts once they have all voted,
or when the voting period ends (whichever comes first). Since every ballot is counted only
when the vote closes, and a vote closes only once every voter has voted or the period is
over, a held ballot always counts by the close: holding changes what its voter is told,
never a tally.
"""

from __future__ import annotations

from datetime import datetime

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.clauses import check_proposal
from speakerbot.engine.mechanics import Debate
from speakerbot.engine.model import GameState, Proposal
from speakerbot.engine.play import MAX_TEXT, Play
from speakerbot.engine.refusals import Facts, GameError, Refusal

MAX_ARGUMENT = 8_000
"""The longest argument a DEBATE may carry, in characters: it is sent to every player."""


def opening_debate(play: Play) -> datetime | None:
    """Return until when a proposal distributed now is debated (None: it is voted on at once)."""
    mechanics = play.mechanics
    if mechanics.debate is Debate.NONE:
        return None
    return play.now + mechanics.debate_period


def require_vote_started(play: Play, proposal: Proposal) -> None:
    """Refuse a ballot (or consent) on a proposal still in debate."""
    if proposal.in_debate:
        raise GameError(Refusal.IN_DEBATE, Facts(
            number=proposal.number, deadline=proposal.debate_until, rule=play.source("debate"),
            allowed=play.mechanics.debate is Debate.PROPONENT))


def _in_debate(play: Play, number: int) -> Proposal:
    """Return an open proposal in debate, or refuse (it is unknown, closed, or being voted on)."""
    proposal = play.proposal(number)
    if not proposal.in_debate:
        raise GameError(Refusal.NOT_IN_DEBATE, Facts(
            number=number, allowed=play.mechanics.debate is not Debate.NONE))
    return proposal


def _by_proponent(play: Play, number: int, actor: str, *, revising: bool) -> Proposal:
    """Return a proposal its proposer may still revise or call the vote on, or refuse."""
    play.player(actor)
    proposal = play.proposal(number)
    if not proposal.in_debate:
        if revising and play.mechanics.debate is not Debate.NONE:
            raise GameError(Refusal.REVISE_TOO_LATE, Facts(number=number))
        if revising:
            raise GameError(Refusal.NO_REVISION_RULE,
                            Facts(number=number, rule=play.source("debate")))
        raise GameError(Refusal.NOT_IN_DEBATE, Facts(
            number=number, allowed=play.mechanics.debate is not Debate.NONE))
    if proposal.proposer != actor:
        raise GameError(Refusal.NOT_PROPOSER,
                        Facts(number=number, name=play.state.name_of(proposal.proposer)))
    if play.mechanics.debate is not Debate.PROPONENT:
        refusal = Refusal.NO_REVISION_RULE if revising else Refusal.NO_CALL_RULE
        raise GameError(refusal, Facts(number=number, deadline=proposal.debate_until,
                                       rule=play.source("debate")))
    return proposal


def revise(play: Play, cmd: c.ReviseProposal) -> None:
    """Replace a proposal in debate with its proposer's whole new text (clauses checked anew)."""
    proposal = _by_proponent(play, cmd.proposal, cmd.actor, revising=True)
    if not cmd.text.strip() and not cmd.clauses:
        raise GameError(Refusal.NO_TEXT)
    if len(cmd.text) > MAX_TEXT:
        raise GameError(Refusal.TEXT_TOO_LONG, Facts(limit=MAX_TEXT))
    check_proposal(play, cmd.clauses, proposal.number)
    play.emit(e.ProposalRevised(play.now, proposal.number, cmd.text.strip("\n"),
                                tuple(cmd.clauses), tuple(cmd.unclear)))


def call_vote(play: Play, cmd: c.CallVote) -> None:
    """End a proposal's debate at its proposer's word: the vote starts now."""
    proposal = _by_proponent(play, cmd.proposal, cmd.actor, revising=False)
    start_vote(play, proposal.number, "called")


def argue(play: Play, cmd: c.DebateProposal) -> None:
    """Take a player's argument on a proposal in debate, for every player to read."""
    play.player(cmd.actor)
    proposal = _in_debate(play, cmd.proposal)
    text = cmd.text.strip("\n")
    if not text.strip():
        raise GameError(Refusal.NO_ARGUMENT, Facts(number=proposal.number))
    if len(text) > MAX_ARGUMENT:
        raise GameError(Refusal.ARGUMENT_TOO_LONG,
                        Facts(number=proposal.number, limit=MAX_ARGUMENT, count=len(text)))
    play.emit(e.DebateContributed(play.now, proposal.number, cmd.actor, text))


def start_vote(play: Play, number: int, how: str = "debate-over") -> None:
    """End a proposal's debate: its voting period begins now."""
    proposal = play.state.proposals[number]
    if not proposal.in_debate:
        return
    period = play.mechanics.voting_period
    closes_at = play.now + period if period is not None else None
    play.emit(e.VoteStarted(play.now, number, closes_at, len(play.state.voters()), how))


def turn_order(state: GameState, proposal: Proposal, now: datetime) -> list[str]:
    """Return the order the voters vote in on a proposal: its proposer first, round the table.

    Players who left and a Speaker who does not vote are not in it; players absent ``now``
    are passed over.
    """
    voters = set(state.voters())
    absences = getattr(state, "absences", {})
    seated = [address for address in state.players
              if address in voters and not (address in absences and absences[address].until > now)]
    if proposal.proposer in seated:
        start = seated.index(proposal.proposer)
        seated = seated[start:] + seated[:start]
    return seated


def waiting_for(state: GameState, proposal: Proposal, voter: str, now: datetime) -> list[str]:
    """Return who must vote before ``voter``'s ballot counts (empty: it counts now).

    Only where the players vote in turn order; nobody is waited for once the voting period
    is over.
    """
    mechanics = state.rules_mechanics
    if not mechanics.vote_in_turn_order or voter not in proposal.ballots:
        return []
    if proposal.closes_at is not None and now >= proposal.closes_at:
        return []
    order = turn_order(state, proposal, now)
    if voter not in order:
        return []
    before = order[: order.index(voter)]
    return [address for address in before if address not in proposal.ballots]


def predecessors(state: GameState, proposal: Proposal, voter: str, now: datetime) -> list[str]:
    """Return every voter before ``voter`` in the proposal's turn order."""
    order = turn_order(state, proposal, now)
    return order[: order.index(voter)] if voter in order else []
