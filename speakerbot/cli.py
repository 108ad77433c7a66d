"""The ``speakerbot`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from speakerbot.presets import PresetError, load_preset, preset_names


def _rulesets(args: argparse.Namespace) -> int:
    if args.action is None:
        for name in preset_names():
            preset = load_preset(name)
            print(f"{name:<12} {preset.title:<44} {len(preset.rules):>3} rules")
        return 0
    if args.action != "show" or not args.name:
        print("usage: speakerbot rulesets [show NAME]", file=sys.stderr)
        return 2
    try:
        preset = load_preset(args.name)
    except PresetError as error:
        print(f"speakerbot: {error}", file=sys.stderr)
        return 2
    for rule in preset.rules:
        print(f"{rule.number} ({'mutable' if rule.mutable else 'immutable'})")
        print(rule.text)
        print()
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="speakerbot", description="An automated Speaker for "
                                     "Nomic played by email.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    rulesets = commands.add_parser("rulesets", help="list the preset rulesets, or show one")
    rulesets.add_argument("action", nargs="?", choices=["show"], help="show a preset's rules")
    rulesets.add_argument("name", nargs="?", help="the preset to show")
    rulesets.set_defaults(handler=_rulesets)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    status: int = args.handler(args)
    return status
