"""Loads the preset rulesets shipped in ``data/rulesets`` into the engine's ``Preset``."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from speakerbot.engine.commands import Preset
from speakerbot.engine.mechanics import Mechanics
from speakerbot.engine.model import RuleSpec
from speakerbot.resources import rulesets_dir

PRESET_NAMES = ("suber", "locked-open", "speaker", "rurru", "nomicam")
"""The presets in the order the project lists them."""


class PresetError(ValueError):
    """A preset is unknown or its file is broken."""


def preset_names(folder: Path | None = None) -> list[str]:
    """Return the names of the shipped presets, the known five first."""
    found = {path.stem for path in (folder or rulesets_dir()).glob("*.toml")}
    return [name for name in PRESET_NAMES if name in found] + sorted(found - set(PRESET_NAMES))


def load_preset(name: str, folder: Path | None = None) -> Preset:
    """Read and check one preset; raise PresetError naming what is wrong."""
    path = (folder or rulesets_dir()) / f"{name}.toml"
    if name not in preset_names(folder):
        known = ", ".join(preset_names(folder))
        raise PresetError(f"there is no preset {name!r}; the presets are: {known}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return _from_data(name, data)
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as error:
        raise PresetError(f"{path}: {error}") from None


def _from_data(name: str, data: dict[str, Any]) -> Preset:
    head = data["preset"]
    if head["name"] != name:
        raise ValueError(f"the file names itself {head['name']!r}")
    rules = tuple(
        RuleSpec(int(rule["number"]), str(rule["text"]), bool(rule["mutable"]))
        for rule in data["rules"]
    )
    numbers = [rule.number for rule in rules]
    if numbers != sorted(set(numbers)):
        raise ValueError("rules must be in ascending order, each number once")
    mechanics_table = dict(data["mechanics"])
    sources = {str(k): int(v) for k, v in mechanics_table.pop("sources", {}).items()}
    written = {str(k): str(v).lower() if isinstance(v, bool) else str(v)
               for k, v in mechanics_table.items()}
    Mechanics.from_strings(written)  # refuses a missing, unknown or bad value
    for mechanic, rule in sources.items():
        if mechanic not in written or rule not in numbers:
            raise ValueError(f"mechanics.sources: {mechanic} = {rule} names no mechanic or rule")
    persons = {
        str(role): (int(person["rule"]), str(person["name"]))
        for role, person in data.get("persons", {}).items()
    }
    for role, (rule, person) in persons.items():
        if rule not in numbers or person not in rules[numbers.index(rule)].text:
            raise ValueError(f"persons.{role}: rule {rule} does not name {person!r}")
    return Preset(name, str(head["title"]), rules, written, sources, persons,
                  str(head.get("notes", "")))
