"""Applying a trusted message's commands, all or nothing, and writing its reply."""


from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from speakerbot.adapters.store import InboundRow
from speakerbot.config import LimitsSettings, Settings
from speakerbot.engine import GameState, RandomSource, apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.model import Choice
from speakerbot.engine.publicity import RECORD_VERSION
from speakerbot.engine.refusals import Refusal
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.reading import InboundMail, can_acknowledge
from speakerbot.mail.inbound.redaction import RIGHT, WRONG
from speakerbot.mail.inbound.translate import (
    AudienceRequest,
    DigestChoice,
    DigestRequest,
    NewGameRequest,
    Query,
    translate,
)
from speakerbot.mail.outbound.compose import Outgoing, format_time
from speakerbot.mail.outbound.replies import Outcome, command_text, outcome_of, receipts_of
from speakerbot.presets import PresetError, load_preset, load_ruleset
from speakerbot.service.answering import answers, limited_reply
from speakerbot.service.debating import argument_limit_errors
from speakerbot.service.deps import Deps
from speakerbot.service.digests import choose as choose_digest
from speakerbot.service.limits import public_limit_errors
from speakerbot.service.observing import Change, carry_out
from speakerbot.service.observing import answer as observer_answer
from speakerbot.service.policy import (
    ADMIN_DATE_SKEW,
    WRONG_PASSWORDS,
    day_start,
    not_a_player,
)
from speakerbot.service.reading import read_with_rules
from speakerbot.service.unit_of_work import Batch


def apply_trusted(deps: Deps, batch: Batch, row: InboundRow, mail: InboundMail,
                  parsed: lang.ParseResult, received: datetime, *, trusted: bool) -> None:
    """Apply a message's commands (if ``trusted``), and queue its reply and announcements."""
    before = batch.state
    admin_error = admin_refusal(deps, batch, row, mail, parsed, received, trusted)
    state, events, reply, digest_asked = apply_mail(
        deps, mail, parsed, batch.state, received, admin_error=admin_error, notes=batch.notes,
        batch=batch)
    batch.outgoing += batch.uow.announce(events, state, before, earlier=batch.events)
    batch.events += events
    batch.state = state
    if reply is not None and can_acknowledge(mail):
        batch.outgoing += limited_reply(deps, batch.uow, mail, reply, row)
    if digest_asked:
        batch.digests.append(f"digest:{row.message_id}:{row.id}")


def admin_refusal(deps: Deps, batch: Batch, row: InboundRow, mail: InboundMail,
                  parsed: lang.ParseResult, received: datetime,
                  trusted: bool) -> str | None:
    """Return why the message's ADMIN commands may not run (None: they may)."""
    host = (mail.sender or "") == deps.settings.game.speaker
    if (row.password_verdict == WRONG and host and trusted
            and deps.settings.game.admin_password):
        # Only mail the host's own mailbox sent: a forger cannot close ADMIN this way.
        count_wrong_password(deps, batch, row.received_at)
    if not any(cmd.verb == "ADMIN" for cmd in parsed.commands):
        return None
    if not deps.settings.game.admin_password:
        return ("ADMIN by mail is off: this game has no admin password ([game] "
                "admin_password); the host runs speakerbot admin on the server instead")
    closed = deps.store.get_meta("admin_closed_until", batch.uow.session)
    if closed and datetime.fromisoformat(closed) > row.received_at:
        return (f"ADMIN by mail is closed until {format_time(datetime.fromisoformat(closed))} "
                "after repeated wrong passwords")
    if not host or row.password_verdict != RIGHT:
        return ("admin commands are accepted only from the Speaker's address, in a "
                "message with the right PASSWORD line")
    if not trusted:
        return "admin commands need mail your provider authenticates (or a confirmation)"
    if mail.date is None or abs(mail.date - row.received_at) > ADMIN_DATE_SKEW:
        return ("admin mail must carry a Date within a day of its arrival; an old "
                "message sent again is not obeyed")
    return None


