"""Keeping the Speaker's password out of what is read, shown, stored and logged."""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from typing import Any

from speakerbot.mail.inbound.language import tokens
from speakerbot.mail.inbound.language.results import REDACTED, ParseResult


def _scrub_value(value: Any, secret: str) -> Any:
    if isinstance(value, StrEnum):
        return value
    if isinstance(value, str):
        return value.replace(secret, REDACTED)
    if isinstance(value, tuple):
        return tuple(_scrub_value(item, secret) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            item.name: _scrub_value(getattr(value, item.name), secret)
            for item in dataclasses.fields(value)
            if item.name != "password"
        }
        return dataclasses.replace(value, **changes)
    return value


def scrub(result: ParseResult, secret: str) -> ParseResult:
    """Replace ``secret`` by ``********`` everywhere in what was read, but the password itself."""
    scrubbed = _scrub_value(result, secret)
    assert isinstance(scrubbed, ParseResult)
    return scrubbed


def redact(text: str, password: str | None) -> str:
    """Hide the Speaker's password in ``text`` (e.g. a body about to be stored or logged).

    Every line whose first word is PASSWORD becomes ``PASSWORD ********``, and any
    other occurrence of ``password`` is replaced by ``********``.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        words = line.split()
        if words and tokens.keyword(words[0]) == "PASSWORD":
            lines[index] = f"{words[0]} {REDACTED}"
    out = "\n".join(lines)
    return out.replace(password, REDACTED) if password else out
