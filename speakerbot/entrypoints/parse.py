"""``speakerbot parse FILE``: read one raw message and print its parse as JSON.

The JSON object is built by :func:`speakerbot.mail.inbound.parse_json.parse_to_json`,
which documents its keys.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from speakerbot.mail.inbound.authentication import AuthPolicy
from speakerbot.mail.inbound.parse_json import parse_to_json
from speakerbot.mail.inbound.reading import DEFAULT_MAX_BYTES

__all__ = ["main", "parse"]


def main(argv: Sequence[str] | None = None, *, auth: AuthPolicy | None = None,
         max_bytes: int | None = None, game_addresses: Sequence[str] = ()) -> int:
    """Run ``speakerbot parse FILE`` (``-`` reads standard input); return the exit status.

    ``argv`` holds the arguments after ``parse``; ``auth`` and ``max_bytes`` come from the
    configuration when one is given. Prints one JSON object and
    returns 0, also when the message has errors; returns 2 when the file cannot
    be read or the arguments are wrong.
    """
    parser = argparse.ArgumentParser(
        prog="speakerbot parse",
        description="Read one raw email message and print what speakerbot reads in it, as JSON.",
    )
    parser.add_argument("file", help="the message as received (.eml), or - for standard input")
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        help=f"refuse larger messages (default {DEFAULT_MAX_BYTES})",
    )
    parser.add_argument("--loop-token", default=None, help="the game's own X-Loop value")
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.file == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as handle:
                raw = handle.read()
    except OSError as exc:
        print(f"speakerbot parse: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    # Judged as if it arrived now, as the daemon would judge it on arrival.
    output = parse_to_json(raw, max_bytes=max_bytes or args.max_bytes,
                           loop_token=args.loop_token, auth=auth,
                           game_addresses=game_addresses, received=datetime.now(UTC))
    print(json.dumps(output, ensure_ascii=False))
    return 0


def parse(args: argparse.Namespace) -> int:
    """Run ``speakerbot parse`` from the command line's arguments."""
    if not args.config:
        return main([args.file])
    # With a configuration, the sender is checked as the game would check it (only then is
    # the configuration's schema imported: reading one message should start at once).
    import os

    from speakerbot.config import GAME_ENV, ConfigError, load_settings, resolve_config_path
    from speakerbot.entrypoints.cli import CliError

    try:
        settings = load_settings(resolve_config_path(args.config, os.environ),
                                 game=getattr(args, "game", None) or os.environ.get(GAME_ENV))
    except ConfigError as error:
        raise CliError(str(error)) from None
    policy = AuthPolicy(settings.auth.require, settings.auth.authserv_id)
    game = settings.game
    return main([args.file], auth=policy, max_bytes=settings.limits.max_message_size,
                game_addresses=[a for a in (game.address, game.list) if a])
