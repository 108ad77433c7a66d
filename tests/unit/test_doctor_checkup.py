"""``speakerbot doctor`` put together, with fake edges: the config's findings, the games checked,
the exit status, the lines, and ``--nameserver``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from speakerbot.adapters.imap.records import ImapSettings
from speakerbot.adapters.smtp import SmtpSettings
from speakerbot.config import ConfigError, Games, Settings, parse_games
from speakerbot.entrypoints.cli import CliError
from speakerbot.entrypoints.doctor import nameserver
from speakerbot.entrypoints.doctor.checkup import NEWEST, Probes, examine
from speakerbot.entrypoints.doctor.configured import config_fault, settings_findings
from speakerbot.entrypoints.doctor.dns_records import Answer, Query
from speakerbot.entrypoints.doctor.findings import Finding, exit_status, lines, to_json
from speakerbot.entrypoints.doctor.messages import Mailbag, Received
from speakerbot.entrypoints.doctor.servers import ImapReport, SmtpReport

PATH = Path("/etc/speakerbot/speakerbot.toml")
SERVER = "mx.example.org"
HEADERS = (f"Authentication-Results: {SERVER}; dmarc=pass header.from=players.test\r\n"
           "From: alice@players.test\r\nTo: {to}\r\nDate: Mon, 04 May 2026 12:00:00 +0000\r\n"
           "Message-ID: <m@players.test>\r\n\r\n")


def game(game_id: str, address: str, **more: Any) -> dict[str, Any]:
    return {"id": game_id, "name": f"Nomic {game_id}", "ruleset": "nomicam",
            "address": address, "speaker": "host@example.org", "speaker_name": "Host", **more}


def two_games() -> Games:
    """Two games: one reads its own mailbox, one gets its mail by LMTP; one relay."""
    return parse_games({
        "games": [game("alpha", "alpha@example.org", dkim_selector="s1",
                       imap={"host": "imap.example.org", "password": "p"}),
                  game("beta", "beta@example.net")],
        "auth": {"authserv_id": SERVER}, "lmtp": {}, "smtp": {"host": "smtp.example.org"},
    }, PATH, {})


class Fakes:
    """The edges, answering as a healthy setup would, and noting what was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def lookups(self, queries: Sequence[Query]) -> dict[Query, Answer]:
        self.asked += [f"{query.kind} {query.name}" for query in queries]
        records = {"MX": ("10 mx.example.org.",), "TXT": ()}
        found = {query: Answer(query, records[query.kind]) for query in queries}
        for query in queries:
            if query.name.startswith("_dmarc."):
                found[query] = Answer(query, ("v=DMARC1; p=reject",))
            elif "._domainkey." in query.name:
                found[query] = Answer(query, ("v=DKIM1; p=KEY",))
            elif query.kind == "TXT":
                found[query] = Answer(query, ("v=spf1 mx -all",))
        return found

    def relay(self, settings: SmtpSettings) -> SmtpReport:
        self.asked.append(f"smtp {settings.host}")
        return SmtpReport(f"{settings.host}:{settings.port}", settings.security, False,
                          greeting="220 ok", tls="TLSv1.3")

    def mailbox(self, settings: ImapSettings, newest: int) -> tuple[ImapReport, Mailbag]:
        self.asked.append(f"imap {settings.host} {newest}")
        report = ImapReport(settings.where, settings.security, False, settings.folder,
                            tls="TLSv1.3", capabilities=("IDLE",), messages=1)
        return report, self.bag("alpha@example.org")

    def stored(self, settings: Settings, newest: int) -> Mailbag | Finding:
        self.asked.append(f"store {settings.game_id} {newest}")
        return self.bag(settings.game.address)

    @staticmethod
    def bag(to: str) -> Mailbag:
        arrived = datetime(2026, 5, 4, 12, 1, tzinfo=UTC)
        return Mailbag("here", (Received("m", arrived, HEADERS.format(to=to).encode()),))

    def probes(self) -> Probes:
        return Probes(self.lookups, self.relay, self.mailbox, self.stored)


