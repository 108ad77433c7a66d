"""A ruleset file read and checked whole: rules, mechanics, their sources, the persons named.

The presets are written in this format (``data/rulesets``), and so is a group's own
ruleset: ``speakerbot rulesets export NAME`` prints a preset to start from. Every fault
is collected, each with its line and key and what is allowed, so that one run of
``speakerbot rulesets check`` shows them all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from speakerbot.engine.commands import Preset
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.model import RuleSpec
from speakerbot.engine.readings import phrase_fault, read_mechanic
from speakerbot.presets.located import FileFaults, Key, Located, shown

RULE_KEYS = ("number", "title", "mutable", "text", "history")
"""What a ``[[rules]]`` entry may hold (``history`` only means something in an import)."""

PERSON_ROLES = ("speaker", "judge")
"""The persons a ruleset may name by name, replaced by the game's own when it starts."""

MAX_RULE_NUMBER = 99_999
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")  # fullmatch: a "$" lets a final "\n" in
_TOP = ("preset", "persons", "mechanics", "rules")
_HEAD = ("name", "title", "seed", "notes")
_SUBTABLES = ("sources", "phrases")


def read_ruleset(located: Located, origin: str) -> Preset:
    """Return the ruleset a parsed file holds, or raise FileFaults with every fault in it."""
    if located.faults:  # too large, or not TOML: nothing more to read
        raise FileFaults(origin, located.faults)
    located.unknown_keys((), located.data, _TOP)
    name, title, notes = _head(located)
    rules = read_rules(located)
    written = read_mechanics(located, ("mechanics",), complete=True)
    sources = read_sources(located, ("mechanics", "sources"), {rule.number for rule in rules})
    phrases = read_phrases(located, ("mechanics", "phrases"))
    check_phrases(located, ("mechanics", "phrases"), phrases, sources, rules, written)
    persons = _persons(located, rules)
    check_numbering(located, ("mechanics", "first_proposal_number"), written, rules)
    if located.faults:
        raise FileFaults(origin, located.faults)
    return Preset(name, title, rules, written, sources, persons, notes, phrases)


def _head(located: Located) -> tuple[str, str, str]:
    head = located.table(("preset",), required=True)
    located.unknown_keys(("preset",), head, _HEAD)
    name = head.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        located.fault(("preset", "name"), "expected a short name of lower-case letters, digits "
                      f"and dashes, such as \"our-nomic\"; not {shown(name)}")
    title = head.get("title")
    if not isinstance(title, str) or not title.strip():
        located.fault(("preset", "title"), f"expected the ruleset's title, not {shown(title)}")
    for key in ("seed", "notes"):
        if key in head and not isinstance(head[key], str):
            located.fault(("preset", key), f"expected text, not {shown(head[key])}")
    return str(name), str(title).strip(), str(head.get("notes", ""))


def read_rules(located: Located) -> tuple[RuleSpec, ...]:
    """Read ``[[rules]]``: each rule's number, title, mutability, text and history lines.

    Faults: a rule without a number or text, a number repeated (naming the line of the
    first), an unknown key. The rules come back in the order of their numbers.
    """
    rules: dict[int, RuleSpec] = {}
    first_line: dict[int, int | None] = {}
    for at, entry in located.entries("rules", RULE_KEYS, needed=", one a rule, each with "
                                     "number, mutable and text"):
        rule = _rule(located, at, entry)
        if rule is None:
            continue
        if rule.number in rules:
            seen = first_line[rule.number]
            located.fault((*at, "number"), f"rule {rule.number} is given twice (first at line "
                          f"{seen}); each rule number once")
            continue
        rules[rule.number], first_line[rule.number] = rule, located.line((*at, "number"))
    return tuple(rules[number] for number in sorted(rules))


def _rule(located: Located, at: Key, entry: Mapping[str, Any]) -> RuleSpec | None:
    number = entry.get("number")
    if "number" not in entry:
        located.fault(at, "this rule has no number")
    elif isinstance(number, bool) or not isinstance(number, int) or not (
            0 <= number <= MAX_RULE_NUMBER):
        located.fault((*at, "number"), f"expected a whole number from 0 to {MAX_RULE_NUMBER}, "
                      f"not {shown(number)}")
        number = None
    text = entry.get("text")
    if not isinstance(text, str) or not text.strip():
        located.fault((*at, "text") if "text" in entry else at,
                      f"expected the rule's text, not {shown(text)}")
        text = None
    mutable = entry.get("mutable")
    if not isinstance(mutable, bool):
        located.fault((*at, "mutable") if "mutable" in entry else at,
                      f"expected mutable = true or false, not {shown(mutable)}")
    title = entry.get("title", "")
    if not isinstance(title, str) or "\n" in title:
        located.fault((*at, "title"), f"expected a one-line title, not {shown(title)}")
        title = ""
    history = entry.get("history", [])
    if not isinstance(history, list) or not all(isinstance(line, str) for line in history):
        located.fault((*at, "history"), "expected a list of lines of text, such as "
                      "[\"Enacted by proposal 312\"]")
        history = []
    if not isinstance(number, int) or text is None or not isinstance(mutable, bool):
        return None
    return RuleSpec(number, text.strip("\n"), mutable, title.strip(),
                    tuple(" ".join(line.split()) for line in history if line.strip()))


ADDED_LATER = {"numbering": "proposal"}
"""Mechanics added after groups began writing ruleset files, with the value a complete
table that leaves one out keeps: what every game did before the mechanic existed, so that a
group's file written earlier still starts its game, and plays it as before."""


