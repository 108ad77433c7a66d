"""The preset rulesets shipped in ``data/rulesets``, and a group's own ruleset file.

A game's ``ruleset`` is either a preset's name or the path of a file in the presets' own
format; both are read and checked by :mod:`speakerbot.presets.ruleset`.
"""

from __future__ import annotations

from pathlib import Path

from speakerbot.engine.commands import Preset
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.presets.located import PresetError, read_located_file
from speakerbot.presets.ruleset import read_ruleset
from speakerbot.resources import rulesets_dir

PRESET_NAMES = ("suber", "locked-open", "speaker", "rurru", "nomicam")
"""The presets in the order the project lists them."""


def preset_names(folder: Path | None = None) -> list[str]:
    """Return the names of the shipped presets, the known five first."""
    found = {path.stem for path in (folder or rulesets_dir()).glob("*.toml")}
    return [name for name in PRESET_NAMES if name in found] + sorted(found - set(PRESET_NAMES))


def load_preset(name: str, folder: Path | None = None) -> Preset:
    """Read and check one preset; raise PresetError naming what is wrong."""
    if name not in preset_names(folder):
        known = ", ".join(preset_names(folder))
        raise PresetError(f"there is no preset {name!r}; the presets are: {known}")
    preset = read_ruleset_file((folder or rulesets_dir()) / f"{name}.toml")
    if preset.name != name:
        raise PresetError(f"the preset file {name}.toml names itself {preset.name!r}")
    return preset


def is_ruleset_file(choice: str) -> bool:
    """Tell whether a ``ruleset`` names a file (a path, or a name ending ``.toml``)."""
    return "/" in choice or "\\" in choice or choice.endswith(".toml")


def load_ruleset(choice: str) -> Preset:
    """Read the ruleset ``choice`` names: a preset's name, or a ruleset file's path."""
    if is_ruleset_file(choice):
        return read_ruleset_file(Path(choice))
    return load_preset(choice)


def read_ruleset_file(path: Path) -> Preset:
    """Read and check a ruleset file; raise FileFaults with every fault in it."""
    return read_ruleset(read_located_file(path), str(path))


def export_text(name: str) -> str:
    """Return a preset's file as shipped, to start a ruleset of one's own from."""
    load_preset(name)  # refuses an unknown name, and a broken file is never handed out
    return (rulesets_dir() / f"{name}.toml").read_text(encoding="utf-8")


def nearest_preset(ruleset: Preset) -> tuple[str, list[str]]:
    """Return the preset nearest ``ruleset`` and the mechanics in which they differ.

    Nearest: the fewest mechanics set otherwise, then the most rules of the same text.
    Each difference is written ``name: preset's value -> this one``.
    """
    def distance(preset: Preset) -> tuple[int, int]:
        theirs = {rule.text for rule in preset.rules}
        shared = sum(1 for rule in ruleset.rules if rule.text in theirs)
        return len(_differences(preset, ruleset)), -shared

    presets = [load_preset(name) for name in preset_names()]
    nearest = min(presets, key=distance)
    return nearest.name, _differences(nearest, ruleset)


def _differences(preset: Preset, ruleset: Preset) -> list[str]:
    return [f"{name}: {preset.mechanics[name]} -> {ruleset.mechanics[name]}"
            for name in PARAMETERS
            if PARAMETERS[name].parse(preset.mechanics[name])
            != PARAMETERS[name].parse(ruleset.mechanics[name])]


def summary(ruleset: Preset, origin: str) -> str:
    """Return what ``rulesets check`` says of a clean file: its rules, and what it changes."""
    mutable = sum(1 for rule in ruleset.rules if rule.mutable)
    nearest, differences = nearest_preset(ruleset)
    lines = [
        f"{origin}: {ruleset.name} ({ruleset.title}): no faults",
        f"rules: {len(ruleset.rules)} ({len(ruleset.rules) - mutable} immutable, "
        f"{mutable} mutable), numbered {ruleset.rules[0].number} to {ruleset.rules[-1].number}",
        f"nearest preset: {nearest}",
    ]
    if differences:
        lines.append(f"mechanics that differ from {nearest}:")
        lines.extend(f"  {difference}" for difference in differences)
    else:
        lines.append(f"mechanics: the same as {nearest}")
    return "\n".join(lines)
