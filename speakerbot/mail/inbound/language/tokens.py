"""The small readers every command head uses: numbers, keywords, names, players, choices.

They read one token or one line's rest and know nothing of the command table; what a line
quoted back may show is cut here too (:func:`shown`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from speakerbot.addresses import as_compared
from speakerbot.mail.inbound.language.results import (
    MAX_NAME_LENGTH,
    MAX_SHOWN,
    Choice,
    JudgementValue,
)

_NUMBER = re.compile(r"#?([0-9]{1,9}):?")
EMAIL = re.compile(r"<?([^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+)>?")
TRAILING = ".!"
"""What may end a keyword-like token: dropped before it is compared."""
BARE_TRAILING = ".!?"
"""What may end a keyword that takes no arguments, alone on its line."""
CHOICES: Mapping[str, Choice] = {
    "FOR": Choice.FOR, "YES": Choice.FOR, "AYE": Choice.FOR,
    "AGAINST": Choice.AGAINST, "NO": Choice.AGAINST, "NAY": Choice.AGAINST,
    "ABSTAIN": Choice.ABSTAIN,
}  # fmt: skip
"""The words of a VOTE's choice."""
VALUES: Mapping[str, JudgementValue] = {value.value: value for value in JudgementValue}
"""The words of a JUDGEMENT's value."""


def number(token: str) -> int | None:
    """Read a number of at most nine digits, maybe written ``#301`` or ``301:``."""
    match = _NUMBER.fullmatch(token)
    return int(match.group(1)) if match else None


def word(token: str) -> str:
    """Upper-case a keyword-like token and drop trailing . and !."""
    return token.upper().rstrip(TRAILING)


def keyword(first: str) -> str:
    """Read a line's first word as a keyword: upper case, without one trailing colon."""
    key = first.upper()
    return key[:-1] if len(key) > 1 and key.endswith(":") else key


def end_name(text: str) -> str:
    """Read a line as an END line's name (``END PROPOSE``): upper case, spaces folded."""
    return " ".join(text.upper().rstrip(TRAILING).split())


def join_text(lines: list[str]) -> str:
    """Join a block's lines into its text, without blank lines around it or trailing spaces."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(line.rstrip() for line in lines[start:end])


def display_name(value: str, verb: str) -> str:
    """Check a display name; return it with white space tidied, or raise ValueError."""
    name = " ".join(value.split())
    example = (
        f"e.g. {verb} Alice Smith"
        if verb == "JOIN"
        else f"e.g. {verb} alice@example.org Alice Smith"
    )
    if not name:
        raise ValueError(f"{verb} needs a display name, {example}")
    if "@" in name:
        raise ValueError(f"a display name may not contain @; {example}")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"a display name may be at most {MAX_NAME_LENGTH} characters long")
    return name


def player(value: str) -> str:
    """Tidy a player reference: an email address (canonical, <> removed) or a display name."""
    value = " ".join(value.split())
    match = EMAIL.fullmatch(value)
    return as_compared(match.group(1)) if match else value


def shown(text: str) -> str:
    """Cut a line quoted back in an error or as ignored to :data:`MAX_SHOWN` characters."""
    text = text.strip()
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def one_edit_apart(a: str, b: str) -> bool:
    """Tell whether two words are one Damerau–Levenshtein edit apart (and not equal)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    common = min(len(a), len(b))
    while i < common and a[i] == b[i]:
        i += 1
    if len(a) > len(b):  # a letter added
        return a[i + 1 :] == b[i:]
    if len(a) < len(b):  # a letter left out
        return b[i + 1 :] == a[i:]
    if a[i + 1 :] == b[i + 1 :]:  # a letter changed
        return True
    return (  # two neighbouring letters swapped
        i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    )
