"""The answers to lookups by mail (SHOW, HISTORY), and one line for every public event.

The lookups are SHOW PROPOSAL, SHOW RULE, SHOW CFJ and HISTORY. Pure: the game's state or
the public record's lines in, text out. The record's lines are those of
``GameService.public_record`` (an event's JSON with ``seq``, ``prev`` and ``hash``); private
events (sealed ballots, reminders, refusals) are never in them, and nothing here reads a
ballot from the state: an open proposal is shown without its ballots or how many were cast,
a closed one with those its closing event revealed.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json
from speakerbot.engine.model import GameState, ProposalStatus, Rule, RuleChange
from speakerbot.mail.outbound.announcements import receipt_lines
from speakerbot.mail.outbound.compose import Renderer, format_time, points
from speakerbot.mail.outbound.describe import without_addresses
from speakerbot.mail.outbound.diffs import clause_views, text_diff
from speakerbot.mail.outbound.pace import HISTORY_SAYERS as PACE_HISTORY
from speakerbot.mail.outbound.wording import clause_failure_text

__all__ = [
    "Names",
    "closing_of",
    "describe_event",
    "describe_line",
    "event_of",
    "history",
    "names_in",
    "show_cfj",
    "show_proposal",
    "show_rule",
]

_SHOWN_TEXT = 120
"""Free text (titles, statements, reasons) is cut to this many characters in a timeline."""

Names = Mapping[str, str]
"""Display names by address: who an event names is written by name where one is known."""

_LINE_KEYS = ("seq", "prev", "hash")


# --------------------------------------------------------------------------- one line an event


def _short(text: str) -> str:
    """One line of free text: white space tidied, cut to :data:`_SHOWN_TEXT` characters."""
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN_TEXT else text[: _SHOWN_TEXT - 1] + "…"


def _by(proposal: int | None, by_speaker: bool) -> str:
    if proposal is not None:
        return f" by proposal {proposal}"
    return " by the Speaker" if by_speaker else ""


def _status(mutable: bool) -> str:
    return "mutable" if mutable else "immutable"


def _now_rule(number: int, new_number: int) -> str:
    return f", now rule {new_number}" if new_number != number else ""


def _list(named: Sequence[str]) -> str:
    if not named:
        return "nobody"
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


_Sayer = Callable[[Any, Callable[[str], str]], str]


def _proposal_submitted(ev: e.ProposalSubmitted, name: Callable[[str], str]) -> str:
    closes = (f"voting closes {format_time(ev.closes_at)}" if ev.closes_at
              else "voting is open until every player has voted")
    if ev.debate_until is not None:
        closes = f"in debate until {format_time(ev.debate_until)} at the latest"
    return f"Proposal {ev.number} “{_short(ev.title)}” submitted by {name(ev.proposer)}; {closes}"


def _vote_closed(ev: e.VoteClosed, name: Callable[[str], str]) -> str:
    verdict = "ADOPTED" if ev.adopted else "REJECTED"
    return (f"Proposal {ev.proposal} {verdict}: {ev.for_votes} FOR, {ev.against_votes} AGAINST"
            + ("" if ev.quorum_reached else " (quorum not reached)"))


def _player_joined(ev: e.PlayerJoined, name: Callable[[str], str]) -> str:
    added = " (added by the Speaker)" if ev.by_speaker else ""
    role = " as the Speaker" if ev.role.value == "speaker" else ""
    return f"{ev.name} joined the game{role}{added}"


def _judge_assigned(ev: e.JudgeAssigned, name: Callable[[str], str]) -> str:
    due = f", to judge by {format_time(ev.deadline)}" if ev.deadline else ""
    return f"CFJ {ev.cfj}: {name(ev.judge)} is the Judge ({_short(ev.how)}){due}"


def _game_started(ev: e.GameStarted, name: Callable[[str], str]) -> str:
    return (f"The game {_short(ev.title)} began under the {ev.preset} preset, with "
            f"{len(ev.rules)} rules; {ev.host_name or ev.host} is the Speaker")


# One sayer per public kind of event: a flat table, each entry a sentence with its fields.
_SAYERS: dict[type[e.Event], _Sayer] = {
    e.GameStarted: _game_started,
    e.PlayerJoined: _player_joined,
    e.PlayerLeft: lambda ev, name: (
        f"{name(ev.address)} " + ("forfeited" if ev.reason == "forfeit"
                                  else "was removed from the game")),
    e.TurnPassed: lambda ev, name: f"Turn {ev.number}: it is {name(ev.mover)}'s turn to propose",
    e.TurnConsentGiven: lambda ev, name: (
        f"{name(ev.player)} agreed that turn {ev.turn} may end while a CFJ is undecided"),
    e.SpeakerChanged: lambda ev, name: f"{name(ev.new)} is now the Speaker, after {name(ev.old)}",
    e.ProposalSubmitted: _proposal_submitted,
    e.RemindersSent: lambda ev, _: f"The reminders for proposal {ev.proposal} went out",
    e.VoteExtended: lambda ev, _: (
        f"The vote on proposal {ev.proposal} now closes {format_time(ev.closes_at)}"),
    e.VoteClosed: _vote_closed,
    e.ProposalVoided: lambda ev, _: (
        f"Proposal {ev.proposal} was voided" + (f": {_short(ev.reason)}" if ev.reason else "")),
    e.DieThrown: lambda ev, name: f"{name(ev.player)} threw a {ev.sides}-sided die: {ev.value}",
    e.ScoreChanged: lambda ev, name: (
        f"{name(ev.player)} {points(ev.delta, signed=True)}: {_short(ev.reason)}"),
    e.GameWon: lambda ev, name: (
        f"{_list([name(a) for a in ev.winners])} won: {_short(ev.reason)}"),
    e.NewGameBegun: lambda ev, name: (
        f"Game {ev.game_number} begins; {name(ev.new_speaker)} is the Speaker"),
    e.GameEnded: lambda ev, _: f"The game ended: {_short(ev.reason)}",
    e.RuleEnacted: lambda ev, _: (
        f"Rule {ev.number} enacted ({_status(ev.mutable)}){_by(ev.proposal, ev.by_speaker)}"),
    e.RuleAmended: lambda ev, _: (
        f"Rule {ev.number} amended{_by(ev.proposal, ev.by_speaker)}"
        f"{_now_rule(ev.number, ev.new_number)}"),
    e.RuleRepealed: lambda ev, _: f"Rule {ev.number} repealed{_by(ev.proposal, ev.by_speaker)}",
    e.RuleTransmuted: lambda ev, _: (
        f"Rule {ev.number} made {_status(ev.mutable)}{_by(ev.proposal, ev.by_speaker)}"
        f"{_now_rule(ev.number, ev.new_number)}"),
    e.MechanicSet: lambda ev, _: (
        f"{ev.name} set to {_short(ev.value)}{_by(ev.proposal, ev.by_speaker)}"),
    e.AdoptionSwitchedToMajority: lambda ev, _: (
        f"After {ev.circuits} complete circuits rule {ev.rule} requires only a simple majority"),
    e.ClauseFailed: lambda ev, _: (
        f"Proposal {ev.proposal} could not {ev.clause.describe()}: {clause_failure_text(ev)}"),
    e.InformalProposalAdopted: lambda ev, _: (
        f"Proposal {ev.proposal} has no structured clauses: the Speaker carries it out"),
    e.MechanicsMayHaveChanged: lambda ev, _: (
        f"Rule {ev.rule} changed; the Speaker should check {', '.join(ev.mechanics)}"),
    e.CfjCalled: lambda ev, name: (
        f"CFJ {ev.number} called by {name(ev.caller)}: {_short(ev.statement)}"),
    e.JudgeAssigned: _judge_assigned,
    e.JudgementDelivered: lambda ev, name: (
        f"CFJ {ev.cfj} judged {ev.judgement.value} by {name(ev.judge)}"),
    e.OverruleSupported: lambda ev, name: (
        f"{name(ev.player)} voted to overrule the judgement on CFJ {ev.cfj}"),
    e.JudgementOverruled: lambda ev, _: f"The judgement on CFJ {ev.cfj} was overruled",
    e.JudgeDeadlineMissed: lambda ev, name: (
        f"CFJ {ev.cfj}: {name(ev.judge)} did not judge in time"),
    e.SpeakerOverride: lambda ev, name: (
        f"The Speaker acted: {_short(without_addresses(ev.summary, name))}"),
    # Debate before the vote.
    e.ProposalRevised: lambda ev, _: f"Proposal {ev.proposal} was revised by its proposer",
    e.VoteStarted: lambda ev, _: (
        f"The vote on proposal {ev.proposal} began"
        + (" (called by its proposer)" if ev.how == "called" else " (the debate ended)")
        + (f"; voting closes {format_time(ev.closes_at)}" if ev.closes_at else "")),
    e.DebateContributed: lambda ev, name: (
        f"{name(ev.player)} argued about proposal {ev.proposal}"),
    **PACE_HISTORY,  # the pace of play
}


def _words(kind: str) -> str:
    """Say an event kind this module does not know by its name: ``VoteClosed``, "Vote closed"."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", kind).strip() or "An event"
    return spaced[:1].upper() + spaced[1:].lower()


