"""Mail held for confirmation: requests with single-use codes, and their release."""


from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from speakerbot.adapters.store import ConfirmationRow, InboundRow
from speakerbot.engine import GameState
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.reading import InboundMail
from speakerbot.mail.outbound.compose import Outgoing, format_time, message_id_for
from speakerbot.mail.outbound.replies import command_text
from speakerbot.service.answering import fits as costs_no_more
from speakerbot.service.answering import stranger_answered
from speakerbot.service.applying import apply_trusted
from speakerbot.service.deps import Deps
from speakerbot.service.policy import (
    CODE_ANYWHERE,
    HELD_LISTED,
    HELD_WAITING,
    NEEDS_NO_TRUST,
    quoted,
)
from speakerbot.service.reading import is_known, reading_in
from speakerbot.service.unit_of_work import Batch, UnitOfWork, open_unit


def confirmations(deps: Deps, batch: Batch, row: InboundRow, mail: InboundMail,
                  parsed: lang.ParseResult) -> list[ConfirmationRow]:
    """Return the held messages' codes this message confirms, each used up.

    A code confirms one held message. The codes that count are those on CONFIRM lines
    of the sender's own, or else those quoted in the message (a reply to the request:
    a reply that leaves them out, or a bare "this was not me", confirms nothing). Each
    must be the sender's own and unexpired. A message carrying every code of a request
    that listed several messages made no choice: it quotes the whole request back (a
    forger's messages may be among them), and none of that request's codes counts.
    """
    typed = [cmd.token for cmd in parsed.commands if isinstance(cmd, lang.Confirm)]
    # The sender's own lines decide: codes quoted below them are the request's echo.
    tokens = typed or [code.lower() for code in CODE_ANYWHERE.findall(mail.body)]
    carried = own_codes(deps, batch, mail.sender or "", tokens)
    usable = [found for found in carried
              if found.status == "open" and found.expires_at > row.received_at]
    chosen = chosen_codes(deps, batch, carried, usable)
    done = "" if chosen else "; nothing held was done"
    if typed and len(carried) < len(set(typed)):
        batch.notes.append(f"no request for confirmation has that code{done}")
    if len(usable) < len(carried):
        batch.notes.append("that request for confirmation has expired or was used "
                           "already; send your commands again")
    for found in chosen:
        deps.store.close_confirmation(batch.uow.session, found.id, "used", row.received_at)
    return chosen


def own_codes(deps: Deps, batch: Batch, sender: str,
              tokens: Sequence[str]) -> list[ConfirmationRow]:
    """Look the codes up by their hashes; keep the sender's own, each once."""
    own = []
    for token in dict.fromkeys(tokens):
        found = deps.store.find_confirmation(
            batch.uow.session, hashlib.sha256(token.encode()).hexdigest())
        if found is not None and found.address == sender:
            own.append(found)
    return own


def chosen_codes(deps: Deps, batch: Batch, carried: Sequence[ConfirmationRow],
                 usable: Sequence[ConfirmationRow]) -> list[ConfirmationRow]:
    """Leave out the codes of each request whose every code the message carries.

    Counted over every code carried, used or not: a request quoted back whole after
    one of its messages was confirmed is still a quotation, not a choice.
    """
    per_request = Counter(found.request_message_id for found in carried)
    whole = {request for request, count in per_request.items() if count > 1
             and count == deps.store.codes_in_request(batch.uow.session, request)}
    if whole and any(found.request_message_id in whole for found in usable):
        batch.notes.append(
            "nothing held was done: this message carries the code of every message "
            "one request listed, as a reply quoting the whole request does. Send the "
            "CONFIRM line of each message you sent and leave out the others (to "
            "confirm them all, send their lines in separate messages)")
    return [found for found in usable if found.request_message_id not in whole]


def release_held(deps: Deps, batch: Batch, confirmations: Sequence[ConfirmationRow],
                 when: datetime) -> None:
    """Apply the messages these codes confirm (one each), in the order received, at ``when``."""
    rows = [(held, found.address) for found in confirmations
            for held in deps.store.held(batch.uow.session, found.id)]
    # What was said about the codes is for the confirming message's reply, and what one
    # released message causes is for its own: none of it goes into another's reply.
    about_codes = batch.notes
    for row, address in sorted(rows, key=lambda pair: (pair[0].received_at, pair[0].id)):
        batch.notes = []
        reading = reading_in(batch.uow, deps, row)
        apply_trusted(deps, batch, row, reading.mail, reading.commands, when, trusted=True)
        deps.store.mark_inbound(batch.uow.session, row.id, "processed",
                                f"confirmed by {address}")
    batch.notes = about_codes


def ask_waiting(deps: Deps) -> None:
    """Send the requests for confirmation that waited for the gap between requests.

    The tick calls it when its marks, read without a write transaction, say a message is
    held with no request yet; the waiting are read again here, under the lock.
    """
    with deps.states.lock, open_unit(deps) as uow:
        now = deps.clock()
        waiting = deps.store.held_waiting(uow.session)
        if not waiting:
            return
        state = uow.state()
        batch = Batch(uow, state, [], [])
        for sender in dict.fromkeys(row.sender or "" for row in waiting):
            if sender and may_ask(deps, uow, sender, now):
                ask(deps, batch, sender, [r for r in waiting if r.sender == sender], now)
        uow.record([], state, batch.outgoing)


