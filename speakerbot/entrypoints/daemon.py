"""The daemon: inbound mail in (IMAP and/or LMTP), deadlines on time, the outbox delivered.

Inbound adapters only store raw messages and wake the main loop; processing, ticking and
sending happen in the main loop (IMAP deliveries are processed on the watcher's thread, under
the service's lock, so that a message is moved out of the inbox only after it committed).
APScheduler only wakes the loop: the deadlines themselves live in the game's record.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger

from speakerbot.adapters.imap import FetchedMessage, ImapMailbox, ImapSettings, ImapWatcher
from speakerbot.adapters.lmtp import LmtpServer
from speakerbot.adapters.relay import RelayPool
from speakerbot.adapters.smtp import SmtpSender, SmtpSettings
from speakerbot.adapters.store.leases import LeaseLost
from speakerbot.config import Settings
from speakerbot.service import GameService, Received
from speakerbot.service.outbox import OutboxPolicy

if TYPE_CHECKING:
    from speakerbot.entrypoints.site import SiteKeeper

log = logging.getLogger("speakerbot.entrypoints.daemon")

DONE = ("processed", "skipped", "set_aside", "held", "unconfirmed")
SYNC_TIMEOUT = 30.0
LMTP_GRACE = timedelta(seconds=2)  # how long after a deadline LMTP mail may still be landing
IDLE_WAIT = 300.0  # seconds the loop sleeps at most when nothing is due (a safety net)
WATCH_EVERY = 1.0  # seconds between looks at the store for another process's writes
LINGER = 0.2
"""Seconds a pass that mail alone woke waits first, for the rest of a burst to come in: a pass
costs some twenty statements besides its messages' own, and a game among fifty took a burst
of twenty ballots in two passes when the first mail after a quiet spell was taken at once,
in one when it waits too. A reply 0.2 s later goes unnoticed in mail, whose delivery takes
seconds; a whole cycle (a deadline) never waits. Only where mail comes by LMTP ([lmtp]):
IMAP's batches are processed on the watcher's own thread."""
LINGER_STEP = 0.02  # seconds between a linger's looks for a whole cycle's wake-up


def imap_settings(settings: Settings) -> ImapSettings | None:
    """Return [imap] (the IMAP adapter's own settings) with the [limits] message size."""
    if settings.imap is None:
        return None
    return replace(settings.imap, max_size=settings.limits.max_message_size)


def smtp_settings(settings: Settings) -> SmtpSettings:
    """Return [smtp]: the SMTP adapter's own settings, as the configuration built them."""
    return settings.require_outbound()


def warn_about_trust(settings: Settings) -> None:
    """Say at start, as a warning, when the game believes mail it should not."""
    auth = settings.auth
    if auth.require == "none":
        log.warning("[auth] require = \"none\": anyone who can forge a From header can play "
                    "as anyone, the Speaker included; use it only behind a mail server that "
                    "authenticates its users")
    elif not auth.authserv_id:
        log.warning("[auth] authserv_id is empty: no Authentication-Results header is "
                    "trusted, so no mail is authenticated and every command needs a "
                    "confirmation (docs/security.md says how to find your server's id)")


class Daemon:
    """Runs a game: call ``run`` with a stop event, or ``once`` for a single pass.

    ``own_lmtp``: whether this game listens for LMTP itself ([lmtp]), as the one game of its
    process does; a host of many games has one listener for them all and hands each game its
    mail (``hosting.Host``), and runs each game's loop with ``serve``.
    """

    def __init__(self, settings: Settings, service: GameService, *,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC),
                 rng: random.Random | None = None, retry_base: float = 30.0,
                 own_lmtp: bool = True, relay: RelayPool | None = None) -> None:
        self.settings = settings
        self.service = service
        self.clock = clock
        self.rng = rng or random.Random()
        self.sender = SmtpSender(smtp_settings(settings), pool=relay)
        self.outbox_policy = OutboxPolicy(smtp_settings(settings).give_up_after, retry_base,
                                          self.rng, smtp_settings(settings).max_recipients)
        self.wake = threading.Event()
        self.ready = threading.Event()  # set once inbound mail is being taken in
        self.digest_due = threading.Event()
        # Set when time, not mail, woke the loop (a deadline, a retry, another process's
        # write, the safety net): the next pass is a whole cycle, else it only takes mail.
        self.timed = threading.Event()
        self.timed.set()
        self.watcher: ImapWatcher | None = None
        self.lmtp: LmtpServer | None = None
        self.own_lmtp = own_lmtp
        # How often the loop looks for another process's writes; a host that hears of them
        # (PostgreSQL's notices, hosting.Host) looks seldom, as a safety net.
        self.watch_every = WATCH_EVERY
        # Held around each pass at the database: a host of many games lets only a few of
        # them at it at once (a semaphore), so that their connections never run out.
        self.gate: AbstractContextManager[Any] = nullcontext()
        # Until when (monotonic) this process may send for the game: a worker sharing games
        # by lease sets it a little short of its lease's end at each renewal.
        self.held_until = float("inf")
        # How long a pass that mail alone woke waits first: mail by LMTP is processed by the
        # loop's passes. IMAP's batches are processed on the watcher's thread, where a pass
        # for mail only sends: lingering would hold replies.
        self.linger = LINGER if settings.lmtp is not None else 0.0
        # For /healthz and /metrics (entrypoints/metrics.py): whether the loop runs, and when
        # (monotonic) it last went round or looked at the store; it does so every
        # ``watch_every`` seconds at most while it is well.
        self.serving = False
        self.last_beat: float | None = None
        # Mail by LMTP may be landing an instant after a deadline (LMTP_GRACE).
        self.lmtp_grace = settings.lmtp is not None
        self.scheduler: BackgroundScheduler | None = None
        self._scheduled: dict[str, datetime | None] = {}  # what _schedule last saw
        # [site] dir: the archive, rebuilt when the record grew. Its keeper (with the archive's
        # pages, feeds and chart) is imported only by a daemon that keeps one.
        self.site: SiteKeeper | None = None
        if settings.site.dir is not None:
            self.keep_site(settings.site.dir)

    def keep_site(self, target: Path) -> None:
        """Keep the game's web archive in ``target`` from now on."""
        from speakerbot.entrypoints.site import SiteKeeper

        if self.site is None:
            self.site = SiteKeeper(self.settings, self.service)
        self.site.target = target

    def refresh_site(self) -> None:
        """Bring the web archive up to date, if the game keeps one."""
        if self.site is not None:
            self.site.refresh()

    # --- inbound ---

    def deliver_imap(self, messages: list[FetchedMessage]) -> Iterable[int]:
        """Store and process what IMAP fetched; return the UIDs that are safely done."""
        # One transaction for the batch. A message offered again (after a crash or a
        # reconnect) is recognised by its UID there, and stored once.
        if not messages:
            return []
        statuses = self.service.take_in([
            Received(m.raw, m.internaldate, "imap", m.uidvalidity, m.uid, m.oversized)
            for m in messages])
        for status in set(statuses):
            self._woken_by(status)
        done = [m.uid for m, status in zip(messages, statuses, strict=True) if status in DONE]
        if done:
            self.service.crashpoints.reach("after-commit")
        return done

    def _store_lmtp(self, raw: bytes, received_at: datetime, mail_from: str,
                    recipients: list[str]) -> bool:
        return self.receive_lmtp(raw, received_at)

    def receive_lmtp(self, raw: bytes, received_at: datetime, shares: int = 1) -> bool:
        """Store a message delivered by LMTP, first of all, and wake the loop to process it.

        ``shares``: for how many games the host stores this one message (``Received``).
        Returns False when it was stored already (a server's second delivery): dropped.
        """
        stored = self.service.receive(raw, received_at, source="lmtp", shares=shares)
        self._woken_by(stored.status)
        return not stored.duplicate

    # --- the main loop ---

    def cycle(self) -> None:
        """Take in all mail received, settle what is due, send what is queued."""
        # Mail by LMTP is in the store already (or within its grace), and the loop's own
        # passes processed it and sent what it queued: only IMAP's watcher has more to do.
        if self.watcher is not None:
            # Ballots received before a deadline count: fetch everything the server has
            # before closing anything.
            deadline = self.service.next_deadline()
            if (deadline is not None and deadline <= self.clock()
                    and not self.watcher.sync(SYNC_TIMEOUT)):
                log.warning("IMAP did not answer in time; closing with the mail already in")
            # What its last batch of mail queued goes first: sending takes no lock, so it
            # need not wait while the IMAP thread processes the next batch.
            self.send_outbox()
        if self.service.mail_due():
            self.service.process_pending()
        # A message LMTP timestamped an instant ago may still be on its way into the store.
        self.service.tick(self.clock() - (LMTP_GRACE if self.lmtp_grace else timedelta(0)))
        if self.service.mail_due():  # mail that came in behind a backlog of deadlines
            self.service.process_pending()
        if self.digest_due.is_set():
            self.digest_due.clear()
            self.service.send_digest(self.clock())
        self.send_outbox()
        # After the mail: players hear first; the archive follows within the same cycle.
        self.refresh_site()

    def holds(self) -> bool:
        """Whether this process may still send for the game (its lease's margin, if any)."""
        return time.monotonic() <= self.held_until

    def send_outbox(self, *, everything: bool = False) -> int:
        """Deliver the messages due now, over one SMTP connection; return how many went.

        One batch of at most 50 (the loop comes back for more), or with ``everything``
        until none is due or the server defers one.
        """
        if not self.holds():
            # The lease may have run out while this process stood still (a frozen VM): a
            # message sent now could be the new holder's too, and no fence stops SMTP.
            log.warning("the game %s: lease not renewed in time; not sending",
                        self.settings.game_id)
            return 0
        # Asked again before every copy: a process frozen in mid-batch must not send the
        # rest once it wakes (the outbox's docstring).
        sent = self.service.send_outbox(self.sender, self.outbox_policy, everything=everything,
                                        may_send=self.holds)
        if sent:
            # Which game sent it: a host of many games has one log for them all.
            log.info("the game %s sent %d messages", self.settings.game_id, sent)
        return sent

    def _schedule(self, wakes: dict[str, datetime | None], *, mail_waiting: bool) -> float:
        """Point the scheduler's wake-ups at the next deadline and the next retry.

        ``mail_waiting``: whether a stored message is still to be handled (read with the
        wake-ups), which keeps the loop's sleep short.

        A deadline wakes the loop when it can be settled: with LMTP, once its grace is over
        (the cycle settles only what fell due that long ago). What is due already wakes the
        loop at once, except a deadline the last cycle could not settle yet (a message being
        retried holds it back): that one is looked at again within a second, without
        spinning. A wake-up already set for the same time is left as it is: during a burst
        of mail this runs after every batch. Returns how long the loop may sleep, at most,
        when nothing wakes it.
        """
        scheduler = self.scheduler
        if scheduler is None:
            return IDLE_WAIT
        now = self.clock()
        sleep = 1.0 if mail_waiting else IDLE_WAIT
        for job_id, when in wakes.items():
            if job_id == "deadline" and when is not None and self.lmtp_grace:
                when += LMTP_GRACE
            before = self._scheduled.get(job_id)
            self._scheduled[job_id] = when
            if when is None:
                if before is not None and scheduler.get_job(job_id):
                    scheduler.remove_job(job_id)
            elif when <= now and job_id == "deadline" and when == before:
                sleep = min(sleep, 1.0)
            elif when <= now:
                self.timed_wake()
            elif when != before:
                scheduler.add_job(self.timed_wake, DateTrigger(run_date=when, timezone=UTC),
                                  id=job_id, replace_existing=True, misfire_grace_time=None)
        return sleep

    def _sleep(self, longest: float, mark: object) -> None:
        """Wait until woken, or ``longest`` seconds, or until another process wrote.

        The command line (``admin``, ``player add``, ``new-game``, ``inbound retry``) writes
        from a process of its own. Every ``WATCH_EVERY`` seconds the loop compares the
        store's change mark (the record's last number, the outbox's next due time, the
        oldest waiting mail, read with the wake-ups in one statement of indexed subqueries)
        with ``mark``, taken after the last cycle; a difference starts a cycle, which
        announces the change. Polling works the same on SQLite and PostgreSQL and needs no
        signal: the daemon may run on another host than the command (PostgreSQL), and its
        lock holds no process id.
        """
        end = time.monotonic() + longest
        warned = False
        while True:
            self.last_beat = time.monotonic()
            left = end - time.monotonic()
            if left <= 0:
                self.timed.set()
                return
            if self.wake.wait(min(self.watch_every, left)):
                return
            try:
                if self.service.change_mark() != mark:
                    self.timed.set()
                    return
            except Exception as error:  # the database away for a moment: keep waiting
                if not warned:
                    log.warning("could not look for changes in the database: %s", error)
                    warned = True

    def _linger(self, stop: threading.Event) -> None:
        """Wait out the linger; a stop, or a whole cycle's wake-up, ends it."""
        end = time.monotonic() + self.linger
        while not self.timed.is_set():
            left = end - time.monotonic()
            # In steps: the loop's events are separate, and a deadline must not wait.
            if left <= 0 or stop.wait(min(left, LINGER_STEP)):
                return

    def _digest(self) -> None:
        self.digest_due.set()
        self.timed_wake()

    def timed_wake(self) -> None:
        """Wake the loop for a whole cycle: something is due, or may be."""
        self.timed.set()
        self.wake.set()

    def take_mail(self) -> None:
        """Take in the mail received and send what it queued: the pass when mail alone woke.

        Deadlines are not looked at: none fell due since the last whole cycle, or the
        scheduler would have woken the loop for one. One that this mail brings due (a vote
        that closes once everyone has voted) is seen by ``_schedule`` right after, which
        wakes the loop at once for a whole cycle.
        """
        processed = self.service.process_pending() if self.service.mail_due() else []
        if any(done.status == "set_aside" for done in processed):
            self.timed_wake()  # the host hears of it in the whole cycle, at once
        self.send_outbox()
        self.refresh_site()

    def _woken_by(self, status: str) -> None:
        """Wake the loop for mail that came to ``status``: a whole cycle if set aside.

        Mail set aside is the host's to hear of at once, which the whole cycle tells.
        """
        if status == "set_aside":
            self.timed_wake()
        else:
            self.wake.set()

    def run(self, stop: threading.Event) -> None:
        """Run until ``stop`` is set: finish the cycle in hand, then shut down cleanly."""
        with self.service.daemon_lock():
            warn_about_trust(self.settings)
            self.serve(stop)

    def serve(self, stop: threading.Event) -> None:
        """Run the game's loop until ``stop`` is set (its lock already held by the caller)."""
        # A game may be served again after a pause (a worker that lost it, then took it
        # back): a new scheduler, nothing taken as scheduled, and a whole first cycle.
        self._scheduled = {}
        self.timed.set()
        self._start_inbound()
        self.scheduler = BackgroundScheduler(timezone=UTC)
        if self.settings.game.digest:
            self.scheduler.add_job(
                self._digest, CronTrigger.from_crontab(self.settings.game.digest,
                                                       timezone=UTC), id="digest")
        self.scheduler.start()
        self.ready.set()
        log.info("speakerbot is running the game %s", self.settings.game.name)
        self.serving = True
        try:
            while True:
                self.last_beat = time.monotonic()
                if not self.timed.is_set():
                    self._linger(stop)  # mail alone woke the loop: more may be on its way
                # Cleared before stop is looked at: a stop set in between also sets wake
                # (``stop_event_wakes``), and must not be wiped before the loop sleeps.
                self.wake.clear()
                if stop.is_set():
                    break
                whole = self.timed.is_set()
                self.timed.clear()
                try:
                    with self.gate:
                        if whole:
                            self.cycle()
                        else:
                            self.take_mail()
                except LeaseLost as lost:
                    # Another worker holds the game now: not one more write for it here.
                    log.warning("stopped the game %s: %s", self.settings.game_id, lost)
                    return
                except Exception:
                    log.exception("a cycle failed; retrying shortly")
                    self.timed.set()
                    stop.wait(5)
                # The scheduler or an inbound adapter sets wake; the timeout is a safety
                # net, short while a message waits to be retried. The mark is taken
                # before the wake-ups are computed, so that a write landing in between
                # is seen by one or the other. A write that landed during the pass is in
                # the mark already, so whatever it leaves for a pass to do must be a
                # wake-up (the host's additions waiting are one: ``Store.wake_marks``).
                with self.gate:
                    mark, wakes = self.service.look()
                # The mark's last part: when the oldest mail still to handle came (None: none).
                self._sleep(self._schedule(wakes, mail_waiting=mark[2] is not None), mark)
        finally:
            self.serving = False
            self._stop_inbound()
            self.scheduler.shutdown(wait=False)
            log.info("speakerbot stopped")

    def _start_inbound(self) -> None:
        imap = imap_settings(self.settings)
        if imap is not None:
            self.watcher = ImapWatcher(imap, self.deliver_imap,
                                       on_error=lambda error: log.warning("IMAP: %s", error))
            self.watcher.start()
        lmtp = self.settings.lmtp
        if lmtp is not None and self.own_lmtp:
            self.lmtp = LmtpServer(lmtp.host, lmtp.port, self._store_lmtp,
                                   max_size=self.settings.limits.max_message_size)
            self.lmtp.start()
            log.info("LMTP listening on %s:%s", lmtp.host, self.lmtp.port)

    def _stop_inbound(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
        if self.lmtp is not None:
            self.lmtp.stop()

    def stop_event_wakes(self, stop: threading.Event) -> Callable[[], None]:
        """Return a function that stops the loop promptly (for signal handlers)."""
        def trigger() -> None:
            stop.set()
            self.wake.set()
        return trigger

    def once(self) -> None:
        """Process everything waiting and due, send the outbox, and return."""
        with self.service.daemon_lock():
            imap = imap_settings(self.settings)
            if imap is not None:
                mailbox = ImapMailbox(imap)
                mailbox.connect()
                try:
                    for batch in mailbox.fetch_batches():
                        done = set(self.deliver_imap(batch))
                        too_large = {m.uid for m in batch if m.oversized is not None}
                        mailbox.move_to_rejected(sorted(done & too_large))
                        mailbox.move_to_processed(sorted(done - too_large))
                finally:
                    mailbox.close()
            # Mail that came in behind a backlog of deadlines waits for them to be settled;
            # then what fell due after it is settled in turn.
            self.service.process_pending()
            self.service.tick(self.clock())
            while self.service.mail_due():
                self.service.process_pending()
                self.service.tick(self.clock())
            self.send_outbox(everything=True)
            self.refresh_site()
