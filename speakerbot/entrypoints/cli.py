"""The ``speakerbot`` command line: its arguments, and the dispatch to each subcommand.

``-c/--config PATH`` is accepted before or after the subcommand; without it the file is
``$SPEAKERBOT_CONFIG``, else ``config/speakerbot.toml``. Only the module of the subcommand
asked for is imported, so that ``--help`` and ``parse`` start at once.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence


class CliError(Exception):
    """A problem the user can fix; printed without a traceback, exit status 2."""


# Where each subcommand's handler lives: the light ones need not import the daemon's stack.
_MODULES = {"parse": "speakerbot.entrypoints.parse",
            "site_build": "speakerbot.entrypoints.site",
            "site_serve": "speakerbot.entrypoints.site",
            "record_export": "speakerbot.entrypoints.record",
            "record_verify": "speakerbot.entrypoints.record",
            "admin": "speakerbot.entrypoints.desk",
            "show": "speakerbot.entrypoints.desk",
            "history": "speakerbot.entrypoints.desk"}
_DEFAULT_MODULE = "speakerbot.entrypoints.commands"


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser for every subcommand."""
    config = argparse.ArgumentParser(add_help=False)
    config.add_argument("-c", "--config", default=argparse.SUPPRESS,
                        help="the config file (default: $SPEAKERBOT_CONFIG, else "
                             "config/speakerbot.toml)")
    parser = argparse.ArgumentParser(prog="speakerbot", parents=[config],
                                     description="An automated Speaker for Nomic played by email.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help_text, parents=[config])

    rulesets = command("rulesets", "list the preset rulesets, or show one")
    rulesets.add_argument("action", nargs="?", choices=["show"], help="show a preset's rules")
    rulesets.add_argument("name", nargs="?", help="the preset to show")
    rulesets.set_defaults(handler="rulesets")

    _add_games(command, config)

    run = command("run", "run the daemon in the foreground")
    run.add_argument("--once", action="store_true",
                     help="process everything waiting and due, send the outbox, and exit")
    run.set_defaults(handler="run")

    command("status", "show players, scores, open proposals and CFJs, the outbox").set_defaults(
        handler="status")

    db = command("db", "database maintenance")
    db_commands = db.add_subparsers(dest="db_command", metavar="ACTION")
    db_commands.add_parser("upgrade", help="run migrations", parents=[config]).set_defaults(
        handler="db_upgrade")

    _add_inbound(command("inbound", "see stored inbound mail and put set-aside mail back"),
                 config)
    _add_desk(command)

    parse = command("parse", "show how a message is understood, as JSON")
    parse.add_argument("file", help="the message file, or - for standard input")
    parse.set_defaults(handler="parse")

    _add_site(command("site", "build the game's web archive, or preview it"), config)
    _add_record(command("record", "export the game's record, or verify its hash chain"),
                config)

    demo = command("demo", "play a short scripted game over real LMTP and SMTP on loopback")
    demo.add_argument("--voting-period", default="20s", help="the demo's voting period")
    demo.add_argument("--quiet", action="store_true", help="print only the summary")
    demo.set_defaults(handler="demo")
    return parser


def _add_inbound(inbound: argparse.ArgumentParser, config: argparse.ArgumentParser) -> None:
    """Add ``inbound list | show ID | retry ID``."""
    inbound_commands = inbound.add_subparsers(dest="inbound_command", metavar="ACTION")
    listing = inbound_commands.add_parser("list", help="list stored mail, newest first",
                                          parents=[config])
    listing.add_argument("--status", choices=["new", "retry", "processed", "skipped",
                                              "held", "unconfirmed", "set_aside"],
                         help="only mail with this status")
    listing.add_argument("--limit", type=int, default=100, help="at most this many (100)")
    listing.set_defaults(handler="inbound_list")
    show = inbound_commands.add_parser("show", help="show one message as stored",
                                       parents=[config])
    show.add_argument("id", type=int)
    show.set_defaults(handler="inbound_show")
    retry = inbound_commands.add_parser("retry", help="process a set-aside message again",
                                        parents=[config])
    retry.add_argument("id", type=int)
    retry.set_defaults(handler="inbound_retry")


def _add_desk(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """Add ``admin WORDS...``, ``show proposal|rule|cfj N`` and ``history [N]``."""
    admin = command("admin", "run an ADMIN command as the host (admin SCORE alice@example.org "
                    "+5 why), recorded and announced as by mail")
    admin.add_argument("words", nargs="+", metavar="WORD",
                       help="the ADMIN line without ADMIN (put -- before words that begin "
                            "with --)")
    admin.add_argument("--text", metavar="FILE",
                       help="the lines that follow the ADMIN line, as in a mail (ADMIN RULE "
                            "ENACT or AMEND: the text, then END RULE); - for standard input")
    admin.set_defaults(handler="admin")

    show = command("show", "print what SHOW PROPOSAL, SHOW RULE or SHOW CFJ sends by mail")
    show.add_argument("what", choices=["proposal", "rule", "cfj"])
    show.add_argument("number", type=_count)
    show.set_defaults(handler="show")

    history = command("history", "print what HISTORY sends by mail: the last N events of the "
                      "public record (20)")
    history.add_argument("count", nargs="?", type=_count, metavar="N")
    history.set_defaults(handler="history")


def _count(text: str) -> int:
    """Read a positive whole number (a proposal's, rule's or CFJ's, or a count of events)."""
    if not text.isascii() or not text.isdigit() or not 0 < int(text) < 10**9:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to 999999999")
    return int(text)


def _add_site(site: argparse.ArgumentParser, config: argparse.ArgumentParser) -> None:
    """Add ``site build OUTDIR | serve [--port N]``."""
    site_commands = site.add_subparsers(dest="site_command", metavar="ACTION")
    build = site_commands.add_parser("build", help="write the archive to a folder",
                                     parents=[config])
    build.add_argument("outdir", help="the folder (made a link to the new build, swapped in "
                                      "whole)")
    build.set_defaults(handler="site_build")
    serve = site_commands.add_parser("serve", help="build the archive and serve it on "
                                     "127.0.0.1 for a preview", parents=[config])
    serve.add_argument("--port", type=int, default=8000, help="the port (8000; 0: any free)")
    serve.set_defaults(handler="site_serve")


def _add_games(command: Callable[[str, str], argparse.ArgumentParser],
               config: argparse.ArgumentParser) -> None:
    """Add ``init [--force [--yes]]``, ``new-game [--ruleset NAME]``, ``player add EMAIL NAME``."""
    init = command("init", "create the database and start the configured game")
    init.add_argument("--force", action="store_true",
                      help="delete an existing game first (with --yes; a copy of its record is "
                           "written first)")
    init.add_argument("--yes", action="store_true",
                      help="with --force: yes, delete the game this database holds")
    init.set_defaults(handler="init")

    new_game = command("new-game", "start the next game in this database, once the last is "
                       "over (the record keeps every game)")
    new_game.add_argument("--ruleset", help="the preset of the next game (default: the "
                          "configured one)")
    new_game.set_defaults(handler="new_game")

    player = command("player", "manage players")
    player_commands = player.add_subparsers(dest="player_command", metavar="ACTION")
    add = player_commands.add_parser("add", help="register a player", parents=[config])
    add.add_argument("email")
    add.add_argument("name")
    add.set_defaults(handler="player_add")


def _add_record(record: argparse.ArgumentParser, config: argparse.ArgumentParser) -> None:
    """Add ``record export [--public] FILE | verify [FILE]``."""
    record_commands = record.add_subparsers(dest="record_command", metavar="ACTION")
    export = record_commands.add_parser("export", help="write the record as JSONL, one event "
                                        "a line with its hash chain", parents=[config])
    export.add_argument("--public", action="store_true",
                        help="the public record only (what players may see)")
    export.add_argument("file", help="the file to write, or - for standard output")
    export.set_defaults(handler="record_export")
    verify = record_commands.add_parser("verify", help="check the hash chain of the database, "
                                        "or of an export", parents=[config])
    verify.add_argument("file", nargs="?", help="an export (default: the database)")
    verify.set_defaults(handler="record_verify")


def _handler(name: str) -> tuple[Callable[[argparse.Namespace], int],
                                tuple[type[Exception], ...]]:
    """Import the module of a subcommand; return its handler and the errors it reports."""
    module = importlib.import_module(_MODULES.get(name, _DEFAULT_MODULE))
    return getattr(module, name), (CliError, *getattr(module, "USER_ERRORS", ()))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "config"):
        args.config = None
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    handler, user_errors = _handler(args.handler)
    try:
        status: int = handler(args)
    except user_errors as error:
        print(f"speakerbot: {error}", file=sys.stderr)
        return 2
    return status
