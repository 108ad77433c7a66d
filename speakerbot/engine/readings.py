"""Mechanics read from a rule's own words: where a phrase says a value stands, what it is.

A phrase is words with one placeholder ``{}`` for the value, such as
``"achieve|reach|have {} points"``; ``a|b`` is a word with alternatives. The rule's text is
split into lower-case word tokens, every value of the mechanic's kind is found in it, and a
value is read where the phrase's words before ``{}`` stand, in order, among the four tokens
before it, and its words after ``{}`` among the four tokens after. Matching is lenient so that
a player's rewording still reads: case and a final "s" do not matter, and other words may
stand between. Anything doubtful (no value, two values, a value out of range) is a reading
that cannot tell, with the reason in words a host reads (naming ten values at most: the
reading stops there). Nothing here raises on any text, and a rule is read in time that
grows with its length alone, whatever it says (rule_words.py and rule_matches.py: issue 37).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.rule_matches import Match, Matcher, Nearest, Value, anchor_word
from speakerbot.engine.rule_values import CHOICES, names_a_unit, reader_of
from speakerbot.engine.rule_words import Memo, Words

READABLE: dict[str, str] = {
    **dict.fromkeys(
        ["win_points", "max_mutable_rules", "die_sides", "proposer_rejected_points",
         "proposer_adopted_points", "dissent_points", "for_rejected_points", "judge_penalty",
         "heavens_offset", "majority_after_circuits"], "number"),
    **dict.fromkeys(
        ["voting_period", "judge_period", "turn_period", "debate_period", "reminder_before"],
        "duration"),
    **dict.fromkeys(["quorum_percent", "new_game_score_percent"], "percent"),
    "refused_consent_threshold": "fraction",
    **dict.fromkeys(["adoption", "count_basis", "transmute_basis"], "choice"),
}
"""Every mechanic that can be read from a rule, and the kind of value it is read as."""

PLACEHOLDER = "{}"
WINDOW = 4  # how many tokens before and after a value its phrase's words may stand in
MOST_LISTED = 10  # values named when a rule says more than one; reading stops past them


@dataclass(frozen=True)
class Reading:
    """What a rule's text says a mechanic is."""

    value: str | None  # as SET writes it; None: the text cannot tell
    words: str  # the words the value was read from, as they stand in the text; "" when none
    why: str = ""  # when value is None: why, in words a host reads


# Phrases ----------------------------------------------------------------------------------

_ANCHOR = re.compile(r"[^\W\d_]+")


def _anchors(words: list[str]) -> list[frozenset[str]]:
    return [frozenset(anchor_word(option) for option in word.split("|")) for word in words]


def phrase_fault(name: str, phrase: str) -> str | None:
    """Say why a phrase cannot be used for the mechanic ``name``; None: it can.

    A phrase is words around one placeholder ``{}``, each word one or more alternatives
    joined by ``|`` ("achieve|reach {} points"), at most four words on either side.
    """
    if name not in READABLE:
        return f"{name} is not a mechanic that can be read from a rule's words"
    count = phrase.count(PLACEHOLDER)
    if count != 1:
        return (f"the phrase {phrase!r} has {count or 'no'} placeholders: "
                f"it needs exactly one {{}} where the value stands, as in 'reach {{}} points'")
    words = phrase.split()
    if PLACEHOLDER not in words:
        return f"in the phrase {phrase!r} the {{}} must stand alone, apart from the words"
    place = words.index(PLACEHOLDER)
    for side, anchors in (("before", words[:place]), ("after", words[place + 1:])):
        if len(anchors) > WINDOW:
            return (f"the phrase {phrase!r} has {len(anchors)} words {side} the {{}}: "
                    f"only the {WINDOW} nearest the value are read")
        for word in anchors:
            if not all(_ANCHOR.fullmatch(option) for option in word.split("|")):
                return (f"in the phrase {phrase!r}, {word!r} is not a word or words joined "
                        f"by |: each must be letters alone, none empty")
    after = words[place + 1:place + 2]
    if after and _part_of_value(READABLE[name], after[0]):
        return (f"in the phrase {phrase!r}, {after[0]!r} is read as part of the value "
                f"(as in 20 percent, 3 days): leave it out")
    return None


def _part_of_value(kind: str, word: str) -> bool:
    """Tell whether a word after ``{}`` would be read into the value itself ('percent')."""
    options = [option.lower().removesuffix("s") for option in word.split("|")]
    if kind == "percent":
        return any(option in ("percent", "per", "pc") for option in options)
    return kind == "duration" and any(names_a_unit(option) for option in options)