def describe_event(event: e.Event, names: Names | None = None) -> str:
    """Say in one plain line (no full stop) what a public event did, in the game's words.

    ``names``: display names by address; an address with none is written as it is. A
    private event (a sealed ballot, a reminder, a refusal) raises ValueError: its line
    would tell what the public record keeps from everyone.
    """
    if not event.public:
        raise ValueError(f"{type(event).__name__} is private: it has no public line")
    known = names or {}

    def name(address: str) -> str:
        return known.get(address) or address

    sayer = _SAYERS.get(type(event))
    return sayer(event, name) if sayer else _words(type(event).__name__)


def event_of(line: Mapping[str, Any]) -> e.Event | None:
    """Rebuild the event of a public record's line; None for a kind this version cannot read."""
    data = {key: value for key, value in line.items() if key not in _LINE_KEYS}
    try:
        return event_from_json(data)
    except (ValueError, TypeError, KeyError):
        return None


def describe_line(line: Mapping[str, Any], names: Names | None = None) -> str:
    """Say one line of the public record: its number, its time and what happened."""
    event = event_of(line)
    if event is None or not event.public:
        said, at = _words(str(line.get("type", ""))), str(line.get("at", ""))
    else:
        said, at = describe_event(event, names), format_time(event.at)
    return f"#{line.get('seq', '?')}  {at}  {said}"


