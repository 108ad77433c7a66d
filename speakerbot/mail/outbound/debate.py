"""The debate's mail: a revision, the vote's start, an argument forwarded.

Each composer takes the voice, the event that heads the message and its batch (see
:mod:`.batch`); ``COMPOSERS`` registers them with the announcer. An argument is forwarded as
its player wrote it, no more (bounded by ``engine.debate.MAX_ARGUMENT``), to every player
or the list.
"""

from __future__ import annotations

from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine.base_event import Event
from speakerbot.mail.outbound.batch import Batch, Composer, Voice, announce
from speakerbot.mail.outbound.compose import Outgoing
from speakerbot.mail.outbound.diffs import clause_views, revision_diff


def _announce(voice: Voice, batch: Batch, number: int, heading: str, template: str,
              **context: Any) -> Outgoing:
    """Announce something of proposal ``number``: the subject's heading, then its title."""
    proposal = batch.state.proposals[number]
    return announce(voice, batch, f"{heading.format(number)}: {proposal.title}", template,
                    proposal=proposal, proposer=batch.state.name_of(proposal.proposer),
                    **context)


def revised(voice: Voice, head: e.ProposalRevised, batch: Batch) -> Outgoing:
    """Tell every player that a proposal in debate was revised: the diff and the new text."""
    before = batch.before.proposals.get(head.proposal)
    return _announce(
        voice, batch, head.proposal, "Proposal {} revised", "proposal_revised.txt",
        revision=head,
        diff=revision_diff(before.text if before is not None else None, head.text),
        clauses=clause_views(head.clauses, batch.before),
    )


def vote_started(voice: Voice, head: e.VoteStarted, batch: Batch) -> Outgoing:
    """Announce that a proposal's vote has begun, with its final text (and diff if revised)."""
    proposal = batch.state.proposals[head.proposal]
    return _announce(
        voice, batch, head.proposal, "Vote on proposal {}", "vote_started.txt", started=head,
        revised=proposal.first_text is not None,
        diff=revision_diff(proposal.first_text, proposal.text),
        clauses=clause_views(proposal.clauses, batch.before),
    )


def argument(voice: Voice, head: e.DebateContributed, batch: Batch) -> Outgoing:
    """Forward a player's argument on a proposal in debate to every player."""
    return _announce(voice, batch, head.proposal, "Debate on proposal {}", "debate.txt",
                     argument=head, player=batch.state.name_of(head.player))


COMPOSERS: dict[type[Event], Composer] = {
    e.ProposalRevised: revised,
    e.VoteStarted: vote_started,
    e.DebateContributed: argument,
}
"""The debate's composers, by the event that heads their message."""
