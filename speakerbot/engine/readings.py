"""Mechanics read from a rule's own words: where a phrase says a value stands, what it is.

A phrase is words with one placeholder ``{}`` for the value, such as
``"achieve|reach|have {} points"``; ``a|b`` is a word with alternatives. The rule's text is
split into lower-case word tokens, every value of the mechanic's kind is found in it, and a
value is read where the phrase's words before ``{}`` stand, in order, among the four tokens
before it, and its words after ``{}`` among the four tokens after. Matching is lenient so that
a player's rewording still reads: case and a final "s" do not matter, and other words may
stand between. Anything doubtful (no value, two values, a value out of range) is a reading
that cannot tell, with the reason in words a host reads; nothing here raises on any text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from speakerbot.engine.mechanics import PARAMETERS

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


@dataclass(frozen=True)
class Reading:
    """What a rule's text says a mechanic is."""

    value: str | None  # as SET writes it; None: the text cannot tell
    words: str  # the words the value was read from, as they stand in the text; "" when none
    why: str = ""  # when value is None: why, in words a host reads


@dataclass(frozen=True)
class _Token:
    text: str  # lower case
    start: int
    end: int
    joined: bool  # touches the token before it, as the "d" of "3d" does


@dataclass(frozen=True)
class _Found:
    """A value of the mechanic's kind, found at tokens[first:stop]."""

    first: int
    stop: int
    written: str  # the value as PARAMETERS reads it, or the text when it cannot be read
    fault: str = ""  # why the value cannot be read at all (a month, 33.3%)


_TOKEN = re.compile(
    r"(?P<number>(?:(?<![^\s(\[])[-+\u2212])?\d+(?:[.,/]\d+)*)|(?P<word>[^\W\d_]+)|%"
)
_FIGURES = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _tokens(text: str) -> list[_Token]:
    found: list[_Token] = []
    for match in _TOKEN.finditer(text):
        joined = bool(found) and found[-1].end == match.start()
        found.append(_Token(match.group().lower(), match.start(), match.end(), joined))
    return found


def _word(tokens: list[_Token], index: int) -> str:
    return tokens[index].text if 0 <= index < len(tokens) else ""


# Numbers ----------------------------------------------------------------------------------

_UNITS = {name: value for value, name in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen"])}
_TENS = {name: 10 * value for value, name in enumerate(
    ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], start=2)}
_SCALES = {"thousand": 1000, "million": 10**6, "billion": 10**9}


def _figures(token: str) -> Fraction | None:
    """Read a number in figures ("150", "1,000", "+5", "-3", "33.3"); None: not one."""
    sign = -1 if token[:1] in "-\u2212" else 1
    body = token.lstrip("+-\u2212")
    if len(body) > 60 or not _FIGURES.fullmatch(body):
        return None
    return sign * Fraction(body.replace(",", ""))


def _below_hundred(tokens: list[_Token], index: int) -> tuple[int, int] | None:
    word = _word(tokens, index)
    if word in _TENS:
        unit = _UNITS.get(_word(tokens, index + 1), 0)
        return (_TENS[word] + unit, index + 2) if 0 < unit < 10 else (_TENS[word], index + 1)
    return (_UNITS[word], index + 1) if word in _UNITS else None


def _below_thousand(tokens: list[_Token], index: int) -> tuple[int, int] | None:
    """Read 'fifty', 'a hundred', 'one hundred and fifty' or 'fifteen hundred'.

    The 'a' of 'a thousand' reads as 1, which the caller multiplies.
    """
    if _word(tokens, index) in ("a", "an") and (
            _word(tokens, index + 1) == "hundred" or _word(tokens, index + 1) in _SCALES):
        head: tuple[int, int] | None = (1, index + 1)
    else:
        head = _below_hundred(tokens, index)
    if head is None or _word(tokens, head[1]) != "hundred" or head[0] == 0:
        return head
    value, index = head[0] * 100, head[1] + 1
    skip = 1 if _word(tokens, index) == "and" else 0
    tail = _below_hundred(tokens, index + skip)
    if tail is None or tail[0] == 0:
        return value, index
    return value + tail[0], tail[1]