def read_mechanics(located: Located, key: Key, *, complete: bool) -> dict[str, str]:
    """Read a table of mechanics, each written as SET reads it; ``complete``: all of them.

    Faults: an unknown mechanic (naming the nearest), a value out of its range or of the
    wrong kind (saying what is allowed), a mechanic missing where every one must be given
    (but those of :data:`ADDED_LATER`, which keep their earlier value).
    """
    table = located.table(key, required=complete)
    located.unknown_keys(key, {k: v for k, v in table.items() if k not in _SUBTABLES},
                         PARAMETERS)
    written: dict[str, str] = {}
    for name, raw in table.items():
        if name in _SUBTABLES or name not in PARAMETERS:
            continue
        if isinstance(raw, dict | list | float):
            located.fault((*key, name), f"expected a value written as SET reads it, not "
                          f"{shown(raw)}")
            continue
        text = ("true" if raw else "false") if isinstance(raw, bool) else str(raw)
        try:
            PARAMETERS[name].parse(text)
        except ValueError as error:
            located.fault((*key, name), str(error).removeprefix(f"{name}: "))
            continue
        written[name] = text
    if complete:
        written.update({name: value for name, value in ADDED_LATER.items() if name not in table})
    missing = [name for name in PARAMETERS if name not in table and name not in ADDED_LATER]
    if complete and missing:
        located.fault(key, f"every mechanic must be given; missing: {', '.join(missing)} "
                      "(speakerbot rulesets export NAME prints them all)")
    return written


def read_sources(located: Located, key: Key, numbers: set[int]) -> dict[str, int]:
    """Read ``[mechanics.sources]``: the rule each mechanic comes from, which must exist."""
    table = located.table(key, required=False)
    sources: dict[str, int] = {}
    for name, rule in table.items():
        if name not in PARAMETERS:
            located.unknown_keys(key, {name: rule}, PARAMETERS)
        elif isinstance(rule, bool) or not isinstance(rule, int):
            located.fault((*key, name), f"expected a rule's number, not {shown(rule)}")
        elif rule not in numbers:
            located.fault((*key, name), f"{name} comes from rule {rule}, but there is no rule "
                          f"{rule}; name a rule of this ruleset or leave {name} out here")
        else:
            sources[name] = rule
    return sources


def read_phrases(located: Located, key: Key) -> dict[str, str]:
    """Read ``[mechanics.phrases]``: where in its rule each mechanic's value is written."""
    phrases: dict[str, str] = {}
    for name, phrase in located.table(key, required=False).items():
        fault = (phrase_fault(name, phrase) if isinstance(phrase, str) else
                 f"expected the words around the value with {{}} for it, not {shown(phrase)}")
        if name not in PARAMETERS:
            located.unknown_keys(key, {name: phrase}, PARAMETERS)
        elif fault is not None:
            located.fault((*key, name), fault)
        else:
            phrases[name] = phrase
    return phrases


def check_phrases(located: Located, key: Key, phrases: Mapping[str, str],
                  sources: Mapping[str, int], rules: tuple[RuleSpec, ...],
                  written: Mapping[str, str]) -> None:
    """Refuse a phrase whose mechanic has no rule, or whose rule reads another value.

    The phrase is what the game reads the mechanic from whenever its rule changes: it must
    read the value the file gives from the rule as the file has it.
    """
    texts = {rule.number: rule.text for rule in rules}
    named = located.table((*key[:-1], "sources"), required=False)
    for name, phrase in phrases.items():
        if name not in sources and name in named:
            continue  # its source is wrong: a fault of its own already
        if name not in sources:
            located.fault((*key, name), f"{name} has no rule in [mechanics.sources] to be read "
                          "from; name its rule there")
            continue
        if name not in written or sources[name] not in texts:
            continue  # a fault of its own already
        reading = read_mechanic(name, phrase, texts[sources[name]])
        given = PARAMETERS[name].as_set(written[name])
        if reading.value != given:
            said = (f"reads {reading.value}" if reading.value is not None else
                    f"cannot be read ({reading.why})")
            located.fault((*key, name), f"rule {sources[name]} {said} where [mechanics] says "
                          f"{name} = {given}; make the phrase fit the rule's words")


def check_numbering(located: Located, key: Key, written: Mapping[str, str],
                    rules: tuple[RuleSpec, ...], next_number: int | None = None) -> None:
    """Refuse a first proposal number that is not above every rule's number.

    Rules take the numbers of the proposals that make them: a proposal numbered at or
    below an existing rule would give two rules one number.
    """
    if not rules:
        return
    if next_number is None:
        if "first_proposal_number" not in written:
            return
        next_number = int(written["first_proposal_number"])
    highest = max(rule.number for rule in rules)
    if next_number <= highest:
        located.fault(key, f"the first proposal number must be above every rule's number "
                      f"(the highest is {highest}), not {next_number}")


def _persons(located: Located, rules: tuple[RuleSpec, ...]) -> dict[str, tuple[int, str]]:
    table = located.table(("persons",), required=False)
    located.unknown_keys(("persons",), table, PERSON_ROLES)
    texts = {rule.number: rule.text for rule in rules}
    persons: dict[str, tuple[int, str]] = {}
    for role in PERSON_ROLES:
        entry = table.get(role)
        if entry is None:
            continue
        at: Key = ("persons", role)
        if not isinstance(entry, dict):
            located.fault(at, "expected a table with rule and name")
            continue
        located.unknown_keys(at, entry, ("rule", "name"))
        rule, name = entry.get("rule"), entry.get("name")
        if not isinstance(name, str) or not isinstance(rule, int) or name not in texts.get(
                rule, ""):
            located.fault(at, f"expected the number of a rule and the name it gives the "
                          f"{role}, as written in it (rule {shown(rule)} does not name "
                          f"{shown(name)})")
            continue
        persons[role] = (rule, name)
    return persons
