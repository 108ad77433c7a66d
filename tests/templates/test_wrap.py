"""``fill_words`` gives exactly what ``textwrap.fill`` gives, only faster."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.mail.outbound.compose import fill_words, wrap

WORDS = st.lists(st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1,
                         max_size=30), min_size=1, max_size=60)


@settings(max_examples=500)
@given(WORDS, st.integers(min_value=1, max_value=90), st.text(" >", max_size=6),
       st.text(" ", max_size=6))
def test_fill_words_is_textwrap_fill(words: list[str], width: int, first: str,
                                     later: str) -> None:
    expected = textwrap.fill(" ".join(words), width, initial_indent=first,
                             subsequent_indent=later, break_long_words=False,
                             break_on_hyphens=False)
    assert fill_words(words, width, first, later) == expected


def test_a_long_list_of_names_wraps_as_before() -> None:
    names = ", ".join(f"Voter {n}" for n in range(900))
    line = f"Did not vote: {names}."
    assert wrap(line) == textwrap.fill(line, 72, break_long_words=False,
                                       break_on_hyphens=False)
    # A list item, indented: continued under the item's text.
    assert wrap("  - " + line, 72, "  ") == textwrap.fill(
        "- " + line, 72, initial_indent="    ", subsequent_indent="      ",
        break_long_words=False, break_on_hyphens=False)