def count_wrong_password(deps: Deps, batch: Batch, at: datetime) -> None:
    """Five wrong passwords within an hour close ADMIN by mail for an hour."""
    session = batch.uow.session
    recent = [t for t in (deps.store.get_meta("wrong_passwords", session) or [])
              if datetime.fromisoformat(t) > at - timedelta(hours=1)]
    recent.append(at.isoformat())
    deps.store.set_meta(session, "wrong_passwords", recent[-WRONG_PASSWORDS:])
    closed = deps.store.get_meta("admin_closed_until", session)
    if len(recent) >= WRONG_PASSWORDS and not (closed and
                                               datetime.fromisoformat(closed) > at):
        until = at + timedelta(hours=1)
        deps.store.set_meta(session, "admin_closed_until", until.isoformat())
        body = deps.replies.renderer.render("admin_closed.txt", until=until)
        batch.outgoing.append(Outgoing("notice", (deps.settings.game.speaker,),
                                       "ADMIN by mail closed for an hour", body,
                                       f"admin-closed:{until.isoformat()}"))


def apply_mail(
    deps: Deps, mail: InboundMail, parsed: lang.ParseResult, state: GameState,
    received: datetime, *, admin_error: str | None = None,
    notes: Sequence[str] = (), batch: Batch,
) -> tuple[GameState, list[e.Event], str | None, bool]:
    """Apply a message's commands, each on its own, in order.

    A message with an error (a line not understood at all, a broken command) is applied not
    at all: the error may be the sender's correction of a line above it. Otherwise each
    command is applied or refused by itself, and a refusal leaves the others standing; a
    command that depends on one refused before it is refused naming it.
    Return the new state, the events, the reply, and whether it asked for the digest.
    ``batch``: the transaction it is applied in, whose record the lookups read.
    """
    sender = mail.sender or ""
    if mail.problem:
        return state, [], deps.replies.reply(state, sender, outcomes=(), errors=(),
                                             ignored=(), answers=(), applied=False,
                                             problem=mail.problem), False
    parsed = read_with_rules(deps, mail, parsed, state)  # a rule named by its title alone
    ignored, suggested = plain_words(parsed)
    commands, errors = translated(deps, parsed, state, sender, received, admin_error)
    if not errors:
        errors = argument_limit_errors(batch.uow, state, sender, parsed.commands,
                                       received)
    if errors:
        return state, [], deps.replies.reply(state, sender, outcomes=(), errors=errors,
                                             ignored=ignored, answers=(), applied=False,
                                             notes=notes, suggested=suggested), False
    run = Run(state, batch.uow.luck(), batch.uow.first_seed, batch.uow.session)
    for command, action in commands:
        run_one(deps, run, command, action, sender, received)
    carry_out(deps, batch.uow.session, run.audience, received)
    said = answers(deps, run.queries, run.work, sender, batch, run.events)
    reply = deps.replies.reply(run.work, sender, outcomes=run.outcomes, errors=(),
                               ignored=ignored, answers=said, applied=run.applied,
                               notes=notes, suggested=suggested,
                               unclear=deps.replies.not_understood_in(parsed.commands))
    return run.work, run.events, reply, run.digest_asked


def plain_words(parsed: lang.ParseResult) -> tuple[
        list[tuple[int, str]], list[tuple[int, str, tuple[str, ...], str]]]:
    """Split a message's ignored lines: plain words that say what a command does, and others.

    Each line in plain words (``I vote against 303``) comes with the exact lines to send.
    """
    ignored: list[tuple[int, str]] = []
    suggested: list[tuple[int, str, tuple[str, ...], str]] = []
    for item in parsed.ignored:
        found = lang.suggestion(item.text)
        if found is None:
            ignored.append((item.line, item.text))
        else:
            suggested.append((item.line, item.text, found.lines, found.note))
    return ignored, suggested


