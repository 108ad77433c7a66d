"""The debate's mail: a revision, the vote's start, an argument forwarded; and their replies.

Each composer takes the voice, the event that heads the message and its batch (see
:mod:`.batch`); ``COMPOSERS`` registers them with the announcer. An argument is forwarded as
its player wrote it, no more (bounded by ``engine.debate.MAX_ARGUMENT``), to every player
or the list.
"""

from __future__ import annotations

from speakerbot.engine import events as e
from speakerbot.engine.base_event import Event
from speakerbot.engine.debate import predecessors, waiting_for
from speakerbot.engine.model import GameState
from speakerbot.mail.outbound.batch import Batch, Composer, Voice, announce
from speakerbot.mail.outbound.compose import Outgoing, format_time
from speakerbot.mail.outbound.diffs import clause_views, revision_diff


def revised(voice: Voice, head: e.ProposalRevised, batch: Batch) -> Outgoing:
    """Tell every player that a proposal in debate was revised: the diff and the new text."""
    state = batch.state
    proposal = state.proposals[head.proposal]
    before = batch.before.proposals.get(head.proposal)
    return announce(
        voice, batch, f"Proposal {proposal.number} revised: {proposal.title}",
        "proposal_revised.txt",
        proposal=proposal, revision=head, proposer=state.name_of(proposal.proposer),
        diff=revision_diff(before.text if before is not None else None, head.text),
        clauses=clause_views(head.clauses, batch.before),
    )


def vote_started(voice: Voice, head: e.VoteStarted, batch: Batch) -> Outgoing:
    """Announce that a proposal's vote has begun, with its final text (and diff if revised)."""
    state = batch.state
    proposal = state.proposals[head.proposal]
    return announce(
        voice, batch, f"Vote on proposal {proposal.number}: {proposal.title}", "vote_started.txt",
        proposal=proposal, started=head, proposer=state.name_of(proposal.proposer),
        revised=proposal.first_text is not None,
        diff=revision_diff(proposal.first_text, proposal.text),
        clauses=clause_views(proposal.clauses, batch.before),
    )


def argument(voice: Voice, head: e.DebateContributed, batch: Batch) -> Outgoing:
    """Forward a player's argument on a proposal in debate to every player."""
    state = batch.state
    proposal = state.proposals[head.proposal]
    return announce(
        voice, batch, f"Debate on proposal {proposal.number}: {proposal.title}", "debate.txt",
        proposal=proposal, argument=head, player=state.name_of(head.player),
    )


COMPOSERS: dict[type[Event], Composer] = {
    e.ProposalRevised: revised,
    e.VoteStarted: vote_started,
    e.DebateContributed: argument,
}
"""The debate's composers, by the event that heads their message."""


# --- What the reply to the sender says of each -----------------------------------------------


def said_submitted(event: e.ProposalSubmitted) -> str:
    """Say to its proposer what became of a proposal that opens for debate."""
    assert event.debate_until is not None
    return (f"Your proposal is number {event.number}, \"{event.title}\"; it has been sent to "
            f"every player and is in debate until {format_time(event.debate_until)} at the "
            "latest, when its vote starts by itself.")


def said_revised(event: e.ProposalRevised, state: GameState) -> str:
    """Say to the proposer that the revision went out."""
    return (f"Proposal {event.proposal} is revised; every player is sent its new text. The "
            "vote counts the text as it stands when the vote starts.")


def said_vote_started(event: e.VoteStarted, state: GameState) -> str:
    """Say that the vote on a proposal began."""
    closes = f"; it closes {format_time(event.closes_at)}" if event.closes_at else ""
    return (f"The vote on proposal {event.proposal} has begun{closes}. Every player is told, "
            "with its final text.")


def said_argument(event: e.DebateContributed, state: GameState) -> str:
    """Say to a player that their argument was forwarded."""
    return (f"Your argument on proposal {event.proposal} is sent to every player "
            f"({len(event.text)} characters; it counts as one of your replies of the day).")


def held_ballot(event: e.BallotCast, state: GameState) -> str:
    """Say why a ballot cast out of turn order is held (empty when it counts at once).

    Names every player before the voter in the order, not only those who have not voted:
    that a ballot is held says no more than that one of them has yet to vote.
    """
    proposal = state.proposals[event.proposal]
    if not waiting_for(state, proposal, event.voter, event.at):
        return ""
    before = [state.name_of(address)
              for address in predecessors(state, proposal, event.voter, event.at)]
    rule = state.sources.get("vote_in_turn_order")
    per = f" (rule {rule})" if rule is not None else ""
    closes = (f" or when the voting period ends ({format_time(proposal.closes_at)})"
              if proposal.closes_at else " or when the voting period ends")
    return (f" The players vote in their usual turn order{per}, so it is held: it counts once "
            f"the players before you in that order ({', '.join(before)}) have all voted,"
            f"{closes}.")
