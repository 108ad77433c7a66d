"""``[game] handwork_reminder``: a day unless set, "" for none, a duration from 1h to 30d."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from speakerbot.config import ConfigError, Settings, parse_settings


def _settings(tmp_path: Path, **game: Any) -> Settings:
    data = {"game": {"name": "Tea Nomic", "ruleset": "nomicam", "address": "game@nomic.test",
                     "speaker": "chuck@nomic.test", "speaker_name": "Chuck", **game},
            "database": {"url": f"sqlite:///{tmp_path / 'game.db'}"}}
    return parse_settings(data, path=tmp_path / "speakerbot.toml", environ={})


def test_a_day_unless_set(tmp_path: Path) -> None:
    assert _settings(tmp_path).game.handwork_reminder == 86400


@pytest.mark.parametrize(("written", "seconds"), [("12h", 43200), ("2d", 172800), ("", None),
                                                  ("  ", None)])
def test_a_duration_or_nothing(tmp_path: Path, written: str, seconds: float | None) -> None:
    assert _settings(tmp_path, handwork_reminder=written).game.handwork_reminder == seconds


@pytest.mark.parametrize("written", ["5m", "31d", "daily"])
def test_anything_else_is_refused_naming_the_key(tmp_path: Path, written: str) -> None:
    with pytest.raises(ConfigError, match="handwork_reminder"):
        _settings(tmp_path, handwork_reminder=written)
