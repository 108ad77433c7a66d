"""What speakerbot installs: only what it uses (issue 39: pygal stayed after the chart left it)."""

from __future__ import annotations

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_pygal_is_no_dependency_since_the_chart_draws_itself() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    named = [requirement.split(">")[0].split("[")[0].strip().lower()
             for requirement in project["dependencies"]]
    assert "pygal" not in named
