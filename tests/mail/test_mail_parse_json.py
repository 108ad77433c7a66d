"""``speakerbot parse FILE``: speakerbot.entrypoints.parse.main and parse_to_json."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from speakerbot.entrypoints.parse import main
from speakerbot.mail.inbound.parse_json import parse_to_json

KEYS = ["sender", "subject", "message_id", "skipped", "commands", "errors", "ignored",
        "authentication"]
NOT_CHECKED = {"checked": False, "authenticated": False, "by": None,
               "why": "not checked: give --config to check it"}
RAW = (
    "From: Zoë <zoe@example.org>\nSubject: votes\nMessage-ID: <1@example.org>\n"
    "Content-Type: text/plain; charset=utf-8\n\nHi\nVOTE 301 FOR\nVOET 302 FOR\n"
).encode()


def test_main_prints_one_json_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.eml"
    path.write_bytes(RAW)
    assert main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.count("\n") == 1
    parsed = json.loads(out)
    assert list(parsed) == KEYS
    assert parsed == {
        "sender": "zoe@example.org",
        "subject": "votes",
        "message_id": "<1@example.org>",
        "skipped": None,
        "commands": [{"line": 2, "verb": "VOTE", "proposal": 301, "choice": "FOR"}],
        "errors": [
            {
                "line": 3,
                "text": "VOET 302 FOR",
                "reason": "unknown command VOET; did you mean VOTE?",
            }
        ],
        "ignored": [{"line": 1, "text": "Hi"}],
        "authentication": NOT_CHECKED,
    }


def test_main_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RAW)))
    assert main(["-"]) == 0
    assert json.loads(capsys.readouterr().out)["sender"] == "zoe@example.org"


def test_main_keeps_non_ascii(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.eml"
    path.write_bytes(RAW.replace(b"Hi", "Grüße".encode()))
    assert main([str(path)]) == 0
    assert '"text": "Grüße"' in capsys.readouterr().out


def test_main_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope.eml")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "cannot read" in err and "nope.eml" in err


def test_main_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage" in capsys.readouterr().err


def test_main_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.eml"
    path.write_bytes(RAW.replace(b"Subject", b"X-Loop: game@example.org\nSubject"))
    assert main([str(path), "--loop-token", "game@example.org"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == "loop"
    assert main([str(path), "--max-bytes", "10"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == "too-large"


def test_never_answered_mail_has_no_commands() -> None:
    raw = RAW.replace(b"Subject", b"Auto-Submitted: auto-replied\nSubject")
    assert parse_to_json(raw) == {
        "sender": "zoe@example.org",
        "subject": "votes",
        "message_id": "<1@example.org>",
        "skipped": "auto-reply",
        "commands": [],
        "errors": [],
        "ignored": [],
        "authentication": {"checked": False, "authenticated": False, "by": None,
                           "why": "not checked: give --config to check it"},
    }


def test_unreadable_mail() -> None:
    got = parse_to_json(b"Subject: hello\n\nVOTE 1 FOR\n")
    assert got["sender"] is None and got["skipped"] is None and got["commands"] == []
    assert got["errors"] == [
        {
            "line": 0,
            "text": "",
            "reason": "cannot tell who sent this: the From header must hold exactly one address",
        }
    ]
