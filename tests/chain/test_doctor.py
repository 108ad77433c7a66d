"""``speakerbot doctor`` against the real chain: the good setup is good, each broken one named.

The game's config is copied and changed for each broken setup; doctor asks the chain's own
DNS server (unbound) and reads the mail the chain delivered: Alice's signed proposal, which
the fixture sent.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.chain.game import ALICE
from tests.chain.harness import MailChain
from tests.chain.zones import AUTHSERV_ID, GAME_DOMAIN, SELECTOR
from tests.support.commands import speakerbot
from tests.support.ports import LOOPBACK, free_port

pytestmark = pytest.mark.integration

Findings = list[dict[str, object]]


def _config(chain: MailChain, folder: Path, *edits: tuple[str, str]) -> Path:
    """A copy of the game's config with its DKIM selector, each (pattern, replacement) made."""
    text = chain.game.config.read_text()
    text = text.replace("[game]\n", f'[game]\ndkim_selector = "{SELECTOR}"\n', 1)
    for pattern, replacement in edits:
        text, made = re.subn(pattern, replacement, text, count=1)
        assert made == 1, pattern
    copy = folder / "doctor.toml"
    copy.write_text(text)
    return copy


def _doctor(chain: MailChain, config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return speakerbot(["doctor", "-c", str(config), "--nameserver", chain.chain.dns, *extra],
                      env=chain.game.env, cwd=chain.game.folder)


def _findings(chain: MailChain, config: Path) -> tuple[int, Findings]:
    done = _doctor(chain, config, "--json")
    assert done.stderr == "", done.stderr
    found: Findings = json.loads(done.stdout)
    return done.returncode, found


def _only(found: Findings, check: str) -> dict[str, object]:
    [finding] = [f for f in found if f["check"] == check]
    return finding


def _levels(found: Findings) -> dict[str, set[object]]:
    levels: dict[str, set[object]] = {}
    for finding in found:
        levels.setdefault(str(finding["check"]), set()).add(finding["level"])
    return levels


def test_the_good_chain_is_reported_good(mail_chain: MailChain, tmp_path: Path) -> None:
    config = _config(mail_chain, tmp_path)
    status, found = _findings(mail_chain, config)
    assert status == 0, found
    assert _levels(found) == {check: {"ok"} for check in (
        "config", "auth", "smtp", "dns.mx", "dns.spf", "dns.dmarc", "dns.dkim", "messages",
        "authserv", "message")}, found
    assert f"MX 10 mx.{GAME_DOMAIN}." in str(_only(found, "dns.mx")["message"])
    assert "v=spf1 ip4:192.0.2.10 -all" in str(_only(found, "dns.spf")["message"])
    assert f"_dmarc.{GAME_DOMAIN}: \"v=DMARC1; p=reject\"" in str(
        _only(found, "dns.dmarc")["message"])
    assert f"{SELECTOR}._domainkey.{GAME_DOMAIN}: a public key" in str(
        _only(found, "dns.dkim")["message"])
    assert AUTHSERV_ID in str(_only(found, "authserv")["message"])
    # The one message of the chain so far: Alice's proposal, signed, on the server's word.
    message = str(_only(found, "message")["message"])
    assert f"from {ALICE}" in message and "authenticated by dmarc" in message
    # OpenDMARC's header, on top of OpenDKIM's: the one the game reads.
    assert f"the topmost header by {AUTHSERV_ID} says dmarc=pass;" in message
    for finding in found:
        assert set(finding) == {"check", "level", "message", "fix", "game"}
        assert finding["fix"] is None and finding["game"] in ("main", None)
    # The text says the same, a line each.
    text = _doctor(mail_chain, config)
    assert text.returncode == 0 and text.stderr == ""
    lines = text.stdout.splitlines()
    assert len(lines) == len(found)
    assert all(line.split()[0] == "ok" for line in lines), text.stdout


def test_a_wrong_authserv_id_is_a_fault_naming_the_id_on_the_mail(
        mail_chain: MailChain, tmp_path: Path) -> None:
    config = _config(mail_chain, tmp_path, (re.escape(f'authserv_id = ["{AUTHSERV_ID}"]'),
                                            'authserv_id = ["mx.wrong.test"]'))
    status, found = _findings(mail_chain, config)
    assert status == 2, found
    authserv = _only(found, "authserv")
    assert authserv["level"] == "fault"
    assert "mx.wrong.test" in str(authserv["message"])
    assert f"its topmost header is by {AUTHSERV_ID}" in str(authserv["message"])
    assert f'authserv_id = ["{AUTHSERV_ID}"]' in str(authserv["fix"])
    assert _only(found, "message")["level"] == "warning"
    assert [f["check"] for f in found if f["level"] == "fault"] == ["authserv"]


def test_a_domain_without_dmarc_is_named(mail_chain: MailChain, tmp_path: Path) -> None:
    config = _config(mail_chain, tmp_path, (re.escape(f'address = "game@{GAME_DOMAIN}"'),
                                            'address = "game@nodmarc.test"'))
    status, found = _findings(mail_chain, config)
    dmarc = _only(found, "dns.dmarc")
    assert dmarc["level"] == "warning"
    assert "nodmarc.test publishes no DMARC record" in str(dmarc["message"])
    assert "_dmarc.nodmarc.test" in str(dmarc["message"])
    assert "_dmarc.nodmarc.test" in str(dmarc["fix"])
    # Its MX, SPF and key are there; the mail the chain delivered was addressed to
    # game@game.test, which this game is not: it would not be believed (a replay).
    assert {check: levels for check, levels in _levels(found).items() if levels != {"ok"}} == {
        "dns.dmarc": {"warning"}, "messages": {"warning"}, "message": {"warning"}}, found
    assert "not addressed to the game" in str(_only(found, "message")["message"])
    assert status == 1


def test_a_relay_that_refuses_is_a_fault_naming_it(mail_chain: MailChain,
                                                    tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    config = _config(mail_chain, tmp_path, (r"(\[smtp\]\nhost = \"[^\"]*\"\n)port = \d+",
                                            rf"\g<1>port = {port}"))
    status, found = _findings(mail_chain, config)
    assert status == 2, found
    smtp = _only(found, "smtp")
    assert smtp["level"] == "fault"
    assert f"the SMTP relay {LOOPBACK}:{port} cannot be reached" in str(smtp["message"])
    assert "[smtp] host and port" in str(smtp["fix"])
    assert [f["check"] for f in found if f["level"] != "ok"] == ["smtp"]