def names_in(state: GameState) -> dict[str, str]:
    """Return the display names a game knows: its players', its host's, its named Judge's."""
    known = {address: player.name for address, player in state.players.items()}
    for address, name in ((state.host, state.host_name),
                          (state.named_judge, state.named_judge_name)):
        if address and name:
            known.setdefault(address, name)
    return known


# --------------------------------------------------------------------------- HISTORY


def history(renderer: Renderer, lines: Sequence[Mapping[str, Any]], asked: int,
            names: Names | None = None, *, limit: int) -> str:
    """Answer ``HISTORY n``: the last ``asked`` lines of the public record, oldest first.

    At most ``limit`` are sent; a larger number is cut to it, and the answer says so. A
    number below 1 is taken as 1 (the language refuses it before it comes here).
    """
    count = max(1, min(asked, limit))
    shown = lines[-count:] if lines else []
    return renderer.render(
        "history.txt", asked=asked, limit=limit, total=len(lines),
        events=[_hanging(describe_line(line, names)) for line in shown],
    )


def _hanging(line: str, indent: str = "  ") -> str:
    """Wrap a timeline's line to 72 columns, the lines after its first indented under it."""
    return textwrap.fill(line, 72, subsequent_indent=indent + "    ", initial_indent=indent,
                         break_long_words=False, break_on_hyphens=False)


# --------------------------------------------------------------------------- SHOW PROPOSAL


