"""The heads of the pace lines: absences, digests, and the host's pause, absence and skip.

``ABSENT UNTIL``, ``BACK``, ``DIGEST ON|OFF``; ``ADMIN PAUSE``, ``ADMIN RESUME``,
``ADMIN ABSENT``, ``ADMIN SKIP``.
"""

from __future__ import annotations

import re
from datetime import date

from speakerbot.mail.inbound.language import commands, tokens
from speakerbot.mail.inbound.language.spec import Outcome, plan

_UNTIL = re.compile(r"(?P<who>.*?)\s*\bUNTIL\s+(?P<date>\S+)(?:\s+(?P<reason>.*))?",
                    re.IGNORECASE | re.DOTALL)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_ABSENT_EXAMPLE = "e.g. ABSENT UNTIL 2026-12-01 on holiday"
_ADMIN_ABSENT_EXAMPLE = "e.g. ADMIN ABSENT alice@example.org UNTIL 2026-12-01 on holiday"


def _date(text: str) -> str | None:
    """Return a YYYY-MM-DD date as written, or None if it is not a real one."""
    cleaned = text.rstrip(".,;")
    if not _DATE.fullmatch(cleaned):
        return None
    try:
        date.fromisoformat(cleaned)
    except ValueError:
        return None
    return cleaned


def _reason(text: str | None) -> str | None:
    return " ".join((text or "").split()) or None


def absent_is_prose(rest: str) -> bool:
    """ABSENT followed by neither UNTIL nor a date is a sentence ("commands.Absent friends...")."""
    words = rest.split()
    return bool(words) and tokens.word(words[0]) != "UNTIL" and _date(words[0]) is None


def absent(line: int, rest: str) -> Outcome:
    """Read ``ABSENT UNTIL <YYYY-MM-DD> [reason]``."""
    match = _UNTIL.fullmatch(rest.strip())
    if match is None or match.group("who"):
        return f"ABSENT needs UNTIL and a date written YYYY-MM-DD, {_ABSENT_EXAMPLE}"
    until = _date(match.group("date"))
    if until is None:
        return (f"ABSENT UNTIL needs a date written YYYY-MM-DD, not "
                f"{tokens.shown(match.group('date'))}; {_ABSENT_EXAMPLE}")
    return plan(commands.Absent(line, until, _reason(match.group("reason"))))


def back(line: int, rest: str) -> Outcome:
    """Read ``BACK``."""
    return plan(commands.Back(line)) if not rest else "takes no arguments"


def admin_pause(line: int, rest: str) -> Outcome:
    """Read ``ADMIN PAUSE [reason]``."""
    return plan(commands.AdminPause(line, _reason(rest)))


def admin_resume(line: int, rest: str) -> Outcome:
    """Read ``ADMIN RESUME``."""
    return "ADMIN RESUME takes nothing after it" if rest else plan(commands.AdminResume(line))


def admin_skip(line: int, rest: str) -> Outcome:
    """Read ``ADMIN SKIP``."""
    return ("ADMIN SKIP takes nothing after it: it skips the current mover's turn" if rest
            else plan(commands.AdminSkip(line)))


def admin_absent(line: int, rest: str) -> Outcome:
    """Read ``ADMIN ABSENT <player> UNTIL <YYYY-MM-DD> [reason]``."""
    match = _UNTIL.fullmatch(rest.strip())
    if match is None or not match.group("who"):
        return f"ADMIN ABSENT needs a player, UNTIL and a date, {_ADMIN_ABSENT_EXAMPLE}"
    until = _date(match.group("date"))
    if until is None:
        return (f"ADMIN ABSENT needs a date written YYYY-MM-DD after UNTIL, not "
                f"{tokens.shown(match.group('date'))}; {_ADMIN_ABSENT_EXAMPLE}")
    return plan(commands.AdminAbsent(line, tokens.player(match.group("who")), until,
                             _reason(match.group("reason"))))


_DIGEST_MODES = {"ON": True, "OFF": False}


def digest_mode(line: int, rest: str) -> Outcome:
    """Read ``DIGEST ON`` or ``DIGEST OFF``."""
    words = rest.split()
    on = _DIGEST_MODES.get(tokens.word(words[0])) if len(words) == 1 else None
    if on is None:
        return ("DIGEST needs ON or OFF: DIGEST ON for the public mail once a day in one "
                "digest, DIGEST OFF for each message as it is sent")
    return plan(commands.DigestMode(line, on))


def digest_is_prose(rest: str) -> bool:
    """DIGEST followed by anything but ON or OFF is a sentence ("Digest of the week: ...")."""
    words = rest.split()
    return bool(words) and tokens.word(words[0]) not in _DIGEST_MODES