def _number_in_words(tokens: list[_Token], index: int) -> tuple[int, int] | None:
    """Read a whole number written in words, scales largest first ('three hundred thousand')."""
    total, found, last_scale = 0, None, 10**12
    while (group := _below_thousand(tokens, index)) is not None:
        value, after = group
        scale = _SCALES.get(_word(tokens, after), 0)
        if not scale or scale >= last_scale or value == 0:
            return total + value, after
        total, last_scale, index = total + value * scale, scale, after + 1
        found = (total, index)
        if _word(tokens, index) == "and" and _below_thousand(tokens, index + 1):
            index += 1
    return found


def _number_at(tokens: list[_Token], index: int) -> tuple[Fraction, int] | None:
    """Read a number at tokens[index], in figures or words, and an 'and a half' after it.

    A sign is read only when written onto the figures ("-5"): "N minus 290" subtracts 290.
    """
    word = _word(tokens, index)
    if word[:1].isdigit() or word[1:2].isdigit():
        value = _figures(word)
        number = None if value is None else (value, index + 1)
    else:
        in_words = _number_in_words(tokens, index)
        number = None if in_words is None else (Fraction(in_words[0]), in_words[1])
    if number is None:
        return None
    half = _and_a_half(tokens, number[1])
    return (number[0] + half, number[1] + 3) if half else number


def _and_a_half(tokens: list[_Token], index: int) -> Fraction:
    """Read 'and a half' at ``index`` as 1/2 ('one and a half days', 'a day and a half')."""
    words = tuple(_word(tokens, index + step) for step in range(3))
    halves = (("and", "a", "half"), ("and", "one", "half"))
    return Fraction(1, 2) if words in halves else Fraction(0)


def _percent_sign(tokens: list[_Token], index: int) -> int:
    """How many tokens at ``index`` say 'percent' ('%', 'percent', 'per cent'); 0: none."""
    word = _word(tokens, index)
    if word in ("%", "percent", "pc"):
        return 1
    return 2 if word == "per" and _word(tokens, index + 1) == "cent" else 0


def _whole(value: Fraction, stop: int, first: int, tokens: list[_Token]) -> _Found:
    if value.denominator != 1:
        text = " ".join(token.text for token in tokens[first:stop])
        return _Found(first, stop, text, f"{text} is not a whole number")
    return _Found(first, stop, str(value.numerator))


def _read_number(tokens: list[_Token], index: int) -> _Found | None:
    """Read a count: a number that is no percentage, duration or '3x' ('one week' is no count)."""
    number = _number_at(tokens, index)
    if number is None:
        return None
    value, stop = number
    after = tokens[stop] if stop < len(tokens) else None
    if _percent_sign(tokens, stop) or _unit_at(tokens, stop) is not None or (
            after is not None and after.joined and after.text.isalpha()):
        return None
    return _whole(value, stop, index, tokens)


# Fractions and percentages ----------------------------------------------------------------

_PARTS = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5,
          "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}


def _part(word: str) -> int:
    return _PARTS.get(word.removesuffix("s") if len(word) > 4 else word, 0)


def _share_at(tokens: list[_Token], index: int) -> tuple[Fraction, int] | None:
    """Read a share in words or figures: 'half', 'a fifth', 'two thirds', 'two-thirds', '2/3'."""
    word = _word(tokens, index)
    if "/" in word:
        top, _, bottom = word.lstrip("+").partition("/")
        if len(word) < 20 and top.isdigit() and bottom.isdigit() and int(bottom):
            return Fraction(int(top), int(bottom)), index + 1
        return None
    if word == "half":
        return Fraction(1, 2), index + 1
    if word in ("a", "an"):
        count: tuple[Fraction, int] | None = (Fraction(1), index + 1)
    else:
        count = _number_at(tokens, index)
    if count is None or count[0] <= 0 or count[0].denominator != 1:
        return None
    part = _part(_word(tokens, count[1]))
    return (count[0] / part, count[1] + 1) if part else None


def _read_percent(tokens: list[_Token], index: int) -> _Found | None:
    """Read a whole number of percent: '20%', 'twenty per cent', 'a fifth' (20)."""
    number = _number_at(tokens, index)
    if number is not None and (sign := _percent_sign(tokens, number[1])):
        return _whole(number[0], number[1] + sign, index, tokens)
    share = _share_at(tokens, index)
    if share is None:
        return None
    return _whole(share[0] * 100, share[1], index, tokens)


