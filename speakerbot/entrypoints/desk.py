"""The host's desk: ``speakerbot admin WORDS...``, ``show``, ``history [N]``, ``handwork``.

``admin`` runs one ADMIN command with the words a mail would hold, as the host (the
operator on the server needs no password), recorded and announced as the mail command
would be; it prints what was done (exit 0) or the refusal (exit 1); words the mail language
cannot read exit 2 with its reason. A running daemon sees the change within a second or
two and sends the announcement. ``show`` and ``history`` print what the matching mail
lookups send, or with ``--json`` the same as data (docs/cli.md); ``show`` of a proposal,
rule or CFJ there is none of exits 1, the mail's answer on standard error. ``handwork``
lists what adopted proposals left to the Speaker's hand, still open.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from speakerbot.engine import GameState
from speakerbot.engine.rereading import in_force
from speakerbot.entrypoints.cli import CliError, NotFound
from speakerbot.entrypoints.commands import USER_ERRORS as _COMMAND_ERRORS
from speakerbot.entrypoints.commands import print_json
from speakerbot.entrypoints.opening import started_game
from speakerbot.entrypoints.views import (
    Json,
    cfj_view,
    history_view,
    mechanic_view,
    proposal_view,
    rule_view,
)
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.outbound.handwork import item_json, open_items, status_lines
from speakerbot.service import GameService, Unreadable

USER_ERRORS = (*_COMMAND_ERRORS, Unreadable, OSError, UnicodeDecodeError)


def admin(args: argparse.Namespace) -> int:
    """Run one ADMIN command as the host; print the outcome (exit 1 when refused)."""
    text = _text(args.text) if args.text is not None else ""
    with started_game(args) as (_, service):
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
    """Print what SHOW PROPOSAL, SHOW RULE, SHOW CFJ or SHOW MECHANICS sends by mail.

    Exit 1: no such proposal, rule or CFJ.
    """
    if (args.what == "mechanics") != (args.number is None):
        raise CliError("usage: speakerbot show proposal|rule|cfj N, or speakerbot show "
                       "mechanics")
    with started_game(args) as (_, service):
        state = service.state()
        if args.what == "mechanics":
            if args.json:
                print_json([mechanic_view(found) for found in in_force(state)])
            else:
                print(service.lookup("SHOW MECHANICS"), end="")
            return 0
        found = _shown(service, state, args.what, args.number)
        if found is None:
            # The mail's own answer says what there is instead.
            message = service.lookup(f"SHOW {args.what.upper()}", args.number).strip()
            raise NotFound(message)
        if args.json:
            print_json(found)
        else:
            print(service.lookup(f"SHOW {args.what.upper()}", args.number), end="")
    return 0


def _shown(service: GameService, state: GameState, what: str, number: int) -> Json | None:
    """Return what ``show`` shows as JSON; None when there is no such thing."""
    if what == "rule":
        return rule_view(state, number)
    if what == "cfj":
        cfj = state.cfjs.get(number)
        return None if cfj is None else cfj_view(state, cfj)
    proposal = state.proposals.get(number)
    return None if proposal is None else proposal_view(state, proposal,
                                                       service.public_record())


def history(args: argparse.Namespace) -> int:
    """Print what HISTORY [N] sends by mail: the last N events of the public record."""
    with started_game(args) as (_, service):
        if args.json:
            count = min(args.count or lang.HISTORY_DEFAULT, lang.HISTORY_MAX)
            print_json(history_view(service.state(), service.public_record(), count))
        else:
            print(service.lookup("HISTORY", args.count), end="")
    return 0


def handwork(args: argparse.Namespace) -> int:
    """Print the open items of the hand work, and how to close one (``--json``: as data)."""
    with started_game(args) as (_, service):
        state = service.state()
    if args.json:
        print_json([item_json(item) for item in open_items(state)])
        return 0
    lines = status_lines(state)
    if not lines:
        print("Nothing is left to the Speaker's hand.")
        return 0
    print("Left to the Speaker's hand (speakerbot admin DONE <item> <reason> closes one, "
          "and so does ADMIN RULE of a rule it names):")
    for line in lines:
        print(f"  {line}")
    return 0
