"""The JSON of the values commands carry, as ``speakerbot parse`` writes them: clauses, enums."""

from __future__ import annotations

from enum import StrEnum

from speakerbot.engine.model import Clause, ClauseKind


def clause_json(clause: Clause) -> dict[str, object]:
    """Return a proposal's (or ADMIN RULE's) clause as in ``speakerbot parse`` output.

    The engine keeps a SET clause's value as its ``text``; the JSON shows the clause line's
    ``"<parameter> = <value>"`` as ``text`` and the value again as ``value``. REPLACE adds
    ``old``, ``new`` and ``every``; INSERT adds ``anchor`` and ``position`` (``"before"`` or
    ``"after"``) to its ``text``; APPEND's added text is its ``text``. An edit of a part
    of the rule (issue 26) adds ``unit``, ``anchor`` and ``nth``; RETITLE's title is its
    ``text``. A clause under a condition on another proposal's fate adds ``condition``:
    ``{"proposal": N or null, "title": "..." (when named by title), "adopted": true|false,
    "words": "..."}`` (carried out only if that proposal was adopted, or was not).
    """
    is_set = clause.kind is ClauseKind.SET
    out: dict[str, object] = {
        "kind": clause.kind.value,
        "rule": clause.rule,
        "text": f"{clause.parameter} = {clause.text}" if is_set else clause.text,
        "immutable": clause.immutable,
    }
    if is_set:
        out["parameter"] = clause.parameter
        out["value"] = clause.text
    elif clause.kind is ClauseKind.REPLACE:
        out.update(old=clause.old, new=clause.new, every=clause.every)
    elif clause.kind is ClauseKind.INSERT:
        out.update(anchor=clause.anchor, position=clause.position)
    if clause.unit:  # a part of the rule: the one beginning with anchor, else the nth
        out.update(unit=clause.unit, anchor=clause.anchor, nth=clause.nth)
    if clause.condition is not None:
        condition = clause.condition
        out["condition"] = {"proposal": condition.proposal, "adopted": condition.adopted,
                            "words": condition.words,
                            **({"title": condition.title} if condition.title else {})}
    return out


def json_value(value: object) -> object:
    """Return a command's field as ``speakerbot parse`` writes it: clauses and enums too."""
    if isinstance(value, Clause):
        return clause_json(value)
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [json_value(item) for item in value]
    return value
