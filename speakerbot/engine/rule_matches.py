"""Where a phrase's value stands in a rule: the first match, and the values matched.

Every value a reader finds is a match when the phrase's words stand around it (``Nearest``).
The rule is read in stretches of ``STRETCH`` tokens, and what a stretch gives (its first
match, the values it matched, where the next value may start) is kept for the same tokens:
a rule that says the same thing over and over, as an attacker's 64 KB of "7d" does, costs a
step per stretch once its first few stretches are read, not a reading per value.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

from speakerbot.engine.rule_words import Key, Memo, Words

STRETCH = 64  # tokens; long enough that a step per stretch costs little, short enough to recur

Value = tuple[str, str]  # a value found: as written for PARAMETERS, and why it cannot be read
Match = tuple[int, int, Value]  # the first and last token of the words around it, and it


@dataclass(frozen=True, slots=True)
class _Stretch:
    """What one stretch gives, its places counted from the stretch's start."""

    free: int  # where the next value may start
    first: Match | None  # the first match in the stretch
    values: tuple[Value, ...]  # each value matched, once, in the order first matched


def anchor_word(word: str) -> str:
    """Write a word as a phrase's words are compared: in lower case, without a final "s"."""
    lowered = word.lower()
    return lowered[:-1] if len(lowered) > 1 and lowered.endswith("s") else lowered


class Nearest:
    """Where a phrase's words stand before or after a value, each window worked out once."""

    def __init__(self, words: Words, window: int, before: list[frozenset[str]],
                 after: list[frozenset[str]]) -> None:
        """Look for ``before`` ending just before a value, ``after`` starting just after it.

        Each is a list of words, each word its alternatives as ``anchor_word`` writes them;
        they may stand among the ``window`` tokens next to the value, other words between.
        """
        self.window = window
        self._texts = words.texts
        self._before, self._after = before, after
        # Every token that can be one of the words: each alternative, and it with an "s".
        # A window holding none of them is passed over without a look at its tokens.
        self._loose_before = frozenset(_loose(before))
        self._loose_after = frozenset(_loose(after))
        self._seen_before: dict[tuple[str, ...], int | None] = {}
        self._seen_after: dict[tuple[str, ...], int | None] = {}
        self._normals: dict[str, str] = {}

    def start(self, first: int) -> int | None:
        """Where the first of the words before stands (the nearest match); None: not there."""
        if not self._before:
            return first
        low = max(0, first - self.window)
        tokens = self._texts[low:first]
        if self._loose_before.isdisjoint(tokens):
            return None
        window = tuple(tokens)
        if window not in self._seen_before:
            self._seen_before[window] = self._back(window)
        place = self._seen_before[window]
        return None if place is None else low + place

    def end(self, stop: int) -> int | None:
        """Where the last of the words after stands (the nearest match); None: not there."""
        if not self._after:
            return stop - 1
        tokens = self._texts[stop:stop + self.window]
        if self._loose_after.isdisjoint(tokens):
            return None
        window = tuple(tokens)
        if window not in self._seen_after:
            self._seen_after[window] = self._ahead(window)
        place = self._seen_after[window]
        return None if place is None else stop + place

    def _back(self, window: tuple[str, ...]) -> int | None:
        index = len(window)
        for anchor in reversed(self._before):
            index -= 1
            while index >= 0 and self._normal_of(window[index]) not in anchor:
                index -= 1
            if index < 0:
                return None
        return index

    def _ahead(self, window: tuple[str, ...]) -> int | None:
        index = -1
        for anchor in self._after:
            index += 1
            while index < len(window) and self._normal_of(window[index]) not in anchor:
                index += 1
            if index >= len(window):
                return None
        return index

    def _normal_of(self, token: str) -> str:
        normal = self._normals.get(token)
        if normal is None:
            normal = self._normals[token] = anchor_word(token)
        return normal


def _loose(words: list[frozenset[str]]) -> Iterator[str]:
    # Tokens are in lower case already, so a token is one of the words only if it is an
    # alternative, or one with an "s" after it.
    for options in words:
        for option in options:
            yield option
            yield option + "s"


class Matcher:
    """A rule read stretch by stretch for the values a phrase's words stand around."""

    def __init__(self, words: Words, memo: Memo, starts: list[int], nearest: Nearest) -> None:
        """Read ``words`` by ``memo`` at ``starts`` (where a value can start, in order)."""
        self._words, self._memo, self._starts, self._nearest = words, memo, starts, nearest
        # Keyed by where the first value may start and the stretch's tokens (with those the
        # phrase's words may stand in before it); then by the tokens read after it.
        self._kept: dict[tuple[int, Key], dict[int, dict[Key, _Stretch]]] = {}

    def stretches(self) -> Iterator[tuple[Match | None, tuple[Value, ...]]]:
        """Each stretch's first match (places in the rule) and the values it matched."""
        free = 0
        for low in range(0, self._words.size, STRETCH):
            if free >= low + STRETCH:
                continue  # inside a long value
            entry = max(free - low, 0)
            stretch = self._known(low, entry) or self._read(low, entry)
            free = low + stretch.free
            first = stretch.first
            if first is not None:
                first = (low + first[0], low + first[1], first[2])
            yield first, stretch.values

    def _body(self, low: int) -> Key:
        return self._words.key(low - self._nearest.window, low + STRETCH)

    def _known(self, low: int, entry: int) -> _Stretch | None:
        tails = self._kept.get((entry, self._body(low)))
        if tails is None:
            return None
        high = low + STRETCH
        for length, kept in tails.items():
            if high + length <= self._words.size:
                stretch = kept.get(self._words.key(high, high + length))
                if stretch is not None:
                    return stretch
        return None

    def _read(self, low: int, entry: int) -> _Stretch:
        words, nearest, high = self._words, self._nearest, low + STRETCH
        free, reach = low + entry, high - 1
        first: Match | None = None
        values: dict[Value, None] = {}
        for index in self._starts[bisect_left(self._starts, free):
                                  bisect_left(self._starts, high)]:
            if index < free:
                continue
            found = self._memo.read(index)
            reach = max(reach, words.reach)
            if found is None:
                continue
            free = found.stop
            start = nearest.start(found.first)
            if start is None:
                continue
            end = nearest.end(found.stop)
            reach = max(reach, found.stop + nearest.window - 1)
            if end is None:
                continue
            value = (found.written, found.fault)
            first = first or (start - low, end - low, value)
            values[value] = None
        stretch = _Stretch(free - low, first, tuple(values))
        if reach < words.size:  # what saw the end of the rule is true there alone
            tails = self._kept.setdefault((entry, self._body(low)), {})
            tails.setdefault(reach + 1 - high, {})[words.key(high, reach + 1)] = stretch
        return stretch