def _current_game(lines: Sequence[Mapping[str, Any]]) -> Sequence[Mapping[str, Any]]:
    """Return the lines of the game played now: from its GameStarted on."""
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].get("type") == "GameStarted":
            return lines[index:]
    return lines


def closing_of(lines: Sequence[Mapping[str, Any]], number: int) -> e.VoteClosed | None:
    """Return the event that closed proposal ``number``'s vote in the game played now."""
    for line in reversed(_current_game(lines)):
        if line.get("type") == "VoteClosed" and line.get("proposal") == number:
            event = event_of(line)
            return event if isinstance(event, e.VoteClosed) else None
    return None


def _timeline(lines: Sequence[Mapping[str, Any]], keep: Callable[[Mapping[str, Any]], bool],
              names: Names) -> list[str]:
    return [_hanging(describe_line(line, names)) for line in _current_game(lines) if keep(line)]


def _missing(what: str, number: int, known: Iterable[int], hint: str) -> str:
    numbers = sorted(known)
    if not numbers:
        return f"There is no {what} {number}: there are none yet. {hint}\n"
    if len(numbers) == 1:
        return f"There is no {what} {number}: the only one is {what} {numbers[0]}. {hint}\n"
    return (f"There is no {what} {number}. The {what}s are numbered {numbers[0]} to "
            f"{numbers[-1]}. {hint}\n")


def show_proposal(renderer: Renderer, state: GameState, number: int,
                  lines: Sequence[Mapping[str, Any]]) -> str:
    """Answer ``SHOW PROPOSAL n``.

    An open proposal: its text, proposer, clauses with the diff each would make to the rules
    as they are now, and when its vote closes; never a ballot, nor how many were cast, nor
    who voted. A closed one: also its result, tally, quorum, threshold, consent and every
    ballot, as its closing event revealed them. A void one: why, and no ballot (they stay
    sealed). Then the proposal's own lines of the public record.
    """
    proposal = state.proposals.get(number)
    if proposal is None:
        return _missing("proposal", number, state.proposals,
                        "STATUS lists the open proposals.")
    names = names_in(state)
    is_open = proposal.status is ProposalStatus.OPEN
    closing = None if is_open else closing_of(lines, number)
    if proposal.status is ProposalStatus.VOID:
        closing = None  # a void proposal's ballots are sealed for ever

    def name(address: str) -> str:
        return names.get(address) or address

    return renderer.render(
        "show_proposal.txt", proposal=proposal, open=is_open, proposer=name(proposal.proposer),
        clauses=clause_views(proposal.clauses, state) if is_open else
        [{"what": clause.describe(), "diff": "", "setting": ""} for clause in proposal.clauses],
        status=proposal.status.value.upper(), result=closing,
        ballots=[(name(voter), choice.value) for voter, choice in closing.ballots]
        if closing else [],
        non_voters=[name(voter) for voter in closing.non_voters] if closing else [],
        receipts=receipt_lines(closing, state) if closing else [],
        game_id=state.game_id,
        consent=state.mechanics is not None and state.mechanics.speaker_consent,
        close_when_all_voted=state.mechanics is not None
        and state.mechanics.close_when_all_voted,
        timeline=_timeline(lines, lambda line: line.get("proposal") == number or (
            line.get("type") == "ProposalSubmitted" and line.get("number") == number), names),
    )


# --------------------------------------------------------------------------- SHOW RULE


@dataclass(frozen=True)
class _Step:
    """One entry of a rule's history as SHOW RULE tells it."""

    what: str
    diff: str = ""


def find_rule(state: GameState, number: int) -> tuple[Rule | None, str]:
    """Find the rule ``number`` names: in force, renumbered since, or repealed."""
    if number in state.rules:
        return state.rules[number], ""
    for rule in (*state.rules.values(), *reversed(state.repealed)):
        if rule.number != number and any(change.previous_number == number
                                         for change in rule.history):
            return rule, f"Rule {number} is now rule {rule.number}."
    for rule in reversed(state.repealed):
        if rule.number == number:
            return rule, ""
    return None, ""