def translated(
    deps: Deps, parsed: lang.ParseResult, state: GameState, sender: str, received: datetime,
    admin_error: str | None,
) -> tuple[list[tuple[lang.Command, Action]], list[tuple[int, str, str]]]:
    """Translate a message's commands for the engine; or say what is wrong with them."""
    errors = [(err.line, err.text, err.reason) for err in parsed.errors]
    commands: list[lang.Command] = [cmd for cmd in parsed.commands
                                    if not isinstance(cmd, lang.Confirm)]
    admin = [cmd for cmd in commands if cmd.verb == "ADMIN"]
    if admin and not errors and admin_error is not None:
        errors.append((admin[0].line, command_text(admin[0]), admin_error))
    if not errors:
        errors += proposal_limits(deps.settings.limits, state, sender, commands, received)
    if not errors:
        errors += public_limit_errors(deps.settings.limits, state, sender, commands, received)
    translated: list[tuple[lang.Command, Action]] = []
    for command in commands if not errors else ():
        try:
            translated.append((command, translate(command, sender)))
        except ValueError as error:
            errors.append((command.line, command_text(command), str(error)))
    return translated, errors


def refused_player(settings: Settings, action: Action) -> str | None:
    """Why a JOIN or ADMIN ADD may not make its address a player (None: it may)."""
    match action:
        case c.Join(actor=address) | c.AddPlayer(address=address):
            return not_a_player(address, settings.game)
    return None


def run_one(deps: Deps, run: Run, command: lang.Command, action: Action, sender: str,
            received: datetime) -> bool:
    """Run one command of a message; False when it was refused (the others stand)."""
    if isinstance(action, Query):
        run.queries.append(action)
        return True
    if isinstance(action, AudienceRequest):
        said, turned_down = observer_answer(deps, run.session, run.work, sender,
                                            action.observe, run.audience)
        run.outcomes.append(Outcome(command.line, command_text(command), said,
                                    refused=turned_down))
        return not turned_down
    if isinstance(action, DigestChoice):
        said = choose_digest(deps, run.session, run.work, sender, action.on, received)
        run.outcomes.append(Outcome(command.line, command_text(command), said))
        return True
    if isinstance(action, DigestRequest):
        run.digest_asked = True
        run.outcomes.append(Outcome(command.line, command_text(command),
                                    "The digest is on its way to every player."))
        return True
    if isinstance(action, NewGameRequest):
        started = next_game(deps.settings, run.work, action.ruleset, run.commitment())
        if isinstance(started, str):
            return refuse(run, command, f"Refused: {started}.")
        action = started
    refused = refused_player(deps.settings, action)
    if refused is not None:  # the engine knows no config, so not the game's addresses
        return refuse(run, command, f"Refused: {refused}.")
    if isinstance(action, c.DeclareAbsence):  # [limits] max_absence: the engine knows no config
        longest = timedelta(seconds=deps.settings.limits.max_absence)
        action = dataclasses.replace(action, longest=longest)
    if isinstance(action, c.CastBallot) and action.choice is not Choice.ABSTAIN:
        # Drawn here, not by the engine's source: a salt must be unguessable even when
        # the game's draws are seeded, and a die's sequence must not depend on ballots.
        action = dataclasses.replace(action, salt=deps.new_secret())
    after, produced = apply(run.work, action, received, run.luck,
                            max_rule_bytes=deps.settings.limits.max_rule_bytes)
    rejected = next((ev for ev in produced if isinstance(ev, e.CommandRejected)), None)
    if rejected is not None:
        return refuse(run, command, outcome_of(produced, after, sender)
                      + depends_on(run, rejected))
    run.outcomes.append(Outcome(command.line, command_text(command),
                                outcome_of(produced, after, sender),
                                receipts_of(produced, after)))
    run.work, run.events = after, [*run.events, *produced]
    return True


def refuse(run: Run, command: lang.Command, result: str) -> bool:
    """Record a command of a message as refused: it changes nothing; the others stand."""
    run.outcomes.append(Outcome(command.line, command_text(command), result, refused=True))
    return False


# Refusals of a command that names a proposal or CFJ the game does not have: one that an
# earlier command of the same message, refused, was to make.
_NAMES_NOTHING = frozenset({Refusal.NO_SUCH_PROPOSAL, Refusal.NO_SUCH_CFJ})
_MAKES = ("PROPOSE", "CFJ")


