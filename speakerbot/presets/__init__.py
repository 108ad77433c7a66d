"""Rulesets: the shipped presets, a group's own ruleset file, and a game's snapshot to import.

Each file is read whole and every fault reported with its line and key
(:mod:`speakerbot.presets.located`); the checks are the same for a preset, a group's
file and ``speakerbot rulesets check``.
"""

from speakerbot.presets.located import MAX_FILE_BYTES, Fault, FileFaults, PresetError
from speakerbot.presets.shipped import (
    PRESET_NAMES,
    export_text,
    is_ruleset_file,
    load_preset,
    load_ruleset,
    nearest_preset,
    preset_names,
    read_ruleset_file,
    summary,
)

__all__ = [
    "MAX_FILE_BYTES",
    "PRESET_NAMES",
    "Fault",
    "FileFaults",
    "PresetError",
    "export_text",
    "is_ruleset_file",
    "load_preset",
    "load_ruleset",
    "nearest_preset",
    "preset_names",
    "read_ruleset_file",
    "summary",
]