def _proposal_words(state: GameState, change: RuleChange) -> str:
    if change.proposal is not None:
        found = state.proposals.get(change.proposal)
        title = f" (“{_short(found.title)}”)" if found is not None else ""
        return f" by proposal {change.proposal}{title}"
    return " by the Speaker" if change.by_speaker else ""


def _steps(state: GameState, rule: Rule) -> list[_Step]:
    """Tell a rule's history, oldest first: each change, when, by what, and its diff."""
    changes = rule.history
    # What each change left: the next amendment's text before it, or the text now; the
    # next renumbering's old number, or the number now; mutability, counted back from now.
    texts, numbers = [rule.text] * len(changes), [rule.number] * len(changes)
    mutable: list[bool] = []
    text, number, state_now = rule.text, rule.number, rule.mutable
    for index in range(len(changes) - 1, -1, -1):
        texts[index], numbers[index] = text, number
        mutable.insert(0, state_now)
        change = changes[index]
        if change.kind == "amended" and change.previous_text is not None:
            text = change.previous_text
        if change.previous_number is not None:
            number = change.previous_number
        if change.kind == "transmuted":
            state_now = not state_now
    steps = []
    for index, change in enumerate(changes):
        when, by = format_time(change.at), _proposal_words(state, change)
        moved = (f", and renumbered from rule {change.previous_number} to rule "
                 f"{numbers[index]}" if change.previous_number not in (None, numbers[index])
                 else "")
        diff = ""
        if change.kind == "initial":
            what = f"In the initial ruleset ({state.preset}), {when}"
        elif change.kind == "amended":
            what = f"Amended{by}, {when}{moved}"
            diff = text_diff(change.previous_text or "", texts[index])
        elif change.kind == "transmuted":
            what = f"Made {_status(mutable[index])}{by}, {when}{moved}"
        elif change.kind == "renumbered":
            what = f"Renumbered from rule {change.previous_number}{by}, {when}"
        else:
            what = f"{change.kind.capitalize()}{by}, {when}"
        if change.note:
            what += f": {change.note}"
        steps.append(_Step(what, diff))
    return steps


def show_rule(renderer: Renderer, state: GameState, number: int) -> str:
    """Answer ``SHOW RULE n``: the rule's text and mutability, and its whole history.

    The history says when the rule was enacted, each amendment (by which proposal, when,
    with its diff), transmutation, renumbering, and its repeal. A number a rule had before
    it was renumbered finds it under its new number; a repealed rule is shown as it last
    read.
    """
    rule, note = find_rule(state, number)
    if rule is None:
        return _missing("rule", number, state.rules, "RULES sends the whole ruleset.")
    return renderer.render(
        "show_rule.txt", rule=rule, note=note, status=_status(rule.mutable),
        repealed=rule.number not in state.rules or state.rules[rule.number] is not rule,
        steps=_steps(state, rule),
    )


# --------------------------------------------------------------------------- SHOW CFJ


def _about_cfj(number: int) -> Callable[[Mapping[str, Any]], bool]:
    def keep(line: Mapping[str, Any]) -> bool:
        if line.get("type") == "CfjCalled":
            return line.get("number") == number
        return line.get("cfj") == number

    return keep


def show_cfj(renderer: Renderer, state: GameState, number: int,
             lines: Sequence[Mapping[str, Any]]) -> str:
    """Answer ``SHOW CFJ n``: its caller, statement and arguments, and its Judges in turn.

    Then the judgement and its reasons, and the CFJ's lines of the public record.
    """
    cfj = state.cfjs.get(number)
    if cfj is None:
        return _missing("CFJ", number, state.cfjs, "STATUS lists the open CFJs.")
    names = names_in(state)

    def name(address: str) -> str:
        return names.get(address) or address

    return renderer.render(
        "show_cfj.txt", cfj=cfj, caller=name(cfj.caller), judges=[name(j) for j in cfj.judges],
        judge=name(cfj.judge) if cfj.judge else "",
        overrulers=[name(player) for player in cfj.overrulers],
        timeline=_timeline(lines, _about_cfj(number), names),
    )
