"""The host's hand work: items opened for what an adopted proposal left undone, and closed.

An item is opened for each part of an adopted proposal left undone, and closed by the
host's word or by a direct edit of a rule it names.

Items are opened only when a vote closes adopted: nothing here reads a ballot before then.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from speakerbot.engine import events as e
from speakerbot.engine.commands import CloseHandWork
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import Facts, GameError, Refusal

# "rule 205", "Rules 105 and 106", "rules 3, 4 or 5": the numbers a line names as rules.
_RULES = re.compile(r"\brules?\s+(\d{1,9}(?:(?:\s*,\s*|\s+(?:and|or|&)\s+)\d{1,9})*)",
                    re.IGNORECASE)


def rules_named(words: str) -> tuple[int, ...]:
    """Return the rules some words name ("rule 205", "rules 105 and 106"), in order, once."""
    found: dict[int, None] = {}
    for match in _RULES.finditer(words):
        for number in re.findall(r"\d+", match.group(1)):
            found[int(number)] = None
    return tuple(found)


def open_handwork(play: Play, proposal: int, carried: Iterable[e.Event]) -> None:
    """Open an item for each part of adopted proposal ``proposal`` that was not carried out.

    ``carried``: the events its clauses were carried out with. Each line the reader left to
    the host when it was proposed is an item, and so is each clause that failed, the whole
    of an informal proposal, and each mechanic its rule changes left to the host.
    """
    # A proposal the state does not hold (clauses carried out alone, as the replay of a
    # hand-run game's record does) has no lines left at submission, and no title.
    adopted = play.state.proposals.get(proposal)
    for words in adopted.unclear if adopted is not None else ():
        _open(play, proposal, words, rules_named(words))
    for event in carried:
        match event:
            case e.ClauseFailed(clause=clause):
                _open(play, proposal, clause.describe(), _clause_rules(clause))
            case e.InformalProposalAdopted() if adopted is not None:
                _open(play, proposal, adopted.title, rules_named(adopted.text))
            case e.InformalProposalAdopted():
                _open(play, proposal, f"proposal {proposal}", ())
            case e.MechanicNotRead(mechanic=mechanic, rule=rule, why=why):
                _open(play, proposal, f"mechanic {mechanic} (rule {rule}): {why}", (rule,))
            case e.MechanicsMayHaveChanged(mechanics=mechanics, rule=rule):
                _open(play, proposal, f"rule {rule} changed: check {', '.join(mechanics)}",
                      (rule,))


def _clause_rules(clause: Clause) -> tuple[int, ...]:
    return (clause.rule,) if clause.rule is not None else ()


def _open(play: Play, proposal: int, words: str, rules: tuple[int, ...]) -> None:
    play.emit(e.HandWorkOpened(play.now, play.state.next_handwork, proposal,
                               " ".join(words.split()), rules))


def close_handwork(play: Play, cmd: CloseHandWork) -> None:
    """Close an open item by the host's word (ADMIN DONE), or refuse an unknown one."""
    if cmd.item not in play.state.handwork:
        raise GameError(Refusal.NO_SUCH_HANDWORK, Facts(number=cmd.item))
    play.emit(e.HandWorkDone(play.now, cmd.item, "done", " ".join(cmd.reason.split())))


def close_by_edit(play: Play, clause: Clause) -> None:
    """Close every open item that names the rule the Speaker's direct edit changed."""
    if clause.kind is ClauseKind.SET or clause.rule is None:
        return
    for item in list(play.state.handwork.values()):
        if clause.rule in item.rules:
            play.emit(e.HandWorkDone(play.now, item.item, "edit", clause.describe()))
