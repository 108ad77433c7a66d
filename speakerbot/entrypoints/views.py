"""What ``--json`` prints: the game's state and the stored mail as plain JSON values.

Pure: a state, a row or the public record's lines in, dicts and lists out. The shapes are
a contract with scripts, described key by key in docs/cli.md: keys are only ever added.
Times are ISO 8601 in UTC (``2026-05-04T12:00:00+00:00``), addresses lower-case, scores
numbers. A sealed ballot never appears: an open proposal's JSON holds no ballot, nor a
count of them, as SHOW PROPOSAL by mail does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from speakerbot.engine import GameState
from speakerbot.engine.model import Cfj, Player, Proposal, ProposalStatus, Rule
from speakerbot.engine.rereading import InForce
from speakerbot.mail.outbound.handwork import item_json, open_items
from speakerbot.mail.outbound.lookups import closing_of, describe_line, find_rule, names_in

if TYPE_CHECKING:
    from speakerbot.adapters.store import InboundRow

__all__ = ["cfj_view", "history_view", "inbound_view", "player_view", "proposal_view",
           "rule_view", "status_view"]

Json = dict[str, Any]


def _time(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def _score(score: Decimal) -> int | float:
    """Return a whole score as an integer, a fractional one as a float."""
    return int(score) if score == score.to_integral_value() else float(score)


def player_view(state: GameState, player: Player) -> Json:
    """One player: name, address, score, role, whether still playing, absent until when."""
    absence = state.absences.get(player.address)
    return {"name": player.name, "address": player.address, "score": _score(player.score),
            "role": player.role.value, "active": player.active,
            "absent_until": _time(absence.until) if absence is not None else None}


def _person(state: GameState, address: str | None) -> Json | None:
    return None if not address else {"address": address, "name": state.name_of(address)}


def status_view(game_name: str, state: GameState, outbox: Json,
                audience: tuple[Mapping[str, datetime], Mapping[str, datetime]] = ({}, {}),
                ) -> Json:
    """Return what ``speakerbot status`` shows: the game, players, what is open, the outbox.

    ``audience``: the observers, and the players marked unreachable (their mail bounces),
    each with since when.
    """
    turn = state.turn
    observers, unreachable = audience
    return {
        "game": {"name": game_name, "preset": state.preset, "number": state.game_number,
                 "ended": state.ended, "end_reason": state.end_reason or None,
                 "winners": list(state.winners)},
        "speaker": _person(state, state.speaker),
        "turn": None if turn is None else {"number": turn.number,
                                           "mover": _person(state, turn.mover)},
        "players": [{**player_view(state, player),
                     "unreachable_since": _time(unreachable.get(player.address))}
                    for player in state.scoreboard()],
        "observers": len(observers),
        "open_proposals": [{"number": p.number, "title": p.title,
                            "proposer": _person(state, p.proposer),
                            "closes_at": _time(p.closes_at)} for p in state.open_proposals()],
        "open_cfjs": [{"number": cfj.number, "statement": cfj.statement,
                       "judge": _person(state, cfj.judge),
                       "deadline": _time(cfj.deadline)} for cfj in state.open_cfjs()],
        "handwork": [item_json(item) for item in open_items(state)],
        "outbox": outbox,
    }


def proposal_view(state: GameState, proposal: Proposal,
                  lines: Sequence[Mapping[str, Any]]) -> Json:
    """One proposal; once its vote has closed, its result with every ballot revealed."""
    closing = (closing_of(lines, proposal.number)
               if proposal.status not in (ProposalStatus.OPEN, ProposalStatus.VOID) else None)
    # The public record names the voters of a game of record version 2 by their public ids;
    # the host's command line names them by address, as everywhere else.
    address_of = {public: address for address, public in state.public_ids.items()}
    result = None if closing is None else {
        "adopted": closing.adopted, "for": closing.for_votes,
        "against": closing.against_votes, "eligible": closing.eligible,
        "quorum_needed": closing.quorum_needed, "quorum_reached": closing.quorum_reached,
        "requirement": closing.requirement, "reason": closing.reason,
        "ballots": [{"voter": _person(state, address_of.get(voter, voter)),
                     "choice": choice.value} for voter, choice in closing.ballots],
        "non_voters": [_person(state, address_of.get(voter, voter))
                       for voter in closing.non_voters]}
    return {"number": proposal.number, "title": proposal.title, "text": proposal.text,
            "proposer": _person(state, proposal.proposer), "status": proposal.status.value,
            "submitted_at": _time(proposal.submitted_at), "closes_at": _time(proposal.closes_at),
            "closed_at": _time(proposal.closed_at),
            "clauses": [clause.describe() for clause in proposal.clauses], "result": result}


def rule_view(state: GameState, number: int) -> Json | None:
    """Return the rule ``number`` names (in force, renumbered since or repealed), or None."""
    rule, _ = find_rule(state, number)
    if rule is None:
        return None
    return {"number": rule.number, "asked": number, "title": rule.title, "text": rule.text,
            "mutable": rule.mutable,
            "repealed": _repealed(state, rule),
            "history": [{"kind": change.kind, "at": _time(change.at),
                         "proposal": change.proposal, "by_speaker": change.by_speaker,
                         "previous_number": change.previous_number, "note": change.note}
                        for change in rule.history]}


def mechanic_view(found: InForce) -> Json:
    """One mechanic in force: its value and where it comes from (``show mechanics --json``).

    ``source``: ``rule`` (with ``rule`` and, where the game reads it, ``words``; or a rule
    since repealed, named in ``origin``), ``host``, ``proposal`` (set by a proposal's SET)
    or ``preset``.
    """
    source = ("host" if found.origin == "set by the host" else
              "proposal" if found.origin.startswith("set by proposal") else
              "rule" if found.origin.startswith("rule") else "preset")
    return {"name": found.name, "value": found.value, "source": source, "rule": found.rule,
            "words": found.words or None, "origin": found.origin}


def _repealed(state: GameState, rule: Rule) -> bool:
    return state.rules.get(rule.number) is not rule


def cfj_view(state: GameState, cfj: Cfj) -> Json:
    """One CFJ: its statement, caller, Judges in turn, and the judgement once given."""
    return {"number": cfj.number, "statement": cfj.statement, "arguments": cfj.arguments,
            "caller": _person(state, cfj.caller), "called_at": _time(cfj.called_at),
            "judges": [_person(state, judge) for judge in cfj.judges],
            "judge": _person(state, cfj.judge), "deadline": _time(cfj.deadline),
            "judgement": None if cfj.judgement is None else cfj.judgement.value,
            "reasons": cfj.reasons or None, "judged_at": _time(cfj.judged_at)}


def history_view(state: GameState, lines: Sequence[Mapping[str, Any]], count: int) -> Json:
    """Return the last ``count`` lines of the public record, as stored and said in words."""
    names = names_in(state)
    return {"total": len(lines),
            "events": [{"seq": line.get("seq"), "type": line.get("type"), "at": line.get("at"),
                        "said": describe_line(line, names).split("  ", 2)[-1],
                        "line": dict(line)} for line in lines[-count:]]}


def inbound_view(row: InboundRow) -> Json:
    """One stored message's particulars (not its bytes), as ``inbound list`` shows them."""
    return {"id": row.id, "status": row.status, "received_at": _time(row.received_at),
            "source": row.source, "sender": row.sender, "message_id": row.message_id,
            "attempts": row.attempts, "error": row.error, "reason": row.reason,
            "note": row.note or None,
            "password_verdict": row.password_verdict, "authenticated": row.authenticated,
            "size": row.size}