def depends_on(run: Run, rejected: e.CommandRejected) -> str:
    """Name the refused command of the same message a refused command may depend on.

    "VOTE 303 FOR" under a PROPOSE that was refused: proposal 303 does not exist because the
    PROPOSE was refused, which the sender should be told rather than only "no proposal 303".
    """
    if rejected.refusal not in _NAMES_NOTHING:
        return ""
    makers = [done for done in run.outcomes
              if done.refused and done.command.split(" ", 1)[0].upper() in _MAKES]
    if not makers:
        return ""
    maker = makers[-1]
    where = "the subject" if maker.line == 0 else f"line {maker.line}"
    return f" It may depend on {where} ({maker.command}), which was refused."


def proposal_limits(limits: LimitsSettings, state: GameState, sender: str,
                    commands: Sequence[lang.Command],
                    received: datetime) -> list[tuple[int, str, str]]:
    """Refuse PROPOSE blocks beyond ``[limits] proposals_per_message`` and ``_per_day``."""
    proposals = [cmd for cmd in commands if isinstance(cmd, lang.Propose)]
    if len(proposals) > limits.proposals_per_message:
        extra = proposals[limits.proposals_per_message]
        return [(extra.line, command_text(extra),
                 f"at most {limits.proposals_per_message} proposals in one message "
                 "([limits] proposals_per_message); send the others in another message")]
    day = day_start(received)
    today = sum(1 for p in state.proposals.values()
                if p.proposer == sender and p.submitted_at >= day)
    if proposals and today + len(proposals) > limits.proposals_per_day:
        allowed = max(0, limits.proposals_per_day - today)
        extra = proposals[allowed]
        return [(extra.line, command_text(extra),
                 f"at most {limits.proposals_per_day} proposals a day from one player "
                 f"([limits] proposals_per_day; you have made {today} today); send it "
                 "again tomorrow (UTC)")]
    return []


def next_game(settings: Settings, state: GameState, ruleset: str | None,
              commitment: str) -> c.StartGame | str:
    """Return the command that starts the next game, or why it cannot start now.

    The next game may start once the last is over, under the configured preset or the
    one named; the last game's active players are in it from the start. ``commitment``:
    its first seed's (made by the caller, kept if the game starts).
    """
    if not state.started:
        return "the database has no game yet: run speakerbot init first"
    if not state.ended:
        return "the current game is not over: end it first with ADMIN END GAME"
    try:
        # A ruleset file only from the configuration: a name by mail or on the command
        # line is a preset's, so no message can have the Speaker read a file of its choosing.
        preset = load_ruleset(settings.game.ruleset) if ruleset is None else load_preset(ruleset)
    except PresetError as error:
        return str(error)
    game = settings.game
    players = tuple((player.address, player.name) for player in state.players.values()
                    if player.active)
    return c.StartGame(game.speaker, preset, game.speaker_name, game.judge or "",
                       game.judge_name or "", dict(settings.mechanics),
                       game.open_registration, secrets.token_hex(8), players,
                       RECORD_VERSION, commitment)


Action = c.Command | Query | DigestRequest | NewGameRequest | AudienceRequest | DigestChoice
"""What one command of a message becomes: an engine command, a question, or the digest."""


@dataclass
class Run:
    """Where a message's commands have got to: applied so far, and what to answer."""

    start: GameState
    # The source of the draws of its commands (UnitOfWork.luck: one for the transaction),
    # and how it makes a next game's first seed (UnitOfWork.first_seed).
    luck: RandomSource
    commitment: Callable[[], str]
    session: Session  # the transaction's: observers are kept in the store
    work: GameState = field(init=False)
    events: list[e.Event] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)
    digest_asked: bool = False
    audience: list[Change] = field(default_factory=list)  # observers to add or remove

    def __post_init__(self) -> None:
        self.work = self.start

    @property
    def applied(self) -> bool:
        """Whether anything of the message was done: a command not refused, or a question."""
        return bool(self.queries) or any(not done.refused for done in self.outcomes)
