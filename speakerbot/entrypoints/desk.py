"""The host's desk: ``speakerbot admin WORDS...``, ``show proposal|rule|cfj N``, ``history [N]``.

``admin`` runs one ADMIN command with the words a mail would hold, as the host (the
operator on the server needs no password), recorded and announced as the mail command
would be; it prints what was done (exit 0) or the refusal (exit 1); words the mail language
cannot read exit 2 with its reason. A running daemon sees the change within a second or
two and sends the announcement. ``show`` and ``history`` print what the matching mail
lookups send.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from speakerbot.entrypoints.commands import USER_ERRORS as _COMMAND_ERRORS
from speakerbot.entrypoints.commands import _game

USER_ERRORS = (*_COMMAND_ERRORS, OSError, UnicodeDecodeError)


def admin(args: argparse.Namespace) -> int:
    """Run one ADMIN command as the host; print the outcome (exit 1 when refused)."""
    text = _text(args.text) if args.text is not None else ""
    with _game(args) as (_, service):
        outcome = service.host_command(args.words, text)
    if not outcome.applied:
        print(f"{outcome.command}: {outcome.result}", file=sys.stderr)
        return 1
    print(f"{outcome.command}: {outcome.result}")
    return 0


def _text(source: str) -> str:
    """Read the lines that follow the ADMIN line (ADMIN RULE's text), from a file or stdin."""
    raw = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    return raw.rstrip("\n")


def show(args: argparse.Namespace) -> int:
    """Print what SHOW PROPOSAL, SHOW RULE or SHOW CFJ sends by mail."""
    with _game(args) as (_, service):
        print(service.lookup(f"SHOW {args.what.upper()}", args.number), end="")
    return 0


def history(args: argparse.Namespace) -> int:
    """Print what HISTORY [N] sends by mail: the last N events of the public record."""
    with _game(args) as (_, service):
        print(service.lookup("HISTORY", args.count), end="")
    return 0