def next_request_due(deps: Deps, waiting: Mapping[str, datetime | None]) -> datetime | None:
    """When the first request that waits for the gap between requests may go out.

    ``waiting``: each sender of mail held with no request yet, and its last request's time
    (``Store.waiting_senders``).
    """
    gap = timedelta(seconds=deps.settings.auth.confirm_gap)
    now = deps.clock()
    return min((now if last is None else last + gap for last in waiting.values()),
               default=None)


def hold(deps: Deps, batch: Batch, row: InboundRow, mail: InboundMail, *,
         bounded: bool = True, subscribing: bool = False) -> None:
    """Hold unauthenticated mail and ask its From address to confirm it.

    Each message held gets a code of its own, which releases that message only. A
    player's message is asked about at once if no request went to the address within
    ``confirm_gap``; otherwise it waits, and goes with every other message of that
    address still waiting into the next request, once the gap has passed (at a tick).
    No daily count exists that a forger could use up ahead of the real mail. An
    address that is no player gets one request a day at most, and nothing larger than
    its message unless not ``bounded`` (an observer's UNOBSERVE: the address asked for
    the game's mail, and List-Unsubscribe's bare subject is smaller than any request).
    ``subscribing``: an authenticated OBSERVE, confirmed by a code all the same (as a list
    confirms a subscription); its request is the address's one mail of the day, whatever
    the size of the message, and says that a subscription is being confirmed.
    """
    uow, sender, now = batch.uow, mail.sender or "", row.received_at
    known = is_known(deps.settings, batch.state, sender)
    why = "a subscription to confirm" if subscribing else "not authenticated"
    if not known and stranger_answered(uow, sender):
        batch.note = f"{why}; this address had its reply today"
        batch.reason = "audience" if subscribing else "not-authenticated"
        return
    batch.status = "held"
    if not may_ask(deps, uow, sender, now):
        if known:
            deps.store.hold(uow.session, row.id, None, HELD_WAITING)
        else:
            batch.status, batch.note = "", f"{why}; no request (too many lately)"
            batch.reason = "audience" if subscribing else "not-authenticated"
        return
    if not known:
        if not ask(deps, batch, sender, [row], now, fits=row if bounded else None,
                   subscribing=subscribing):
            batch.status, batch.reason = "", "not-authenticated"
            batch.note = "not authenticated; a request would be larger than it"
        return
    # What waited for the gap goes first, in the order received.
    ask(deps, batch, sender, [*deps.store.held_waiting(uow.session, sender), row], now)


def may_ask(deps: Deps, uow: UnitOfWork, sender: str, now: datetime) -> bool:
    """Whether ``confirm_gap`` has passed since the last request to this address."""
    last = deps.store.last_request_at(uow.session, sender)
    return last is None or now >= last + timedelta(seconds=deps.settings.auth.confirm_gap)


def ask(deps: Deps, batch: Batch, sender: str, rows: Sequence[InboundRow], now: datetime,
        *, fits: InboundRow | None = None, subscribing: bool = False) -> bool:
    """Send one request listing ``rows``, each with a code of its own, and hold them.

    ``fits``: send it only if it costs no more bytes than this message (for an address
    that is no player). Returns False, holding nothing, when it would not fit.
    ``subscribing``: the request confirms an authenticated OBSERVE (a subscription).
    """
    expires = now + timedelta(seconds=deps.settings.auth.confirm_within)
    listed = []
    for held in rows:
        reading = reading_in(batch.uow, deps, held)
        listed.append((quoted(reading.mail.subject), [
            (command_text(cmd), deadline_note(batch.state, cmd))
            for cmd in reading.commands.commands if not isinstance(cmd, NEEDS_NO_TRUST)],
            deps.new_secret()))
    body = deps.replies.renderer.render("confirm_request.txt", messages=listed,
                                        expires=expires, subscribing=subscribing)
    # A random key: the request's Message-ID cannot be guessed from anything public.
    key = f"confirm:{deps.new_secret()}"
    subject = ("Please confirm your subscription" if subscribing
               else "Please confirm your message" + ("s" if len(rows) > 1 else ""))
    request = Outgoing("confirm", (sender,), subject, body, key)
    if fits is not None and not costs_no_more(deps, request, fits):
        return False
    message_id = message_id_for(deps.identity, f"{batch.state.game_id}|{key}")
    for held, (_, _, token) in zip(rows, listed, strict=True):
        confirmation = deps.store.add_confirmation(
            batch.uow.session, address=sender,
            token_sha256=hashlib.sha256(token.encode()).hexdigest(),
            request_message_id=message_id, created_at=now, expires_at=expires)
        deps.store.hold(batch.uow.session, held.id, confirmation, HELD_LISTED)
    batch.outgoing.append(request)
    return True


def deadline_note(state: GameState, command: lang.Command) -> str:
    """Say when voting on the proposal a VOTE names closes (empty: it is not open)."""
    if isinstance(command, lang.Vote) and command.proposal in state.proposals:
        closes = state.proposals[command.proposal].closes_at
        if closes is not None:
            return f"Voting on proposal {command.proposal} closes {format_time(closes)}."
    return ""