def _read_fraction(tokens: list[_Token], index: int) -> _Found | None:
    """Read a fraction: '2/3', 'two thirds', 'three quarters', '67%' (67/100)."""
    number = _number_at(tokens, index)
    if number is not None and (sign := _percent_sign(tokens, number[1])):
        value, stop = number[0] / 100, number[1] + sign
    elif (share := _share_at(tokens, index)) is not None:
        value, stop = share
    else:
        return None
    return _Found(index, stop, f"{value.numerator}/{value.denominator}")


# Durations --------------------------------------------------------------------------------

_SECONDS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600,
            "day": 86400, "week": 604800, "fortnight": 1209600}
_SHORT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}  # only written onto a number
_VARYING = ("month", "year")
_LONGEST = 999_999 * 86400  # seconds: the most days a duration may be written with


def _unit_at(tokens: list[_Token], index: int) -> int | str | None:
    """Seconds in the unit at ``index``; a varying unit's name (month); None: no unit."""
    if index >= len(tokens):
        return None
    token = tokens[index]
    if token.joined and token.text in _SHORT:
        return _SHORT[token.text]
    word = token.text.removesuffix("s")
    return word if word in _VARYING else _SECONDS.get(word)


def _span(tokens: list[_Token], index: int) -> tuple[Fraction, int, int | str] | None:
    """Read one count and unit: 'three days', 'an hour', '72h', 'a day and a half'.

    Return the count, where the span stops and the unit.
    """
    count = _number_at(tokens, index)
    if count is None and _word(tokens, index) in ("a", "an"):
        count = (Fraction(1), index + 1)
    elif count is None and _word(tokens, index) == "half" and _word(tokens, index + 1) in (
            "a", "an"):
        count = (Fraction(1, 2), index + 2)
    if count is None or count[0] < 0:
        return None
    unit = _unit_at(tokens, count[1])
    if unit is None:
        return None
    half = _and_a_half(tokens, count[1] + 1)
    return count[0] + half, count[1] + (4 if half else 1), unit


def _read_duration(tokens: list[_Token], index: int) -> _Found | None:
    """Read a duration: 'one week', '72 hours', 'a fortnight', '3d', '1d12h', '1 day and 12h'."""
    span = _span(tokens, index)
    if span is None:
        return None
    seconds, stop, last = Fraction(0), index, 10**12
    while span is not None and (isinstance(span[2], str) or span[2] < last):
        count, stop, unit = span
        if isinstance(unit, str):
            text = " ".join(token.text for token in tokens[index:stop])
            return _Found(index, stop, text, f"a {unit} varies in length: say it in days or weeks")
        seconds, last = seconds + count * unit, unit
        skip = 1 if _word(tokens, stop) == "and" else 0
        span = _span(tokens, stop + skip)
    text = " ".join(token.text for token in tokens[index:stop])
    if seconds.denominator != 1:
        return _Found(index, stop, text, f"{text} is not a whole number of seconds")
    if seconds > _LONGEST:
        return _Found(index, stop, text, f"{text} is out of range: far too long")
    return _Found(index, stop, _compact(seconds.numerator))


def _compact(seconds: int) -> str:
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        amount, seconds = divmod(seconds, size)
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts) or "0s"


# Choices ----------------------------------------------------------------------------------

_ADOPTION: dict[tuple[str, ...], str] = {
    ("unanimous",): "unanimous", ("unanimously",): "unanimous", ("unaminous",): "unanimous",
    ("unanimity",): "unanimous", ("majority",): "majority", ("more", "than", "half"): "majority",
}
_BASIS: dict[tuple[str, ...], str] = {
    ("eligible",): "eligible", ("elegible",): "eligible", ("cast",): "cast",
}
_CHOICES = {"adoption": _ADOPTION, "count_basis": _BASIS, "transmute_basis": _BASIS}


def _choice_reader(name: str) -> Callable[[list[_Token], int], _Found | None]:
    vocabulary = _CHOICES[name]

    def read(tokens: list[_Token], index: int) -> _Found | None:
        for words, value in vocabulary.items():
            stop = index + len(words)
            if tuple(token.text for token in tokens[index:stop]) == words:
                return _Found(index, stop, value)
        return None

    return read


