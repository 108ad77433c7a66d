"""The values a rule's words can state: counts, percentages, fractions, durations, choices.

Each reader takes the rule's ``Words`` and a place, and returns the value that starts there
(``Found``) or None. It reads only through ``Words`` and looks only ahead, a bounded number
of tokens: ``find_all`` relies on both to read each stretch of words once. Numbers are read
in figures ("1,000", "-5") or words ("one hundred and fifty", "a thousand"), and nothing here
raises on any text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

from speakerbot.engine.rule_words import Found, Reader, Words

Number = int | Fraction  # a count is an int until a half or a decimal makes it a Fraction
_FIGURES = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")

# Numbers ----------------------------------------------------------------------------------

_UNITS = {name: value for value, name in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen"])}
_TENS = {name: 10 * value for value, name in enumerate(
    ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], start=2)}
_SCALES = {"thousand": 1000, "million": 10**6, "billion": 10**9}

NUMBER_STARTS = frozenset({"a", "an", "half", *_UNITS, *_TENS})
"""The words a number, share or duration can start with, besides figures."""


def _figures(token: str) -> Number | None:
    """Read a number in figures ("150", "1,000", "+5", "-3", "33.3"); None: not one."""
    sign = -1 if token[:1] in "-\u2212" else 1
    body = token.lstrip("+-\u2212")
    if len(body) > 60:
        return None
    if body.isdecimal():  # the usual case, as _FIGURES would read it but sooner
        return sign * int(body)
    if not _FIGURES.fullmatch(body):
        return None
    if "." in body:
        return sign * Fraction(body.replace(",", ""))
    return sign * int(body.replace(",", ""))  # the same number, made many times faster


def _below_hundred(words: Words, index: int) -> tuple[int, int] | None:
    word = words.word(index)
    if word in _TENS:
        unit = _UNITS.get(words.word(index + 1), 0)
        return (_TENS[word] + unit, index + 2) if 0 < unit < 10 else (_TENS[word], index + 1)
    return (_UNITS[word], index + 1) if word in _UNITS else None


def _below_thousand(words: Words, index: int) -> tuple[int, int] | None:
    """Read 'fifty', 'a hundred', 'one hundred and fifty' or 'fifteen hundred'.

    The 'a' of 'a thousand' reads as 1, which the caller multiplies.
    """
    if words.word(index) in ("a", "an") and (
            words.word(index + 1) == "hundred" or words.word(index + 1) in _SCALES):
        head: tuple[int, int] | None = (1, index + 1)
    else:
        head = _below_hundred(words, index)
    if head is None or words.word(head[1]) != "hundred" or head[0] == 0:
        return head
    value, index = head[0] * 100, head[1] + 1
    skip = 1 if words.word(index) == "and" else 0
    tail = _below_hundred(words, index + skip)
    if tail is None or tail[0] == 0:
        return value, index
    return value + tail[0], tail[1]


def _number_in_words(words: Words, index: int) -> tuple[int, int] | None:
    """Read a whole number written in words, scales largest first ('three hundred thousand')."""
    total, found, last_scale = 0, None, 10**12
    while (group := _below_thousand(words, index)) is not None:
        value, after = group
        scale = _SCALES.get(words.word(after), 0)
        if not scale or scale >= last_scale or value == 0:
            return total + value, after
        total, last_scale, index = total + value * scale, scale, after + 1
        found = (total, index)
        if words.word(index) == "and" and _below_thousand(words, index + 1):
            index += 1
    return found


def _number_at(words: Words, index: int) -> tuple[Number, int] | None:
    """Read a number at ``index``, in figures or words, and an 'and a half' after it.

    A sign is read only when written onto the figures ("-5"): "N minus 290" subtracts 290.
    """
    word = words.word(index)
    if word[:1].isdigit() or word[1:2].isdigit():
        value = _figures(word)
        number = None if value is None else (value, index + 1)
    else:
        in_words = _number_in_words(words, index)
        number = in_words
    if number is None:
        return None
    half = _and_a_half(words, number[1])
    return (number[0] + half, number[1] + 3) if half else number


def _and_a_half(words: Words, index: int) -> Number:
    """Read 'and a half' at ``index`` as 1/2 ('one and a half days', 'a day and a half')."""
    # Word by word: a reading that looks no further than it must is reused more often.
    if words.word(index) != "and" or words.word(index + 1) not in ("a", "one"):
        return 0
    return Fraction(1, 2) if words.word(index + 2) == "half" else 0


def _percent_sign(words: Words, index: int) -> int:
    """How many tokens at ``index`` say 'percent' ('%', 'percent', 'per cent'); 0: none."""
    word = words.word(index)
    if word in ("%", "percent", "pc"):
        return 1
    return 2 if word == "per" and words.word(index + 1) == "cent" else 0


def _whole(value: Number, stop: int, first: int, words: Words) -> Found:
    if value.denominator != 1:
        text = words.phrase(first, stop)
        return Found(first, stop, text, f"{text} is not a whole number")
    return Found(first, stop, str(value.numerator))


def _read_number(words: Words, index: int) -> Found | None:
    """Read a count: a number that is no percentage, duration or '3x' ('one week' is no count)."""
    number = _number_at(words, index)
    if number is None:
        return None
    value, stop = number
    if _percent_sign(words, stop) or _unit_at(words, stop) is not None or (
            words.is_joined(stop) and words.word(stop).isalpha()):
        return None
    return _whole(value, stop, index, words)


# Fractions and percentages ----------------------------------------------------------------

_PARTS = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5,
          "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}


def _part(word: str) -> int:
    return _PARTS.get(word.removesuffix("s") if len(word) > 4 else word, 0)


def _share_at(words: Words, index: int,
              number: tuple[Number, int] | None) -> tuple[Number, int] | None:
    """Read a share in words or figures: 'half', 'a fifth', 'two thirds', 'two-thirds', '2/3'.

    ``number``: the number at ``index``, as ``_number_at`` reads it.
    """
    word = words.word(index)
    if "/" in word:
        top, _, bottom = word.lstrip("+").partition("/")
        if len(word) < 20 and top.isdigit() and bottom.isdigit() and int(bottom):
            return Fraction(int(top), int(bottom)), index + 1
        return None
    if word == "half":
        return Fraction(1, 2), index + 1
    if word in ("a", "an"):
        count: tuple[Number, int] | None = (1, index + 1)
    else:
        count = number
    if count is None or count[0] <= 0 or count[0].denominator != 1:
        return None
    part = _part(words.word(count[1]))
    return (Fraction(count[0], part), count[1] + 1) if part else None


def _read_percent(words: Words, index: int) -> Found | None:
    """Read a whole number of percent: '20%', 'twenty per cent', 'a fifth' (20)."""
    number = _number_at(words, index)
    if number is not None and (sign := _percent_sign(words, number[1])):
        return _whole(number[0], number[1] + sign, index, words)
    share = _share_at(words, index, number)
    if share is None:
        return None
    return _whole(share[0] * 100, share[1], index, words)


def _read_fraction(words: Words, index: int) -> Found | None:
    """Read a fraction: '2/3', 'two thirds', 'three quarters', '67%' (67/100)."""
    number = _number_at(words, index)
    value: Number
    if number is not None and (sign := _percent_sign(words, number[1])):
        value, stop = Fraction(number[0], 100), number[1] + sign
    elif (share := _share_at(words, index, number)) is not None:
        value, stop = share
    else:
        return None
    return Found(index, stop, f"{value.numerator}/{value.denominator}")


# Durations --------------------------------------------------------------------------------

_SECONDS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600,
            "day": 86400, "week": 604800, "fortnight": 1209600}
_SHORT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}  # only written onto a number
_VARYING = ("month", "year")
_LONGEST = 999_999 * 86400  # seconds: the most days a duration may be written with


def names_a_unit(word: str) -> bool:
    """Tell whether ``word`` (lower case, no final "s") is a unit of time ('day', 'month')."""
    return word in _SECONDS or word in _VARYING


def _unit_at(words: Words, index: int) -> int | str | None:
    """Seconds in the unit at ``index``; a varying unit's name (month); None: no unit."""
    text = words.word(index)
    if words.is_joined(index) and text in _SHORT:
        return _SHORT[text]
    word = text.removesuffix("s")
    return word if word in _VARYING else _SECONDS.get(word)


