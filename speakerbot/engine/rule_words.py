"""A rule's text as lower-case word tokens, and a reader's findings kept for the same tokens.

A mechanic is read by trying a reader at each token of a rule of up to 64 KB, and a rule of
the same few words over and over ("7d7d7d…") once took seconds: each place cost a whole
reading. A reader sees the tokens only through ``Words``, which notes how far ahead it
looked (``reach``); what it read there is then known wherever the same tokens stand again
(``Memo``), so that each distinct stretch of words is read once.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from itertools import chain, compress, count
from typing import NamedTuple

# A run of letters, a number (a sign only where it starts a word: "-5", not the "-" of
# "twenty-five") or "%". Split by it, a text gives each separator, token and number in turn.
_TOKEN = re.compile(
    r"([^\W\d_]+|(\d+(?:[.,/]\d+)*|(?<![^\s(\[])[-+\u2212]\d+(?:[.,/]\d+)*)|%)")


Key = tuple[tuple[str, ...], tuple[bool, ...]]  # some tokens, and which are joined


class Found(NamedTuple):
    """A value a reader found at tokens[first:stop]."""

    first: int
    stop: int
    written: str  # the value as PARAMETERS reads it, or the text when it cannot be read
    fault: str = ""  # why the value cannot be read at all (a month, 33.3%)


class Words:
    """A rule's text split into tokens (numbers, words, "%"), as a reader sees them.

    ``reach`` is the furthest place asked about since it was last set: what a reading
    depended on, so that it can be kept for the same tokens elsewhere.
    """

    def __init__(self, text: str) -> None:
        """Split ``text`` once; no token is made an object (a rule may hold 64,000)."""
        self._text = text
        # Lower-casing a text of ASCII first is the same as lower-casing each token, and
        # cheaper; elsewhere it is not ("İ" becomes two characters, a final "Σ" another).
        self._parts = _TOKEN.split(text.lower() if text.isascii() else text)
        self.texts: list[str] = self._parts[1::3]
        if not text.isascii():
            self.texts = list(map(str.lower, self.texts))
        # A token is joined when nothing separates it from the one before ("3d").
        self.joined: list[bool] = list(map(operator.not_, self._parts[0:-1:3]))
        if self.joined:
            self.joined[0] = False
        self.size = len(self.texts)
        self.reach = -1

    def word(self, index: int) -> str:
        """Return the token at ``index`` in lower case; "" past the end."""
        if index > self.reach:
            self.reach = index
        return self.texts[index] if index < self.size else ""

    def is_joined(self, index: int) -> bool:
        """Tell whether the token at ``index`` is written onto the one before, as "d" in "3d"."""
        if index > self.reach:
            self.reach = index
        return index < self.size and self.joined[index]

    def phrase(self, first: int, stop: int) -> str:
        """Return the tokens first..stop-1, lower case, joined by spaces."""
        if stop - 1 > self.reach:
            self.reach = stop - 1
        return " ".join(self.texts[first:stop])

    def key(self, first: int, stop: int) -> Key:
        """Return the tokens first..stop-1 (within the text) as a key: equal keys, equal tokens."""
        first, stop = max(first, 0), min(stop, self.size)
        return tuple(self.texts[first:stop]), tuple(self.joined[first:stop])

    def quoted(self, first: int, last: int) -> str:
        """Return the text from the start of token ``first`` to the end of token ``last``."""
        start, end = self.span(first, last)
        return self._text[start:end]

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Return where token ``first`` starts and token ``last`` ends in the text."""
        parts = self._parts  # separator, token, number (or None), separator, ...
        start = sum(map(len, parts[0:3 * first + 1:3])) + sum(map(len, parts[1:3 * first:3]))
        end = start + sum(map(len, parts[3 * first + 1:3 * last + 2:3])) + sum(
            map(len, parts[3 * first + 3:3 * last + 1:3]))
        return start, end

    def starts(self, words: frozenset[str], numbers: bool) -> list[int]:
        """Return where a value can start, in order: at one of ``words``, or at a number."""
        places = compress(count(), map(words.__contains__, self.texts))
        if not numbers:
            return list(places)
        return sorted(chain(places, compress(count(), self._parts[2::3])))


Reader = Callable[[Words, int], Found | None]
_Trie = dict[tuple[str, bool], "_Trie | _Known"]


class _Known(NamedTuple):
    extent: int  # how many tokens the reading looked at, from where it started
    length: int  # the value's tokens; 0: no value there
    written: str
    fault: str


class Memo:
    """A reader, and what it read from each run of tokens it looked at.

    The readings are kept in a trie of tokens, walked first: a reader depends on nothing
    but the tokens it asks about, so the same tokens read the same.
    """

    def __init__(self, words: Words, reader: Reader) -> None:
        """Read ``words`` with ``reader``."""
        self._words, self._reader = words, reader
        self._trie: _Trie = {}
        self._once: set[tuple[str, bool]] = set()  # tokens a reading has started at

    def read(self, index: int) -> Found | None:
        """Return the value at ``index``, if any; leave ``words.reach`` at the last token read."""
        words = self._words
        known = self._walk(index)
        if known is None:
            words.reach = index
            value = self._reader(words, index)
            # Kept from the second reading starting at the same token: a text of distinct
            # numbers ("1d 2d 3d …") would fill the trie for nothing.
            start = (words.texts[index], words.joined[index])
            if start not in self._once:
                self._once.add(start)
            elif words.reach < words.size:  # a reading that saw the end is true there alone
                self._keep(index, words.reach + 1 - index, value)
            return value
        words.reach = index + known.extent - 1
        if not known.length:
            return None
        return Found(index, index + known.length, known.written, known.fault)

    def _walk(self, index: int) -> _Known | None:
        node: _Trie | _Known | None = self._trie
        texts, joined, size = self._words.texts, self._words.joined, self._words.size
        while type(node) is dict and index < size:
            node = node.get((texts[index], joined[index]))
            index += 1
        return node if isinstance(node, _Known) else None

    def _keep(self, index: int, extent: int, value: Found | None) -> None:
        node, texts, joined = self._trie, self._words.texts, self._words.joined
        for place in range(index, index + extent - 1):
            child = node.setdefault((texts[place], joined[place]), {})
            if not isinstance(child, dict):
                return  # cannot happen: the same tokens are read the same; keep the first
            node = child
        known = (_Known(extent, 0, "", "") if value is None else
                 _Known(extent, value.stop - index, value.written, value.fault))
        last = index + extent - 1
        node.setdefault((texts[last], joined[last]), known)
