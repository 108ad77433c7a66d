"""The host's desk: ADMIN commands and lookups from the command line, as mail would have them.

``speakerbot admin WORDS...`` is one ADMIN line, read by the mail language and applied by
the mail path's own translation and apply code (``applying``), as the host, who needs no
password on the server. Time passes up to the command first, as it does before a message
is read; the events, the announcements and any digest commit in one transaction, exactly
as the mail twin's would. ``speakerbot show`` and ``history`` answer with the mail's own
lookups (``answering``).
"""


from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from speakerbot.engine import GameState
from speakerbot.engine import events as e
from speakerbot.engine import tick as engine_tick
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.translate import Query
from speakerbot.service.additions import are_additions, keep_for_announcing
from speakerbot.service.answering import LOOKUP_VERBS, Lookups, queue_digest
from speakerbot.service.applying import Run, run_one, translated
from speakerbot.service.deps import Deps
from speakerbot.service.ticks import tick
from speakerbot.service.unit_of_work import Batch, UnitOfWork, open_unit

LOOKUPS = LOOKUP_VERBS
"""The lookups the desk answers, named as the mail commands are."""


class Unreadable(ValueError):
    """The words are not an ADMIN command the mail language can read: its reason.

    A user's error: the command line reports it as it reports a ``ServiceError``.
    """


@dataclass(frozen=True)
class DeskOutcome:
    """What one ADMIN command from the desk did.

    ``command``: the command as understood (as the mail reply writes it); ``result``: what
    was done, or the refusal, in the words of the mail reply; ``applied``: whether it was
    done; ``events``: what the record gained (the deadlines settled first, then the
    command's own).
    """

    command: str
    result: str
    applied: bool
    events: tuple[e.Event, ...]


def admin_lines(words: Sequence[str] | str, text: str = "") -> str:
    """Return the body a mail would hold for ``words``: one ADMIN line, then ``text``.

    The words are one line (a line break in them is refused: each command is a command of
    its own); a leading ``ADMIN`` is allowed and not doubled. ``text``: the lines that follow
    the ADMIN line in a mail, for ADMIN RULE ENACT or AMEND (END RULE included).
    """
    joined = words if isinstance(words, str) else " ".join(words)
    if any(mark in joined for mark in ("\n", "\r", "\x0b", "\x0c", "\x85", "\u2028", "\u2029")):
        raise Unreadable("the words are one ADMIN line; give each command its own "
                         "speakerbot admin")
    said = joined.split(None, 1)
    if said and said[0].upper() == "ADMIN":
        joined = said[1] if len(said) > 1 else ""
    body = f"ADMIN {joined.strip()}"
    return f"{body}\n{text}" if text else body


def host_command(deps: Deps, words: Sequence[str] | str, text: str = "") -> DeskOutcome:
    """Run one ADMIN command as the host, recorded and announced as its mail twin.

    ``Unreadable`` (with the parser's reason) when the words are not one ADMIN command;
    a refusal is an outcome (``applied`` False), with the mail reply's reason.
    """
    parsed = lang.parse_commands("", admin_lines(words, text), host=True,
                                 max_command_lines=deps.settings.limits.max_command_lines)
    if parsed.errors:
        raise Unreadable("; ".join(error.reason for error in parsed.errors))
    if len(parsed.commands) != 1 or not isinstance(parsed.commands[0], lang.AdminCommand):
        raise Unreadable("the words are not one ADMIN command")
    # A backlog of deadlines first, in bounded transactions; and the host's additions still
    # to announce, unless this is one more (then it is announced with them).
    tick(deps, additions=not isinstance(parsed.commands[0], lang.AdminAdd))
    with deps.states.lock, open_unit(deps) as uow:
        return run_admin(uow, deps, parsed)


def run_admin(uow: UnitOfWork, deps: Deps, parsed: lang.ParseResult) -> DeskOutcome:
    """Run a host's ADMIN command, read already, in ``uow``: time passes up to it first."""
    batch = settled(uow, deps)
    sender = host_address(deps, batch.state)
    commands, errors = translated(deps, parsed, batch.state, sender, deps.clock(), None)
    if errors:
        raise Unreadable("; ".join(reason for _, _, reason in errors))
    run = Run(batch.state, uow.luck(), uow.first_seed, uow.session)
    for command, action in commands:
        run_one(deps, run, command, action, sender, deps.clock())
    # A player added is announced at the next tick, with the others added since.
    additions = are_additions(run.events)
    if not additions:
        batch.outgoing += uow.announce(run.events, run.work, batch.state, earlier=batch.events)
    uow.record([*batch.events, *run.events], run.work, batch.outgoing)
    if additions:
        keep_for_announcing(uow, deps, len(run.events))
    if run.digest_asked:
        stamp = deps.clock().strftime("%Y%m%d%H%M%S%f")
        queue_digest(uow, deps, run.work, f"digest:desk:{stamp}")
    outcome = run.outcomes[-1]
    return DeskOutcome(outcome.command, outcome.result, run.applied,
                       (*batch.events, *run.events))


def settled(uow: UnitOfWork, deps: Deps) -> Batch:
    """Let time pass up to now, as before a message is read (not past waiting mail)."""
    start = uow.state()
    now = deps.clock()
    waiting = deps.store.earliest_pending(uow.session)
    until = now if waiting is None else min(now, waiting)
    state, events = engine_tick(start, until, uow.luck(),
                                max_rule_bytes=deps.settings.limits.max_rule_bytes)
    return Batch(uow, state, list(events), uow.announce(events, state, start))


def host_address(deps: Deps, state: GameState) -> str:
    """Return the address ADMIN runs as: the configured host's, as its mail twin's sender."""
    host = deps.settings.game.speaker
    return host if host in (state.speaker, state.host) else state.host


def lookup(deps: Deps, verb: str, number: int | None = None) -> str:
    """Answer SHOW PROPOSAL, SHOW RULE, SHOW CFJ or HISTORY as the mail reply does.

    ``number``: what SHOW shows, or how many events HISTORY gives (default as by mail).
    """
    if verb not in LOOKUPS:
        raise ValueError(f"no lookup {verb!r}")
    if verb == "HISTORY" and number is None:
        number = lang.HISTORY_DEFAULT
    return Lookups(deps, deps.states.state(), None, ()).answer(Query(0, verb, number))
