"""A TOML file edited in place for a test, and the line where a piece of it begins."""

from __future__ import annotations


def edited(text: str, *changes: tuple[str, str]) -> str:
    """Make each change (old text, new text) once; the old text must be there, once."""
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def line_of(text: str, marker: str) -> int:
    """The line (from 1) where ``marker`` begins; it must be in the text once."""
    assert text.count(marker) == 1, marker
    return text[: text.index(marker)].count("\n") + 1
