"""Every message in tests/mail/corpus/ parses to the JSON written beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from speakerbot.mail.inbound.parse_json import parse_to_json
from tests.mail.conftest import PARSE_FIELDS

CORPUS = Path(__file__).resolve().parent / "corpus"
LOOP_TOKEN = "nomic@example.org"  # the game's X-Loop value the corpus assumes
MESSAGES = sorted(CORPUS.glob("*.eml"))
PASSWORD_LINE = re.compile(rb"^\s*PASSWORD:?[ \t]+(\S[^\r\n]*?)\s*$", re.IGNORECASE | re.MULTILINE)


def test_corpus_is_complete() -> None:
    emls = {path.stem for path in MESSAGES}
    jsons = {path.stem for path in CORPUS.glob("*.json")}
    assert emls == jsons, "every .eml needs its .json and the other way round"
    assert len(emls) >= 60


@pytest.mark.parametrize("path", MESSAGES, ids=[path.stem for path in MESSAGES])
def test_corpus_message(path: Path) -> None:
    expected = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    got = parse_to_json(path.read_bytes(), loop_token=LOOP_TOKEN)
    assert list(got) == PARSE_FIELDS
    assert got == expected
    # The output is what `speakerbot parse` prints: it must survive JSON.
    assert json.loads(json.dumps(got, ensure_ascii=False)) == got


@pytest.mark.parametrize("path", MESSAGES, ids=[path.stem for path in MESSAGES])
def test_corpus_never_shows_a_password(path: Path) -> None:
    secrets = [match.group(1).decode() for match in PASSWORD_LINE.finditer(path.read_bytes())]
    serialized = json.dumps(
        parse_to_json(path.read_bytes(), loop_token=LOOP_TOKEN), ensure_ascii=False
    )
    for secret in secrets:
        assert secret not in serialized


@pytest.mark.parametrize("path", MESSAGES, ids=[path.stem for path in MESSAGES])
def test_corpus_never_shows_the_speakers_secret(path: Path) -> None:
    # The Speaker's mails in the corpus use this secret, also on misspelled PASSWORD lines.
    serialized = json.dumps(
        parse_to_json(path.read_bytes(), loop_token=LOOP_TOKEN), ensure_ascii=False
    )
    assert "correct-horse-battery-staple" not in serialized


def test_corpus_has_speaker_mail_with_passwords() -> None:
    with_password = [p for p in MESSAGES if PASSWORD_LINE.search(p.read_bytes())]
    assert len(with_password) >= 3