_READERS: dict[str, Callable[[list[_Token], int], _Found | None]] = {
    "number": _read_number, "duration": _read_duration, "percent": _read_percent,
    "fraction": _read_fraction,
}


def _found(name: str, tokens: list[_Token]) -> list[_Found]:
    """Every value of the mechanic's kind in the text, longest first, left to right."""
    kind = READABLE[name]
    reader = _choice_reader(name) if kind == "choice" else _READERS[kind]
    found, index = [], 0
    while index < len(tokens):
        value = reader(tokens, index)
        if value is None:
            index += 1
        else:
            found.append(value)
            index = value.stop
    return found


# Phrases ----------------------------------------------------------------------------------

_ANCHOR = re.compile(r"[^\W\d_]+")


def _anchor_word(word: str) -> str:
    lowered = word.lower()
    return lowered[:-1] if len(lowered) > 1 and lowered.endswith("s") else lowered


def _anchors(words: list[str]) -> list[frozenset[str]]:
    return [frozenset(_anchor_word(option) for option in word.split("|")) for word in words]


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
    return kind == "duration" and any(
        option in _SECONDS or option in _VARYING for option in options)


def _before(tokens: list[_Token], first: int, anchors: list[frozenset[str]]) -> int | None:
    """Where the first anchor stands among the WINDOW tokens before ``first`` (nearest match)."""
    index = first
    for anchor in reversed(anchors):
        index -= 1
        while index >= max(0, first - WINDOW) and _anchor_word(tokens[index].text) not in anchor:
            index -= 1
        if index < max(0, first - WINDOW):
            return None
    return index


def _after(tokens: list[_Token], stop: int, anchors: list[frozenset[str]]) -> int | None:
    """Where the last anchor stands among the WINDOW tokens after ``stop`` (nearest match)."""
    index, end = stop - 1, min(len(tokens), stop + WINDOW)
    for anchor in anchors:
        index += 1
        while index < end and _anchor_word(tokens[index].text) not in anchor:
            index += 1
        if index >= end:
            return None
    return index


def _value(name: str, found: _Found) -> tuple[str | None, str]:
    """Write the value as SET does, or say why it cannot be (None, why)."""
    if found.fault:
        return None, found.fault
    try:
        return PARAMETERS[name].format(PARAMETERS[name].parse_value(found.written)), ""
    except (ValueError, OverflowError) as error:
        reason = re.sub(r", not .*$", "", str(error))
        return None, f"{found.written} is out of range: {reason}"


def _count(values: list[str]) -> str:
    names = {2: "two", 3: "three", 4: "four"}
    listed = ", ".join(values[:-1]) + " and " + values[-1]
    return f"{names.get(len(values), len(values))} values: {listed}"


def read_mechanic(name: str, phrase: str, text: str) -> Reading:
    """Read mechanic ``name`` from a rule's ``text`` where ``phrase`` says it stands."""
    fault = phrase_fault(name, phrase)
    if fault is not None:
        return Reading(None, "", fault)
    words = phrase.split()
    place = words.index(PLACEHOLDER)
    before, after = _anchors(words[:place]), _anchors(words[place + 1:])
    tokens = _tokens(text)
    matches: list[tuple[_Found, str]] = []
    for found in _found(name, tokens):
        start = _before(tokens, found.first, before) if before else found.first
        end = _after(tokens, found.stop, after) if after else found.stop - 1
        if start is not None and end is not None:
            matches.append((found, text[tokens[start].start:tokens[end].end]))
    if not matches:
        return Reading(None, "", _shown(phrase, name))
    values = {_value(name, found)[0] or found.written: None for found, _ in matches}
    if len(values) > 1:
        return Reading(None, "", _count(list(values)))
    value, why = _value(name, matches[0][0])
    return Reading(value, matches[0][1] if value is not None else "", why)


def _shown(phrase: str, name: str) -> str:
    if phrase.split() != [PLACEHOLDER]:
        return "the rule no longer says " + repr(phrase.replace("|", " or ")).replace("{}", "…")
    if READABLE[name] == "choice":
        return "the rule no longer names " + " or ".join(sorted(set(_CHOICES[name].values())))
    return f"the rule no longer names a {READABLE[name]}"
