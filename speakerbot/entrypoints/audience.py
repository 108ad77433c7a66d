"""``speakerbot observers list | remove ADDRESS``: the host's view of who follows the game.

Observers are kept by the service (see ``speakerbot.service.observing``); adding one takes
the address's own OBSERVE and its confirmation, so the host can only remove. Also
``speakerbot player digest EMAIL on|off``: how a player or observer gets the public mail
(``speakerbot.service.digests``); and ``speakerbot player welcome (--all | EMAIL...)``, the
welcome letter again, or for an import's players (``speakerbot.service.welcoming``).
"""

from __future__ import annotations

import argparse

from speakerbot.addresses import canonical_address
from speakerbot.entrypoints.cli import CliError, NotFound
from speakerbot.entrypoints.commands import USER_ERRORS as COMMAND_ERRORS
from speakerbot.entrypoints.commands import print_json
from speakerbot.entrypoints.opening import started_game
from speakerbot.mail.outbound.compose import format_time
from speakerbot.service import ServiceError
from speakerbot.service.digests import choose_at_desk, digest_time
from speakerbot.service.welcoming import welcome_players

# The observers' commands read the configuration: a fault in it is said in one line.
USER_ERRORS = COMMAND_ERRORS


def _address(text: str) -> str:
    """Return the address given on the command line, canonical; refuse what is none."""
    address = canonical_address(text)
    if address is None:
        raise CliError(f"{text!r} is not an email address")
    return address


def observers_list(args: argparse.Namespace) -> int:
    """Print every observer and since when, oldest first."""
    with started_game(args) as (_, service):
        observers, _ = service.audience()
        if args.json:
            print_json([{"address": address, "since": since.isoformat()}
                        for address, since in observers.items()])
            return 0
        for address, since in observers.items():
            print(f"{address}  since {format_time(since)}")
        if not observers:
            print("no observers")
    return 0


def observers_remove(args: argparse.Namespace) -> int:
    """Stop an address observing the game; exit 1 when it was no observer."""
    address = _address(args.address)
    with started_game(args) as (_, service):
        if not service.remove_observer(address):
            raise NotFound(f"{address} is no observer of this game")
    print(f"{address} no longer observes the game")
    return 0


def player_digest(args: argparse.Namespace) -> int:
    """Put a player or observer in digest mode (``on``) or take them out; exit 1: neither."""
    address = _address(args.email)
    on = args.mode == "on"
    with started_game(args) as (settings, service):
        try:
            changed = choose_at_desk(service.deps, address, on)
        except ServiceError as error:
            raise NotFound(str(error)) from None
    state = "in digest mode" if on else "not in digest mode"
    if not changed:
        print(f"{address} was {state} already")
    elif on:
        print(f"{address} now gets the public mail in one digest a day at "
              f"{digest_time(settings.game)}")
    else:
        print(f"{address} now gets each public message as it is sent")
    return 0


def player_welcome(args: argparse.Namespace) -> int:
    """Queue the welcome for the players named, or every player with ``--all``."""
    if bool(args.all) == bool(args.email):
        raise CliError("name the players to welcome, or give --all (not both)")
    addresses = [_address(email) for email in args.email]
    with started_game(args) as (_, service):
        try:
            welcomed = welcome_players(service.deps, addresses)
        except ServiceError as error:
            raise NotFound(str(error)) from None
    print(f"a welcome for {len(welcomed)} player{'' if len(welcomed) == 1 else 's'} is in "
          "the outbox: " + ", ".join(welcomed))
    return 0