def _value(name: str, found: Value) -> tuple[str | None, str]:
    """Write the value as SET does, or say why it cannot be (None, why)."""
    written, fault = found
    if fault:
        return None, fault
    try:
        return PARAMETERS[name].format(PARAMETERS[name].parse_value(written)), ""
    except (ValueError, OverflowError) as error:
        reason = re.sub(r", not .*$", "", str(error))
        return None, f"{written} is out of range: {reason}"


def _count(values: list[str]) -> str:
    if len(values) > MOST_LISTED:
        listed = ", ".join(values[:MOST_LISTED - 1]) + " and " + values[MOST_LISTED - 1]
        return f"more than {MOST_LISTED} values, among them {listed}"
    names = {2: "two", 3: "three", 4: "four"}
    listed = ", ".join(values[:-1]) + " and " + values[-1]
    return f"{names.get(len(values), len(values))} values: {listed}"


def read_mechanic(name: str, phrase: str, text: str) -> Reading:
    """Read mechanic ``name`` from a rule's ``text`` where ``phrase`` says it stands.

    The time it takes grows with the text's length alone, whatever the text says: a rule of
    64 KB is read in hundredths of a second (bench/mechanics.py).
    """
    fault = phrase_fault(name, phrase)
    if fault is not None:
        return Reading(None, "", fault)
    words = phrase.split()
    tokens = Words(text)
    first, values, said = _matches(name, words, tokens)
    if first is None:
        return Reading(None, "", _shown(phrase, name))
    if len(values) > 1:
        return Reading(None, "", _count(list(values)))
    start, end, value = first
    written, why = said[value]
    if written is not None:
        stated = list(dict.fromkeys([written, *_beside(name, words, text,
                                                       tokens.span(start, end))]))
        if len(stated) > 1:
            # "150 points, or 200 points in a game of more than five players": which one
            # holds is for the host to say; the first is never taken alone.
            return Reading(None, "", "its sentence states " + _count(stated))
    return Reading(written, tokens.quoted(start, end) if written is not None else "", why)


def _matches(name: str, words: list[str], tokens: Words
             ) -> tuple[Match | None, dict[str, None], dict[Value, tuple[str | None, str]]]:
    """Return the first match of the phrase ``words``, every value it matched, and each said."""
    place = words.index(PLACEHOLDER)
    reader, first_words = reader_of(name, READABLE[name])
    nearest = Nearest(tokens, WINDOW, _anchors(words[:place]), _anchors(words[place + 1:]))
    first: Match | None = None
    values: dict[str, None] = {}
    said: dict[Value, tuple[str | None, str]] = {}  # once for each value, however often found
    starts = tokens.starts(first_words, numbers=READABLE[name] != "choice")
    for found, matched in Matcher(tokens, Memo(tokens, reader), starts, nearest).stretches():
        first = first or found
        for value in matched:
            if value not in said:
                said[value] = _value(name, value)
            values[said[value][0] or value[0]] = None
        if len(values) > MOST_LISTED:
            break  # it cannot tell; the rest would only lengthen the list
    return first, values, said


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n\s*\n")


def _beside(name: str, words: list[str], text: str, span: tuple[int, int]) -> list[str]:
    """Return the values the sentence around ``span`` gives with half of the phrase's words.

    A value with the phrase's words after it alone ("or 200 points"), or before it alone,
    in the very sentence the phrase was read in, is a second value that sentence states.
    A phrase with words on one side only has matched every such value already.
    """
    place = words.index(PLACEHOLDER)
    if place == 0 or place == len(words) - 1:
        return []
    starts = [match.end() for match in _SENTENCE_END.finditer(text, 0, span[0])]
    following = _SENTENCE_END.search(text, span[1])
    sentence = Words(text[starts[-1] if starts else 0:following.start() if following else None])
    found: dict[str, None] = {}
    for half in (words[place:], words[:place + 1]):
        found.update(_matches(name, half, sentence)[1])
    return list(found)


def _shown(phrase: str, name: str) -> str:
    if phrase.split() != [PLACEHOLDER]:
        return "the rule no longer says " + repr(phrase.replace("|", " or ")).replace("{}", "…")
    if READABLE[name] == "choice":
        return "the rule no longer names " + " or ".join(sorted(set(CHOICES[name].values())))
    return f"the rule no longer names a {READABLE[name]}"
