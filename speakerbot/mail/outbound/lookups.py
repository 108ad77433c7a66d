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
from speakerbot.engine.rereading import in_force
from speakerbot.mail.outbound.announcements import receipt_lines
from speakerbot.mail.outbound.compose import Renderer, format_time
from speakerbot.mail.outbound.diffs import clause_views, text_diff
from speakerbot.mail.outbound.sentences import mutability, record_line, shortened

__all__ = [
    "Names",
    "closing_of",
    "describe_event",
    "describe_line",
    "event_of",
    "history",
    "names_in",
    "show_cfj",
    "show_mechanics",
    "show_proposal",
    "show_rule",
]

Names = Mapping[str, str]
"""Display names by address: who an event names is written by name where one is known."""

_LINE_KEYS = ("seq", "prev", "hash")


# --------------------------------------------------------------------------- one line an event


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

    said = record_line(event, name)
    return said if said is not None else _words(type(event).__name__)


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
        title = f" (“{shortened(found.title)}”)" if found is not None else ""
        return f" by proposal {change.proposal}{title}"
    return " by the Speaker" if change.by_speaker else ""


def retitled_from(old_title: str) -> str:
    """Say what a rule was titled before a retitling (its history's note)."""
    return f"from “{old_title}”" if old_title else "where it had no title"


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
        elif change.kind == "imported":
            # The note is the group's own line from before the import: said as written.
            steps.append(_Step(f"Before the import: {change.note}" if change.note else
                               f"Imported with the game, {when}"))
            continue
        elif change.kind == "amended":
            what = f"Amended{by}, {when}{moved}"
            diff = text_diff(change.previous_text or "", texts[index])
        elif change.kind == "transmuted":
            what = f"Made {mutability(mutable[index])}{by}, {when}{moved}"
        elif change.kind == "retitled":
            what = f"Retitled{by}, {when}, " + retitled_from(change.note)
            steps.append(_Step(what))
            continue
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
        "show_rule.txt", rule=rule, note=note, status=mutability(rule.mutable),
        repealed=rule.number not in state.rules or state.rules[rule.number] is not rule,
        steps=_steps(state, rule),
    )


# --------------------------------------------------------------------------- SHOW MECHANICS


def show_mechanics(renderer: Renderer, state: GameState, game_name: str | None = None) -> str:
    """Answer ``SHOW MECHANICS``: every mechanic in force, its value, and where it comes from.

    ``game_name``: the game's name as configured (else its ruleset's title).
    """
    # Written as SET reads them; a yes-or-no in lower case, as the rulesets write it.
    rows = [(found.name, found.value.lower() if found.value in ("True", "False") else
             found.value, found.origin) for found in in_force(state)]
    return renderer.render("show_mechanics.txt", game=state, rows=rows,
                           game_name=game_name or state.title)


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