def _span(words: Words, index: int) -> tuple[Number, int, int | str] | None:
    """Read one count and unit: 'three days', 'an hour', '72h', but not 'and a half' after.

    Return the count, where the span stops and the unit.
    """
    count: tuple[Number, int] | None = _number_at(words, index)
    if count is None and words.word(index) in ("a", "an"):
        count = (1, index + 1)
    elif count is None and words.word(index) == "half" and words.word(index + 1) in ("a", "an"):
        count = (Fraction(1, 2), index + 2)
    if count is None or count[0] < 0:
        return None
    unit = _unit_at(words, count[1])
    return None if unit is None else (count[0], count[1] + 1, unit)


def _and_its_half(words: Words, span: tuple[Number, int, int | str]) -> tuple[Number, int]:
    """Return a span's count and end with the 'and a half' after its unit, if any."""
    half = _and_a_half(words, span[1])
    return (span[0] + half, span[1] + 3) if half else (span[0], span[1])


def _read_duration(words: Words, index: int) -> Found | None:
    """Read a duration: 'one week', '72 hours', 'a fortnight', '3d', '1d12h', '1 day and 12h'."""
    span = _span(words, index)
    if span is None:
        return None
    seconds: Number = 0
    stop, last = index, 10**12
    # A span's "and a half" is read once the span is taken: one that is not taken (a unit no
    # smaller than the last) needs no more looking ahead, and its reading is kept shorter.
    while span is not None and (isinstance(span[2], str) or span[2] < last):
        (count, stop), unit = _and_its_half(words, span), span[2]
        if isinstance(unit, str):
            text = words.phrase(index, stop)
            return Found(index, stop, text, f"a {unit} varies in length: say it in days or weeks")
        seconds, last = seconds + count * unit, unit
        skip = 1 if words.word(stop) == "and" else 0
        span = _span(words, stop + skip)
    if seconds.denominator == 1 and seconds <= _LONGEST:
        return Found(index, stop, _compact(seconds.numerator))
    text = words.phrase(index, stop)
    if seconds.denominator != 1:
        return Found(index, stop, text, f"{text} is not a whole number of seconds")
    return Found(index, stop, text, f"{text} is out of range: far too long")


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
CHOICES: Mapping[str, Mapping[tuple[str, ...], str]] = {
    "adoption": _ADOPTION, "count_basis": _BASIS, "transmute_basis": _BASIS}
"""Each mechanic read as a choice: the words that say each of its values."""


def _choice_reader(name: str) -> Reader:
    vocabulary = CHOICES[name]

    def read(words: Words, index: int) -> Found | None:
        for said, value in vocabulary.items():
            if all(words.word(index + step) == word for step, word in enumerate(said)):
                return Found(index, index + len(said), value)
        return None

    return read


_READERS: dict[str, Reader] = {
    "number": _read_number, "duration": _read_duration, "percent": _read_percent,
    "fraction": _read_fraction,
}


def reader_of(name: str, kind: str) -> tuple[Reader, frozenset[str]]:
    """Return the reader of mechanic ``name`` of ``kind``, and the words a value starts with."""
    if kind == "choice":
        return _choice_reader(name), frozenset(said[0] for said in CHOICES[name])
    return _READERS[kind], NUMBER_STARTS
