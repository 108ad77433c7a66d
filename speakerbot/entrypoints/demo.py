"""``speakerbot demo``: a short NomiCam game played by scripted players, over real mail.

Everything runs on loopback and in a temporary folder: the daemon with SQLite, its LMTP
listener for inbound mail, and an embedded SMTP server that prints every message the Speaker
sends. Players join, Alice proposes a rule amendment, everyone votes, Carol calls for
judgement and the Speaker judges; when the short voting period ends the results go out, and
the demo prints the result, the changed rule and the scores.
"""

from __future__ import annotations

import email
import email.policy
import random
import secrets
import smtplib
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

from speakerbot.config import Settings, parse_settings
from speakerbot.engine.durations import parse_duration
from speakerbot.entrypoints.daemon import Daemon
from speakerbot.service import GameService

GAME = "speaker@demo.example"
CHUCK = ("chuck@demo.example", "Chuck")
PLAYERS = [("alice@demo.example", "Alice"), ("bob@demo.example", "Bob"),
           ("carol@demo.example", "Carol"), ("dave@demo.example", "Dave")]
RULE = 205
NEW_TEXT = ("The prescribed voting period for a proposal shall be three days, beginning at the "
            "time the Speaker distributes the proposal to the players.")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _Printer:
    """The embedded SMTP server's handler: keeps and prints every message sent."""

    def __init__(self, show: Callable[[str], None]) -> None:
        self.show = show
        self.messages: list[EmailMessage] = []
        self.arrived = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.original_content,
                                           policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        body = message.get_body(("plain",))
        text = body.get_content() if body is not None else ""
        self.show(f"\n>>> Speaker to {', '.join(envelope.rcpt_tos)}\n"
                  f"    Subject: {message['Subject']}\n" + _indent(text))
        with self.arrived:
            self.messages.append(message)
            self.arrived.notify_all()
        return "250 OK"

    def wait_for(self, subject_part: str, timeout: float) -> EmailMessage:
        """Wait until a message whose subject contains ``subject_part`` has been sent."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while True:
                for message in self.messages:
                    if subject_part in str(message["Subject"]):
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no message about {subject_part!r} within {timeout} s")
                self.arrived.wait(left)


def _indent(text: str, limit: int = 40) -> str:
    lines = text.rstrip("\n").splitlines()
    shown = lines[:limit] + ([f"    [... {len(lines) - limit} more lines]"]
                             if len(lines) > limit else [])
    return "\n".join("    | " + line for line in shown)


def _settings(folder: Path, lmtp_port: int, smtp_port: int, voting_period: str,
              password: str) -> Settings:
    data = {
        "game": {"name": "Demo Nomic", "ruleset": "nomicam", "address": GAME,
                 "speaker": CHUCK[0], "speaker_name": CHUCK[1], "admin_password": password,
                 "open_registration": True},
        "mechanics": {"voting_period": voting_period, "judge_period": "1d",
                      "reminder_before": "1h"},
        "database": {"url": f"sqlite:///{folder / 'demo.db'}"},
        "lmtp": {"host": "127.0.0.1", "port": lmtp_port},
        "smtp": {"host": "127.0.0.1", "port": smtp_port, "security": "none"},
        # The demo's players are scripts on loopback, with no mail provider to sign their
        # mail: the From header alone is believed (never do this on a public address).
        "auth": {"require": "none"},
    }
    return parse_settings(data, path=folder / "demo.toml", environ={})


def _send(port: int, sender: tuple[str, str], subject: str, body: str,
          show: Callable[[str], None]) -> None:
    message = EmailMessage()
    message["From"] = f"{sender[1]} <{sender[0]}>"
    message["To"] = GAME
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain="demo.example")
    message.set_content(body)
    show(f"\n<<< {sender[1]} to the Speaker\n    Subject: {subject}\n" + _indent(body))
    with smtplib.LMTP("127.0.0.1", port) as lmtp:
        lmtp.send_message(message)


def run_demo(voting_period: str = "20s", quiet: bool = False) -> int:
    """Play the demo game; return 0 when it reached its results."""
    show: Callable[[str], None] = (lambda text: None) if quiet else print
    period = parse_duration(voting_period).total_seconds()
    password = secrets.token_urlsafe(12)
    with tempfile.TemporaryDirectory(prefix="speakerbot-demo-") as tmp:
        folder = Path(tmp)
        printer = _Printer(show)
        smtp_port, lmtp_port = _free_port(), _free_port()
        sink = Controller(printer, hostname="127.0.0.1", port=smtp_port)
        sink.start()
        settings = _settings(folder, lmtp_port, smtp_port, voting_period, password)
        service = GameService.open(settings, rng=random.Random(7), upgrade=True)
        service.start_game()
        daemon = Daemon(settings, service)
        stop = threading.Event()
        runner = threading.Thread(target=daemon.run, args=(stop,), name="speakerbot-daemon")
        print(f"speakerbot demo: NomiCam with a {voting_period} voting period; the Speaker is "
              f"{CHUCK[1]}. LMTP in on port {lmtp_port}, SMTP out on port {smtp_port}.")
        print("The demo believes every From header ([auth] require = \"none\"): its players "
              "are scripts on loopback. A real game checks DKIM and DMARC (docs/security.md).")
        runner.start()
        try:
            if not daemon.ready.wait(30):
                raise TimeoutError("the daemon did not start")
            results = _play(lmtp_port, printer, show, 30 + 2 * period, voting_period)
        finally:
            daemon.stop_event_wakes(stop)()
            runner.join(30)
            sink.stop()
        state = service.state()
        service.close()
    body = results.get_body(("plain",))
    print("\n======== The demo game's results ========")
    print(f"Subject: {results['Subject']}")
    rule = state.rules[RULE]
    print(f"\nRule {RULE} now reads:\n  {rule.text}")
    print(f"Voting period now: {state.rules_mechanics.formatted('voting_period')}")
    print("\nScores:")
    for player in state.scoreboard():
        print(f"  {player.name:<8} {player.score}")
    print(f"\n{len(printer.messages)} messages sent by the Speaker; the demo is over.")
    return 0 if body is not None and rule.text == NEW_TEXT else 1


def _play(lmtp_port: int, printer: _Printer, show: Callable[[str], None], timeout: float,
          voting_period: str) -> EmailMessage:
    """Play the script: joins, a proposal, votes, a CFJ and its judgement; wait for results."""
    for address, name in PLAYERS:
        _send(lmtp_port, (address, name), "Joining", f"JOIN {name}\n", show)
        printer.wait_for(f"{name} joined", timeout)
    _send(lmtp_port, PLAYERS[0], "PROPOSE: A three-day voting period",
          "A week is too long for a demo.\n\n"
          f"AMEND RULE {RULE}:\n{NEW_TEXT}\nSET voting_period = 3d\n\n-- \nAlice\n",
          show)
    printer.wait_for("Proposal 301:", timeout)
    for (address, name), choice in zip(PLAYERS, ["FOR", "FOR", "AGAINST", "FOR"],
                                       strict=True):
        _send(lmtp_port, (address, name), "My vote",
              f"VOTE 301 {choice}\nSTATUS\n\nThanks,\n{name}\n", show)
        printer.wait_for("Re: My vote", timeout)
    _send(lmtp_port, PLAYERS[2], "CFJ: Rule 205 binds the Speaker",
          "A three-day period would leave the Speaker no time to count.\n", show)
    printer.wait_for("CFJ 1:", timeout)
    _send(lmtp_port, CHUCK, "JUDGEMENT 1: FALSE",
          "Counting takes the Speaker a minute.\n", show)
    printer.wait_for("CFJ 1 judged FALSE", timeout)
    show(f"\n... waiting for the {voting_period} voting period to end ...")
    return printer.wait_for("Proposal 301 ADOPTED", timeout)
