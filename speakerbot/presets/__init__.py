"""Rulesets: the shipped presets, a group's own ruleset file, and a game's snapshot to import.

Each file is read whole and every fault reported with its line and key
(:mod:`speakerbot.presets.located`); the checks are the same for a preset, a group's
file and ``speakerbot rulesets check``. ``load_toml`` parses every TOML file speakerbot
reads, the configuration's too, within bounds that keep a hostile file from crashing it.
"""

from speakerbot.presets.located import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    Fault,
    FileFaults,
    PresetError,
    TomlRefused,
    load_toml,
)
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
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "PRESET_NAMES",
    "Fault",
    "FileFaults",
    "PresetError",
    "TomlRefused",
    "export_text",
    "is_ruleset_file",
    "load_preset",
    "load_ruleset",
    "load_toml",
    "nearest_preset",
    "preset_names",
    "read_ruleset_file",
    "summary",
]