def test_every_game_is_checked_when_none_is_chosen_and_the_relay_once() -> None:
    fakes = Fakes()
    found = examine(two_games(), None, fakes.probes())
    assert exit_status(found) == 0, lines(found)
    assert [(f.game, f.check) for f in found] == [
        ("alpha", "config"), ("alpha", "auth"), ("beta", "config"), ("beta", "auth"),
        (None, "smtp"),
        ("alpha", "imap"), *[("alpha", c) for c in ("dns.mx", "dns.spf", "dns.dmarc",
                                                    "dns.dkim", "messages", "authserv",
                                                    "message")],
        *[("beta", c) for c in ("dns.mx", "dns.spf", "dns.dmarc", "dns.dkim", "messages",
                                "authserv", "message")]]
    assert fakes.asked.count("smtp smtp.example.org") == 1
    assert f"imap imap.example.org {NEWEST}" in fakes.asked
    assert f"store beta {NEWEST}" in fakes.asked and f"store alpha {NEWEST}" not in fakes.asked
    # Only alpha names a DKIM selector; a domain's organization is asked after its own name.
    assert "TXT s1._domainkey.example.org" in fakes.asked
    assert not [q for q in fakes.asked if "._domainkey.example.net" in q]


def test_the_chosen_game_alone_is_checked() -> None:
    found = examine(two_games(), "beta", Fakes().probes())
    assert {f.game for f in found} == {"beta", None}
    assert "imap" not in {f.check for f in found}


def test_an_unknown_game_is_a_config_fault() -> None:
    [finding] = examine(two_games(), "gamma", Fakes().probes())
    assert (finding.check, finding.level) == ("config", "fault")
    assert "there is no game 'gamma'" in finding.message and exit_status([finding]) == 2


def one_game(data: dict[str, Any]) -> Games:
    """A file of one [game], and ``data``'s sections."""
    table = {key: value for key, value in game("x", "game@example.org").items() if key != "id"}
    return parse_games({"game": table, **data}, PATH, {})


def test_a_game_whose_mailbox_has_no_password_reads_no_mail() -> None:
    games = one_game({"imap": {"host": "imap.example.org"},
                      "smtp": {"host": "smtp.example.org"}})
    fakes = Fakes()
    found = examine(games, None, fakes.probes())
    faults = [f for f in found if f.level == "fault"]
    assert [f.check for f in faults] == ["config"]
    assert "[imap] password" in faults[0].message
    assert not [asked for asked in fakes.asked if asked.startswith(("imap", "store"))]
    assert "messages" not in {f.check for f in found}


def settings(data: dict[str, Any]) -> Settings:
    return one_game(data).games[0]


@pytest.mark.parametrize(("data", "found"), [
    ({"lmtp": {}, "smtp": {"host": "s"}, "auth": {"authserv_id": SERVER}},
     [("config", "ok"), ("auth", "ok")]),
    ({"lmtp": {}, "auth": {"authserv_id": SERVER}},
     [("config", "fault"), ("auth", "ok")]),
    ({"smtp": {"host": "s"}, "auth": {"authserv_id": SERVER}},
     [("config", "fault"), ("auth", "ok")]),
    ({"lmtp": {}, "smtp": {"host": "s"}}, [("config", "ok"), ("auth", "warning")]),
    ({"lmtp": {}, "smtp": {"host": "s"}, "auth": {"require": "none"}},
     [("config", "ok"), ("auth", "warning")]),
    # A missing password stops both ways of mail: said once.
    ({"imap": {"host": "i"}, "smtp": {"host": "s"}, "auth": {"authserv_id": SERVER}},
     [("config", "fault"), ("auth", "ok")]),
])
def test_the_settings_are_judged_as_run_takes_them(data: dict[str, Any],
                                                   found: list[tuple[str, str]]) -> None:
    assert [(f.check, f.level) for f in settings_findings(settings(data))] == found


