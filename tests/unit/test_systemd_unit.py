"""The systemd unit: the keys the install steps in docs/configuration.md rely on."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "speakerbot.service"


def unit() -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def test_how_it_runs() -> None:
    service = unit()["Service"]
    assert service["ExecStart"] == (
        "/opt/speakerbot/venv/bin/speakerbot run --config /etc/speakerbot/speakerbot.toml")
    assert service["Restart"] == "on-failure"
    assert service["RestartSec"] == "5"
    assert service["KillSignal"] == "SIGTERM"
    assert service["TimeoutStopSec"] == "30"


def test_memory_is_bounded_and_a_kill_restarts_it() -> None:
    service = unit()["Service"]
    # Killed by the bound (SIGKILL) is a failure, so on-failure restarts it.
    assert service["MemoryMax"] == "1G"
    assert service["MemorySwapMax"] == "0"
    assert service["Restart"] in ("on-failure", "always")


def test_a_dedicated_user_and_its_state_directory() -> None:
    service = unit()["Service"]
    assert service["User"] == "speakerbot"
    assert service["Group"] == "speakerbot"
    assert "DynamicUser" not in service
    assert service["StateDirectory"] == "speakerbot"
    # A relative sqlite url (the default, sqlite:///data/speakerbot.db) lands here.
    assert service["WorkingDirectory"] == "/var/lib/speakerbot"


def test_hardening() -> None:
    service = unit()["Service"]
    for key, value in {
        "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
        "NoNewPrivileges": "yes", "PrivateDevices": "yes", "ProtectKernelTunables": "yes",
        "ProtectKernelModules": "yes", "ProtectControlGroups": "yes",
        "RestrictNamespaces": "yes", "RestrictSUIDSGID": "yes", "LockPersonality": "yes",
        "CapabilityBoundingSet": "",
    }.items():
        assert service[key] == value, key
    assert service["RestrictAddressFamilies"].split() == ["AF_UNIX", "AF_INET", "AF_INET6"]


def test_it_starts_with_the_system_once_enabled() -> None:
    parsed = unit()
    assert "network-online.target" in parsed["Unit"]["After"]
    assert parsed["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    # The real ExecStart exists only on an installed machine; verify checks it is executable.
    text = UNIT.read_text(encoding="utf-8").replace(
        "ExecStart=/opt/speakerbot/venv/bin/speakerbot", "ExecStart=/bin/true")
    copy = tmp_path / "speakerbot.service"
    copy.write_text(text, encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "speakerbot.service" not in result.stderr, result.stderr
