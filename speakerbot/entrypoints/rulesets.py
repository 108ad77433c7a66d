"""``speakerbot rulesets`` (list, show, export, check) and ``speakerbot import``.

A group brings its own ruleset (a file in the presets' format, which ``rulesets export``
starts and ``rulesets check`` checks) or its game in progress (a snapshot ``import``
starts the configured game from). Faults are printed one a line, ``FILE:LINE: key:
what is wrong``, every one at once; a file with any fault changes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from speakerbot.engine.starting import ruleset_digest
from speakerbot.entrypoints.cli import CliError
from speakerbot.entrypoints.commands import USER_ERRORS as COMMAND_ERRORS
from speakerbot.entrypoints.opening import open_game, settings_from
from speakerbot.presets import (
    FileFaults,
    PresetError,
    export_text,
    is_ruleset_file,
    load_preset,
    preset_names,
    read_ruleset_file,
    summary,
)
from speakerbot.resources import example_config, rulesets_dir
from speakerbot.service.deps import now_utc
from speakerbot.service.speaker import read_import
from speakerbot.service.welcoming import welcome_players

USAGE = "usage: speakerbot rulesets [show NAME | export NAME | check FILE]"

# import reads the configuration: a fault in it is said in one line, as by every command.
USER_ERRORS = COMMAND_ERRORS


def config_example(args: argparse.Namespace) -> int:
    """Print the example configuration (shipped with the program, not only in a checkout)."""
    sys.stdout.write(example_config().read_text(encoding="utf-8"))
    return 0


def rulesets(args: argparse.Namespace) -> int:
    """List the presets, show or export one, or check a ruleset file."""
    if args.action is None:
        for name in preset_names():
            preset = load_preset(name)
            print(f"{name:<12} {preset.title:<44} {len(preset.rules):>3} rules")
        return 0
    if not args.name:
        raise CliError(USAGE)
    if args.action == "check":
        return _check(args.name)
    try:
        if args.action == "export":
            sys.stdout.write(export_text(args.name))
            return 0
        preset = load_preset(args.name)
    except PresetError as error:
        raise CliError(str(error)) from None
    for rule in preset.rules:
        print(f"{rule.number} ({'mutable' if rule.mutable else 'immutable'})")
        print(rule.text)
        print()
    return 0


def _check(name: str) -> int:
    """Check a ruleset file (or a preset by name): every fault and exit 1, or a summary."""
    path = Path(name)
    if not is_ruleset_file(name) and not path.exists() and name in preset_names():
        path = rulesets_dir() / f"{name}.toml"
    try:
        ruleset = read_ruleset_file(path)
    except FileFaults as faults:
        print(faults)
        return 1
    print(summary(ruleset, str(path)))
    return 0


def import_game(args: argparse.Namespace) -> int:
    """Start the configured game from a hand-run game's snapshot; tell its players."""
    settings = settings_from(args)
    path = Path(args.file)
    try:
        # Checked before the database is opened, so that a faulty snapshot creates nothing.
        read_import(settings, path, now_utc())
    except FileFaults as faults:
        print(faults, file=sys.stderr)
        return 1
    except PresetError as error:
        raise CliError(str(error)) from None
    with open_game(settings, upgrade=True) as service:
        if service.has_game():
            raise CliError("a game already exists in this database; import starts a new one "
                           "(speakerbot init --force --yes deletes the one there first)")
        service.import_game(path)
        state = service.state()
        print(f"imported {state.title} into {settings.game.name}: {len(state.rules)} rules, "
              f"{len(state.active_players())} players, next proposal {state.next_proposal}")
        print(f"ruleset digest: sha256 {ruleset_digest(state.rules.values())}")
        open_numbers = [str(p.number) for p in state.open_proposals()]
        if open_numbers:
            print(f"open proposals: {', '.join(open_numbers)}; their ballots start empty, and "
                  "each is distributed again so that the players vote anew")
        print("the players are told in the announcement waiting in the outbox; speakerbot run "
              "sends it")
        if args.welcome:
            welcomed = welcome_players(service.deps)
            print(f"and each of the {len(welcomed)} players gets the welcome a new player gets")
        else:
            print("speakerbot player welcome --all sends each player the welcome a new player "
                  "gets")
    return 0
