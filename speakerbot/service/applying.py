"""Applying a trusted message's commands, all or nothing, and writing its reply."""


from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from speakerbot.adapters.store import (
    InboundRow,
)
from speakerbot.engine import GameState, apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.model import Choice
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.reading import (
    InboundMail,
    can_acknowledge,
)
from speakerbot.mail.inbound.redaction import RIGHT, WRONG
from speakerbot.mail.inbound.translate import DigestRequest, NewGameRequest, Query, translate
from speakerbot.mail.outbound.compose import (
    Outgoing,
    format_time,
)
from speakerbot.mail.outbound.replies import Outcome, command_text, outcome_of, receipts_of
from speakerbot.service.answering import AnsweringMixin
from speakerbot.service.debating import argument_limit_errors
from speakerbot.service.limits import public_limit_errors
from speakerbot.service.policy import (
    ADMIN_DATE_SKEW,
    NOT_DONE,
    WRONG_PASSWORDS,
    _Batch,
    _day_start,
    not_a_player,
)


class ApplyingMixin(AnsweringMixin):
    """Applying a trusted message's commands, all or nothing, and writing its reply."""

    def _apply_trusted(self, batch: _Batch, row: InboundRow, mail: InboundMail,
                       parsed: lang.ParseResult, received: datetime, *, trusted: bool) -> None:
        """Apply a message's commands (if ``trusted``), and queue its reply and announcements."""
        before = batch.state
        admin_error = self._admin_refusal(batch, row, mail, parsed, received, trusted)
        state, events, reply, digest_asked = self._apply_mail(
            mail, parsed, batch.state, received, admin_error=admin_error, notes=batch.notes,
            batch=batch)
        batch.outgoing += self._announce(events, state, before, batch.session,
                                         earlier=batch.events)
        batch.events += events
        batch.state = state
        if reply is not None and can_acknowledge(mail):
            batch.outgoing += self._limited_reply(batch.session, mail, reply, row)
        if digest_asked:
            batch.digests.append(f"digest:{row.message_id}:{row.id}")

    def _admin_refusal(self, batch: _Batch, row: InboundRow, mail: InboundMail,
                       parsed: lang.ParseResult, received: datetime,
                       trusted: bool) -> str | None:
        """Return why the message's ADMIN commands may not run (None: they may)."""
        host = (mail.sender or "") == self.settings.game.speaker
        if (row.password_verdict == WRONG and host and trusted
                and self.settings.game.admin_password):
            # Only mail the host's own mailbox sent: a forger cannot close ADMIN this way.
            self._count_wrong_password(batch, row.received_at)
        if not any(cmd.verb == "ADMIN" for cmd in parsed.commands):
            return None
        if not self.settings.game.admin_password:
            return ("ADMIN by mail is off: this game has no admin password ([game] "
                    "admin_password); the host runs speakerbot admin on the server instead")
        closed = self.store.get_meta("admin_closed_until", batch.session)
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

    def _count_wrong_password(self, batch: _Batch, at: datetime) -> None:
        """Five wrong passwords within an hour close ADMIN by mail for an hour."""
        session = batch.session
        recent = [t for t in (self.store.get_meta("wrong_passwords", session) or [])
                  if datetime.fromisoformat(t) > at - timedelta(hours=1)]
        recent.append(at.isoformat())
        self.store.set_meta(session, "wrong_passwords", recent[-WRONG_PASSWORDS:])
        closed = self.store.get_meta("admin_closed_until", session)
        if len(recent) >= WRONG_PASSWORDS and not (closed and
                                                   datetime.fromisoformat(closed) > at):
            until = at + timedelta(hours=1)
            self.store.set_meta(session, "admin_closed_until", until.isoformat())
            body = self.replies.renderer.render("admin_closed.txt", until=until)
            batch.outgoing.append(Outgoing("notice", (self.settings.game.speaker,),
                                           "ADMIN by mail closed for an hour", body,
                                           f"admin-closed:{until.isoformat()}"))

    def _apply_mail(
        self, mail: InboundMail, parsed: lang.ParseResult, state: GameState,
        received: datetime, *, admin_error: str | None = None,
        notes: Sequence[str] = (), batch: _Batch | None = None,
    ) -> tuple[GameState, list[e.Event], str | None, bool]:
        """Apply a message's commands all or nothing.

        Return the new state, the events, the reply, and whether it asked for the digest.
        ``batch``: the transaction it is applied in, whose record the lookups read.
        """
        sender = mail.sender or ""
        if mail.problem:
            return state, [], self.replies.reply(state, sender, outcomes=(), errors=(),
                                                 ignored=(), answers=(), applied=False,
                                                 problem=mail.problem), False
        ignored = [(item.line, item.text) for item in parsed.ignored]
        translated, errors = self._translated(parsed, state, sender, received, admin_error)
        if not errors and batch is not None:
            errors = argument_limit_errors(self, batch.session, state, sender, parsed.commands,
                                           received)
        if errors:
            return state, [], self.replies.reply(state, sender, outcomes=(), errors=errors,
                                                 ignored=ignored, answers=(), applied=False,
                                                 notes=notes), False
        run = _Run(state)
        for command, action in translated:
            if not self._run_one(run, command, action, sender, received):
                break
        answers = self._answers(run.queries, run.work, sender, batch, run.events)
        reply = self.replies.reply(run.work, sender, outcomes=run.outcomes, errors=(),
                                   ignored=ignored, answers=answers, applied=run.applied,
                                   notes=notes,
                                   unclear=self.replies.not_understood_in(parsed.commands))
        return run.work, run.events, reply, run.digest_asked

    def _translated(
        self, parsed: lang.ParseResult, state: GameState, sender: str, received: datetime,
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
            errors += self._proposal_limits(state, sender, commands, received)
        if not errors:
            errors += public_limit_errors(self.settings.limits, state, sender, commands, received)
        translated: list[tuple[lang.Command, Action]] = []
        for command in commands if not errors else ():
            try:
                translated.append((command, translate(command, sender)))
            except ValueError as error:
                errors.append((command.line, command_text(command), str(error)))
        return translated, errors

    def _not_a_player(self, action: Action) -> str | None:
        """Why a JOIN or ADMIN ADD may not make its address a player (None: it may)."""
        match action:
            case c.Join(actor=address) | c.AddPlayer(address=address):
                return not_a_player(address, self.settings.game)
        return None

    def _run_one(self, run: _Run, command: lang.Command, action: Action, sender: str,
                 received: datetime) -> bool:
        """Run one command of a message; False when it was refused (and nothing applies)."""
        if isinstance(action, Query):
            run.queries.append(action)
            return True
        if isinstance(action, DigestRequest):
            run.digest_asked = True
            run.outcomes.append(Outcome(command.line, command_text(command),
                                        "The digest is on its way to every player."))
            return True
        if isinstance(action, NewGameRequest):
            started = self._next_game(run.work, action.ruleset)
            if isinstance(started, str):
                run.outcomes.append(Outcome(command.line, command_text(command),
                                            f"Refused: {started}."))
                return self._undo(run)
            action = started
        refused = self._not_a_player(action)
        if refused is not None:  # the engine knows no config, so not the game's addresses
            run.outcomes.append(Outcome(command.line, command_text(command),
                                        f"Refused: {refused}."))
            return self._undo(run)
        if isinstance(action, c.DeclareAbsence):  # [limits] max_absence: the engine knows no config
            longest = timedelta(seconds=self.settings.limits.max_absence)
            action = dataclasses.replace(action, longest=longest)
        if isinstance(action, c.CastBallot) and action.choice is not Choice.ABSTAIN:
            # Drawn here, not by the engine's source: a salt must be unguessable even when
            # the game's draws are seeded, and a die's sequence must not depend on ballots.
            action = dataclasses.replace(action, salt=self.new_secret())
        after, produced = apply(run.work, action, received, self.rng,
                                 max_rule_bytes=self.settings.limits.max_rule_bytes)
        run.outcomes.append(Outcome(command.line, command_text(command),
                                    outcome_of(produced, after, sender),
                                    receipts_of(produced, after)))
        if any(isinstance(ev, e.CommandRejected) for ev in produced):
            return self._undo(run)
        run.work, run.events = after, [*run.events, *produced]
        return True

    @staticmethod
    def _undo(run: _Run) -> bool:
        """Undo a message whose last command was refused: none of its commands are done."""
        run.outcomes[:-1] = [Outcome(done.line, done.command, NOT_DONE)
                             for done in run.outcomes[:-1]]
        run.work, run.events, run.digest_asked = run.start, [], False
        run.applied = False
        return False

    def _proposal_limits(self, state: GameState, sender: str, commands: Sequence[lang.Command],
                         received: datetime) -> list[tuple[int, str, str]]:
        """Refuse PROPOSE blocks beyond ``[limits] proposals_per_message`` and ``_per_day``."""
        limits = self.settings.limits
        proposals = [cmd for cmd in commands if isinstance(cmd, lang.Propose)]
        if len(proposals) > limits.proposals_per_message:
            extra = proposals[limits.proposals_per_message]
            return [(extra.line, command_text(extra),
                     f"at most {limits.proposals_per_message} proposals in one message "
                     "([limits] proposals_per_message); send the others in another message")]
        day = _day_start(received)
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


Action = c.Command | Query | DigestRequest | NewGameRequest
"""What one command of a message becomes: an engine command, a question, or the digest."""


@dataclass
class _Run:
    """Where a message's commands have got to: applied so far, and what to answer."""

    start: GameState
    work: GameState = field(init=False)
    events: list[e.Event] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)
    digest_asked: bool = False
    applied: bool = True

    def __post_init__(self) -> None:
        self.work = self.start
