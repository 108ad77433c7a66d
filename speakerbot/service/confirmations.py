"""Mail held for confirmation: requests with single-use codes, and their release."""


from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from speakerbot.adapters.store import (
    ConfirmationRow,
    InboundRow,
)
from speakerbot.engine import GameState
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.reading import (
    InboundMail,
)
from speakerbot.mail.outbound.compose import (
    Outgoing,
    format_time,
    message_id_for,
)
from speakerbot.mail.outbound.replies import command_text
from speakerbot.service.applying import ApplyingMixin
from speakerbot.service.policy import (
    _CODE_ANYWHERE,
    _NEEDS_NO_TRUST,
    CONFIRM_GAP,
    CONFIRM_PER_DAY,
    HELD_LISTED,
    HELD_WAITING,
    _Batch,
    _quoted,
)


class ConfirmationsMixin(ApplyingMixin):
    """Mail held for confirmation: requests with single-use codes, and their release."""

    def _confirmation(self, batch: _Batch, row: InboundRow, mail: InboundMail,
                      parsed: lang.ParseResult) -> ConfirmationRow | None:
        """Return the open request this message confirms with its code, and use it up.

        The code must be in the message: on a CONFIRM line, or quoted in a reply to the
        request (a reply that leaves it out, or a bare "this was not me", confirms nothing).
        The request must be the sender's own and unexpired.
        """
        session, sender = batch.session, mail.sender or ""
        typed = [cmd.token for cmd in parsed.commands if isinstance(cmd, lang.Confirm)]
        quoted = [code.lower() for code in _CODE_ANYWHERE.findall(mail.body)]
        for token in dict.fromkeys([*typed, *quoted]):
            found = self.store.find_confirmation(
                session, hashlib.sha256(token.encode()).hexdigest())
            if found is None or found.address != sender:
                continue
            if found.status != "open" or found.expires_at <= row.received_at:
                batch.notes.append("that request for confirmation has expired or was used "
                                   "already; send your commands again")
                return None
            self.store.close_confirmation(session, found.id, "used", row.received_at)
            return found
        if typed:
            batch.notes.append("no request for confirmation has that code; nothing held "
                               "was done")
        return None

    def _release_held(self, batch: _Batch, confirmation: ConfirmationRow,
                      when: datetime) -> None:
        """Apply the messages a request listed, in the order received, at ``when``."""
        for row in self.store.held(batch.session, confirmation.id):
            mail = self._read(row)
            self._apply_trusted(batch, row, mail, self._parse(mail), when, trusted=True)
            self.store.mark_inbound(batch.session, row.id, "processed",
                                    f"confirmed by {confirmation.address}")

    def ask_waiting(self) -> None:
        """Send the requests for confirmation that waited for the rate limit."""
        if not self.store.held_waiting():
            return  # looked at without a write transaction: every tick comes here
        with self.lock, self._transaction() as session:
            now = self.clock()
            waiting = self.store.held_waiting(session)
            if not waiting:
                return
            state = self.state(session)
            batch = _Batch(session, state, [], [])
            for sender in dict.fromkeys(row.sender or "" for row in waiting):
                if sender and self._may_ask(session, sender, now):
                    self._ask(batch, sender, [r for r in waiting if r.sender == sender], now)
            self._commit(session, [], state, batch.outgoing)

    def _hold(self, batch: _Batch, row: InboundRow, mail: InboundMail) -> None:
        """Hold unauthenticated mail and ask its From address to confirm it.

        Each request lists the messages it releases, and its code releases those only. Mail
        that cannot be asked about at once (a request went to that address less than ten
        minutes ago, perhaps one a forger caused) waits, and is listed in a request of its
        own when the limit allows (at a tick). An address that is no player gets one
        request a day at most, and nothing that would be larger than its message.
        """
        session, sender, now = batch.session, mail.sender or "", row.received_at
        known = self._is_known(batch.state, sender)
        if not known and self._stranger_answered(session, sender):
            batch.note = "not authenticated; this address had its reply today"
            return
        batch.status = "held"
        if not self._may_ask(session, sender, now):
            if known:
                self.store.hold(session, row.id, None, HELD_WAITING)
            else:
                batch.status, batch.note = "", "not authenticated; no request (too many lately)"
            return
        if not self._ask(batch, sender, [row], now, fits=None if known else row):
            batch.status, batch.note = "", "not authenticated; a request would be larger than it"

    def _may_ask(self, session: Any, sender: str, now: datetime, *, gap: bool = True) -> bool:
        """At most one request to an address in ten minutes, and five a day."""
        if gap and self.store.confirmations_since(session, sender, now - CONFIRM_GAP):
            return False
        return self.store.confirmations_since(
            session, sender, now - timedelta(days=1)) < CONFIRM_PER_DAY

    def _ask(self, batch: _Batch, sender: str, rows: Sequence[InboundRow], now: datetime,
             *, fits: InboundRow | None = None) -> bool:
        """Send one request listing the commands of ``rows``, and hold them behind it.

        ``fits``: send it only if it costs no more bytes than this message (for an address
        that is no player). Returns False, holding nothing, when it would not fit.
        """
        token = self.new_secret()
        expires = now + timedelta(seconds=self.settings.auth.confirm_within)
        listed = []
        for held in rows:
            mail = self._read(held)
            parsed = self._parse(mail)
            listed.append((_quoted(mail.subject), [
                (command_text(cmd), self._deadline_note(batch.state, cmd))
                for cmd in parsed.commands if not isinstance(cmd, _NEEDS_NO_TRUST)]))
        body = self.replies.renderer.render("confirm_request.txt", messages=listed,
                                            token=token, expires=expires)
        # A random key: the request's Message-ID cannot be guessed from anything public.
        key = f"confirm:{self.new_secret()}"
        subject = "Please confirm your message" + ("s" if len(rows) > 1 else "")
        request = Outgoing("confirm", (sender,), subject, body, key)
        if fits is not None and not self._fits(request, fits):
            return False
        message_id = message_id_for(self.identity, f"{batch.state.game_id}|{key}")
        confirmation = self.store.add_confirmation(
            batch.session, address=sender,
            token_sha256=hashlib.sha256(token.encode()).hexdigest(),
            request_message_id=message_id, created_at=now, expires_at=expires)
        for held in rows:
            self.store.hold(batch.session, held.id, confirmation, HELD_LISTED)
        batch.outgoing.append(request)
        return True

    @staticmethod
    def _deadline_note(state: GameState, command: lang.Command) -> str:
        if isinstance(command, lang.Vote) and command.proposal in state.proposals:
            closes = state.proposals[command.proposal].closes_at
            if closes is not None:
                return f"Voting on proposal {command.proposal} closes {format_time(closes)}."
        return ""
