"""The ``speakerbot`` command line: its arguments, and the dispatch to each subcommand.

``-c/--config PATH`` and ``--log-level LEVEL`` are accepted before or after the
subcommand; without ``--config`` the file is ``$SPEAKERBOT_CONFIG``, else
``config/speakerbot.toml``. Only the module of the subcommand asked for is imported, so
that ``--help`` and ``parse`` start at once. docs/cli.md describes every command, its exit
statuses and its ``--json`` shapes.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence

from speakerbot import __version__


class CliError(Exception):
    """A problem the user can fix; printed without a traceback, exit status 2."""

    status = 2


class NotFound(CliError):
    """What was asked for does not exist (a proposal, a rule, a message...): exit status 1."""

    status = 1


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
"""The levels ``--log-level`` takes."""

# The libraries whose INFO lines would drown the daemon's own (aiosmtpd logs every LMTP
# command to "mail.log", APScheduler every job): kept at WARNING unless DEBUG is asked for.
THIRD_PARTY_LOGGERS = ("mail.log", "apscheduler", "imapclient", "sqlalchemy", "alembic",
                       "asyncio", "urllib3", "selenium", "flufl.bounce")

# Exit status for a closed output pipe: what a shell reports for a command killed by
# SIGPIPE (128 + 13), as ``cat`` or ``yes`` would end.
BROKEN_PIPE_STATUS = 141


# Where each subcommand's handler lives: the light ones need not import the daemon's stack.
_MODULES = {"parse": "speakerbot.entrypoints.parse",
            "site_build": "speakerbot.entrypoints.site",
            "site_serve": "speakerbot.entrypoints.site",
            "record_export": "speakerbot.entrypoints.record",
            "record_verify": "speakerbot.entrypoints.record",
            "admin": "speakerbot.entrypoints.desk",
            "show": "speakerbot.entrypoints.desk",
            "history": "speakerbot.entrypoints.desk",
            "handwork": "speakerbot.entrypoints.desk",
            "run": "speakerbot.entrypoints.running",
            "doctor": "speakerbot.entrypoints.doctor",
            "games": "speakerbot.entrypoints.games",
            "db_upgrade": "speakerbot.entrypoints.games",
            "rulesets": "speakerbot.entrypoints.rulesets",
            "import_game": "speakerbot.entrypoints.rulesets",
            "config_example": "speakerbot.entrypoints.rulesets",
            "observers_list": "speakerbot.entrypoints.audience",
            "observers_remove": "speakerbot.entrypoints.audience",
            "player_digest": "speakerbot.entrypoints.audience",
            "player_welcome": "speakerbot.entrypoints.audience"}
_DEFAULT_MODULE = "speakerbot.entrypoints.commands"


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser for every subcommand."""
    config = argparse.ArgumentParser(add_help=False)
    config.add_argument("-c", "--config", default=argparse.SUPPRESS,
                        help="the config file (default: $SPEAKERBOT_CONFIG, else "
                             "config/speakerbot.toml)")
    config.add_argument("-g", "--game", default=argparse.SUPPRESS, metavar="ID",
                        help="the game to act on, by its id in the config (default: "
                             "$SPEAKERBOT_GAME; needed when the config has several games)")
    config.add_argument("--log-level", default=argparse.SUPPRESS, type=str.upper,
                        choices=LOG_LEVELS, metavar="LEVEL",
                        help="log at this level and above to standard error: DEBUG, INFO, "
                             "WARNING or ERROR (default: INFO for run, WARNING otherwise)")
    parser = argparse.ArgumentParser(prog="speakerbot", parents=[config],
                                     description="An automated Speaker for Nomic played by email.")
    parser.add_argument("--version", action="version", version=f"speakerbot {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return _action(commands, name, help_text, config)

    _add_rulesets(command)
    example = _action(_actions(command("config", "the configuration file")), "example",
                      "print the example configuration, to copy and edit", config)
    example.set_defaults(handler="config_example")
    _add_games(command, config)
    _add_doctor(command)

    run = command("run", "run the daemon in the foreground")
    run.add_argument("--once", action="store_true",
                     help="process everything waiting and due, send the outbox, and exit")
    run.set_defaults(handler="run")

    status = command("status", "show players, scores, open proposals and CFJs, the outbox")
    _add_json(status)
    status.set_defaults(handler="status")

    db_commands = _actions(command("db", "database maintenance"))
    _action(db_commands, "upgrade", "bring the database's schema up to date (run the "
            "migrations)", config).set_defaults(handler="db_upgrade")

    _add_inbound(command("inbound", "see stored inbound mail and put set-aside mail back"),
                 config)
    _add_observers(command("observers", "see who observes the game (OBSERVE), or remove "
                           "one"), config)
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


_Subparsers = argparse._SubParsersAction  # argparse's own type for add_subparsers()


def _action(group: _Subparsers[argparse.ArgumentParser], name: str, help_text: str,
            config: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add one subcommand; its help line is also the description its own --help shows."""
    return group.add_parser(name, help=help_text, description=help_text[:1].upper()
                            + help_text[1:] + ".", parents=[config])


def _actions(command: argparse.ArgumentParser) -> _Subparsers[argparse.ArgumentParser]:
    """Give a command its ACTIONs; without one, the command's own help is printed (exit 2)."""
    command.set_defaults(handler=None, asked=command)
    return command.add_subparsers(metavar="ACTION")


def _add_json(command: argparse.ArgumentParser) -> None:
    command.add_argument("--json", action="store_true",
                         help="print JSON instead (docs/cli.md gives its shape)")


def _add_inbound(inbound: argparse.ArgumentParser, config: argparse.ArgumentParser) -> None:
    """Add ``inbound list | show ID | retry ID``."""
    inbound_commands = _actions(inbound)
    listing = _action(inbound_commands, "list", "list stored mail, newest first", config)
    listing.add_argument("--status", choices=["new", "retry", "processed", "skipped",
                                              "held", "unconfirmed", "set_aside"],
                         help="only mail with this status")
    listing.add_argument("--limit", type=int, default=100, help="at most this many (100)")
    _add_json(listing)
    listing.set_defaults(handler="inbound_list")
    show = _action(inbound_commands, "show", "show one message as stored, its password "
                   "masked", config)
    show.add_argument("id", type=int)
    show.set_defaults(handler="inbound_show")
    retry = _action(inbound_commands, "retry", "process a set-aside message again", config)
    retry.add_argument("id", type=int)
    retry.set_defaults(handler="inbound_retry")


def _add_observers(observers: argparse.ArgumentParser,
                   config: argparse.ArgumentParser) -> None:
    """Add ``observers list | remove ADDRESS``."""
    actions = _actions(observers)
    listing = _action(actions, "list", "list the observers, oldest first", config)
    _add_json(listing)
    listing.set_defaults(handler="observers_list")
    remove = _action(actions, "remove", "stop an address observing the game", config)
    remove.add_argument("address")
    remove.set_defaults(handler="observers_remove")


def _add_desk(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """Add ``admin WORDS...``, ``show``, ``history [N]`` and ``handwork``."""
    admin = command("admin", "run an ADMIN command as the host (admin SCORE alice@example.org "
                    "+5 why), recorded and announced as by mail")
    admin.add_argument("words", nargs="+", metavar="WORD",
                       help="the ADMIN line without ADMIN (put -- before words that begin "
                            "with --)")
    admin.add_argument("--text", metavar="FILE",
                       help="the lines that follow the ADMIN line, as in a mail (ADMIN RULE "
                            "ENACT or AMEND: the text, then END RULE); - for standard input")
    admin.set_defaults(handler="admin")

    show = command("show", "print what SHOW PROPOSAL, SHOW RULE, SHOW CFJ or SHOW MECHANICS "
                   "sends by mail")
    show.add_argument("what", choices=["proposal", "rule", "cfj", "mechanics"])
    show.add_argument("number", type=_count, nargs="?",
                      help="the proposal, rule or CFJ (mechanics takes none)")
    _add_json(show)
    show.set_defaults(handler="show")

    history = command("history", "print what HISTORY sends by mail: the last N events of the "
                      "public record (20)")
    history.add_argument("count", nargs="?", type=_count, metavar="N")
    _add_json(history)
    history.set_defaults(handler="history")

    handwork = command("handwork", "list what adopted proposals left to the Speaker's hand, "
                       "still open (admin DONE closes an item)")
    _add_json(handwork)
    handwork.set_defaults(handler="handwork")


def _add_doctor(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """Add ``doctor [--nameserver ADDRESS[:PORT]] [--json]``."""
    doctor = command("doctor", "check the setup: the config, the mail servers, the game's "
                     "DNS records, and the receiving server's verdicts on the newest mail")
    doctor.add_argument("--nameserver", metavar="ADDRESS[:PORT]",
                        help="ask this DNS server (default: the system's resolver)")
    _add_json(doctor)
    doctor.set_defaults(handler="doctor")


def _count(text: str) -> int:
    """Read a positive whole number (a proposal's, rule's or CFJ's, or a count of events)."""
    if not text.isascii() or not text.isdigit() or not 0 < int(text) < 10**9:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to 999999999")
    return int(text)


def _add_site(site: argparse.ArgumentParser, config: argparse.ArgumentParser) -> None:
    """Add ``site build OUTDIR | serve [--port N]``."""
    site_commands = _actions(site)
    build = _action(site_commands, "build", "write the archive to a folder", config)
    build.add_argument("outdir", help="the folder (made a link to the new build, swapped in "
                                      "whole)")
    build.set_defaults(handler="site_build")
    serve = _action(site_commands, "serve", "build the archive and serve it on 127.0.0.1 "
                    "for a preview", config)
    serve.add_argument("--port", type=int, default=8000, help="the port (8000; 0: any free)")
    serve.set_defaults(handler="site_serve")


def _add_rulesets(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """Add ``rulesets [show NAME | export NAME | check FILE]`` and ``import FILE``."""
    rulesets = command("rulesets", "list the preset rulesets, show or export one, or check a "
                       "ruleset file")
    rulesets.add_argument("action", nargs="?", choices=["show", "export", "check"],
                          help="show a preset's rules, export a preset's file to edit, or "
                               "check a ruleset file")
    rulesets.add_argument("name", nargs="?", metavar="NAME|FILE",
                          help="the preset to show or export, or the file to check")
    rulesets.set_defaults(handler="rulesets")
    imported = command("import", "start the configured game from a snapshot of a hand-run "
                       "game (its rules, players, scores, open proposals)")
    imported.add_argument("file", help="the snapshot, a TOML file (see docs/configuration.md)")
    imported.add_argument("--welcome", action="store_true",
                          help="also send each player the welcome a new player gets (else "
                               "speakerbot player welcome --all sends it later)")
    imported.set_defaults(handler="import_game")


def _add_games(command: Callable[[str, str], argparse.ArgumentParser],
               config: argparse.ArgumentParser) -> None:
    """Add ``games``, ``init [--force [--yes]]``, ``new-game [--ruleset NAME]``, ``player ...``."""
    games = command("games", "list the config's games: players, open proposals, state, and "
                    "the worker holding each")
    _add_json(games)
    games.set_defaults(handler="games")
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

    player_commands = _actions(command("player", "register and list players"))
    add = _action(player_commands, "add",
                  "register a player (as ADMIN ADD <email> <name> by mail)", config)
    add.add_argument("email")
    add.add_argument("name")
    add.set_defaults(handler="player_add")
    listing = _action(player_commands, "list", "list the players, in turn order, with their "
                      "scores, roles and absences", config)
    _add_json(listing)
    listing.set_defaults(handler="player_list")
    digest = _action(player_commands, "digest", "send a player or observer the public mail "
                     "in one digest a day (on), or each message as it goes (off), as DIGEST "
                     "ON and DIGEST OFF by mail", config)
    digest.add_argument("email")
    digest.add_argument("mode", choices=("on", "off"))
    digest.set_defaults(handler="player_digest")
    welcome = _action(player_commands, "welcome", "send players the welcome a new player "
                      "gets (an import's players get none unless asked)", config)
    welcome.add_argument("email", nargs="*", help="the players to welcome")
    welcome.add_argument("--all", action="store_true", help="welcome every player")
    welcome.set_defaults(handler="player_welcome")


def _add_record(record: argparse.ArgumentParser, config: argparse.ArgumentParser) -> None:
    """Add ``record export [--public] FILE | verify [FILE]``."""
    record_commands = _actions(record)
    export = _action(record_commands, "export", "write the record as JSONL, one event a line "
                     "with its hash chain", config)
    export.add_argument("--public", action="store_true",
                        help="the public record only (what players may see)")
    export.add_argument("file", help="the file to write, or - for standard output")
    export.set_defaults(handler="record_export")
    verify = _action(record_commands, "verify", "check the hash chain of the database, or "
                     "of an export", config)
    verify.add_argument("file", nargs="?", help="an export (default: the database)")
    verify.set_defaults(handler="record_verify")


def _handler(name: str) -> tuple[Callable[[argparse.Namespace], int],
                                tuple[type[Exception], ...]]:
    """Import the module of a subcommand; return its handler and the errors it reports."""
    module = importlib.import_module(_MODULES.get(name, _DEFAULT_MODULE))
    return getattr(module, name), (CliError, *getattr(module, "USER_ERRORS", ()))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        status = _main(argv)
        # Output to a pipe is buffered: a reader gone away is found out here at the latest.
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped reading (``speakerbot status | head -1``): not an error to
        # report. Standard output goes to /dev/null so that the interpreter's last flush
        # at exit does not fail again with a warning.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE_STATUS
    return status


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "config"):
        args.config = None
    if not hasattr(args, "game"):
        args.game = None
    if getattr(args, "handler", None) is None:
        # No command (the whole help), or a command without its ACTION (that command's).
        getattr(args, "asked", parser).print_help(sys.stderr)
        return 2
    configure_logging(getattr(args, "log_level", None)
                      or ("INFO" if args.handler == "run" else "WARNING"))
    handler, user_errors = _handler(args.handler)
    try:
        status: int = handler(args)
    except BrokenPipeError:
        raise  # an OSError, but not the user's to fix: main ends quietly
    except user_errors as error:
        print(f"speakerbot: {error}", file=sys.stderr)
        return error.status if isinstance(error, CliError) else 2
    return status


def configure_logging(level: str) -> None:
    """Log ``level`` and above to standard error; other libraries' chatter at WARNING.

    At DEBUG every library logs as it will, for a host who is chasing a problem.
    """
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name in THIRD_PARTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET if level == "DEBUG" else
                                         max(logging.WARNING, logging.getLevelName(level)))
    # The database's statements at most, never the rows they read: rows hold the game's
    # secrets (its seeds, sealed ballots), which no log line may show.
    logging.getLogger("sqlalchemy.engine").setLevel(logging.INFO if level == "DEBUG" else
                                                    logging.WARNING)