def test_the_config_line_says_how_mail_comes_and_goes() -> None:
    line = settings_findings(settings({"lmtp": {"port": 2424}, "smtp": {"host": "s"}}))[0]
    assert line.message == (f"{PATH}: the game main (Nomic x, game@example.org) can run: mail "
                            "comes in by LMTP on 127.0.0.1:2424 and goes out through the SMTP "
                            "relay s:587")


def test_a_config_that_does_not_load_is_one_fault_naming_the_key() -> None:
    finding = config_fault(ConfigError("expected a whole number", key="[imap] port", path=PATH))
    assert finding.message == f"{PATH}: [imap] port: expected a whole number"
    assert finding.fix is not None and finding.fix.startswith("correct [imap] port as it says")


@pytest.mark.parametrize(("levels", "status"), [
    ([], 0), (["ok", "ok"], 0), (["ok", "warning"], 1), (["warning", "fault", "ok"], 2),
])
def test_the_exit_status_is_the_worst_level(levels: list[Any], status: int) -> None:
    assert exit_status([Finding("c", level, "m") for level in levels]) == status


def test_lines_name_the_game_only_when_several_are_checked() -> None:
    one = [Finding("dns.mx", "ok", "fine", game="a"), Finding("smtp", "fault", "no", "do",
                                                                     None)]
    assert lines(one) == ["ok      dns.mx     fine", "fault   smtp       no -> do"]
    two = [*one, Finding("dns.mx", "warning", "hm", "fix", "b")]
    assert lines(two) == ["ok      dns.mx     [a] fine", "fault   smtp       no -> do",
                          "warning dns.mx     [b] hm -> fix"]
    assert to_json(one)[1] == {"check": "smtp", "level": "fault", "message": "no",
                               "fix": "do", "game": None}


@pytest.mark.parametrize(("text", "parsed"), [
    ("127.0.0.53", ("127.0.0.53", 53)), ("192.0.2.1:5353", ("192.0.2.1", 5353)),
    ("::1", ("::1", 53)), ("[::1]:5353", ("::1", 5353)), ("[2001:db8::1]", ("2001:db8::1", 53)),
])
def test_a_nameserver_is_an_address_and_a_port(text: str, parsed: tuple[str, int]) -> None:
    assert nameserver(text) == parsed


@pytest.mark.parametrize("text", ["dns.example.org", "127.0.0.1:0", "127.0.0.1:x",
                                  "127.0.0.1:70000", "[::1]x", "[::1]:", "", "1.2.3.4:٥٣"])
def test_anything_else_is_refused_saying_what_is_wanted(text: str) -> None:
    with pytest.raises(CliError, match="expected an IP address"):
        nameserver(text)


@pytest.mark.parametrize("selector", ["s1", "2024-01.mail", "Google"])
def test_a_dkim_selector_is_read_from_game(selector: str) -> None:
    table = {key: value for key, value in game("x", "game@example.org").items() if key != "id"}
    games = parse_games({"game": {**table, "dkim_selector": f" {selector} "}}, PATH, {})
    assert games.games[0].game.dkim_selector == selector


@pytest.mark.parametrize("selector", ["s 1", "-s1", "s1-", "s1..mail", "s1._domainkey.", ""])
def test_a_dkim_selector_that_is_no_dns_name_is_refused(selector: str) -> None:
    table = {key: value for key, value in game("x", "game@example.org").items() if key != "id"}
    with pytest.raises(ConfigError) as refused:
        parse_games({"game": {**table, "dkim_selector": selector}}, PATH, {})
    assert refused.value.key == "[game] dkim_selector"


def test_without_a_dkim_selector_none_is_looked_up() -> None:
    assert one_game({}).games[0].game.dkim_selector is None
