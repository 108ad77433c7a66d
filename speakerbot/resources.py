"""Finds the files shipped with speakerbot: ruleset presets, mail templates, the example config.

In a wheel they are inside the package (``speakerbot/_shipped``); in a checkout
they are at the top of the repository (``data/rulesets``, ``templates``).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        "speakerbot's shipped files are missing; looked in "
        + ", ".join(str(c) for c in candidates)
    )


def rulesets_dir() -> Path:
    """Return the folder that holds the preset rulesets (one TOML file each)."""
    return _first_existing(_PACKAGE / "_shipped" / "rulesets", _CHECKOUT / "data" / "rulesets")


def templates_dir() -> Path:
    """Return the folder that holds the Jinja2 mail templates."""
    return _first_existing(_PACKAGE / "_shipped" / "templates", _CHECKOUT / "templates")


def example_config() -> Path:
    """Return the example configuration file (``speakerbot config example`` prints it)."""
    for candidate in (_PACKAGE / "_shipped" / "config" / "speakerbot.example.toml",
                      _CHECKOUT / "config" / "speakerbot.example.toml"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("speakerbot's example configuration is missing")
