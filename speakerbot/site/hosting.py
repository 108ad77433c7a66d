"""The index page of a host's games: one line per game, linking to its own archive.

A host of many games keeps each game's archive in a folder named after its id under
``[site] dir``, each swapped in whole on its own (``writer.write_site``); this page and its
stylesheet stand beside them, each file replaced in one rename (``writer.write_beside``).
It names each game and the address its players write to, nothing of any game's play.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from speakerbot.site.pages import render_standalone


@dataclass(frozen=True)
class HostedGame:
    """A game on the index: its id (its archive's folder), name and address."""

    id: str
    name: str
    address: str


def build_host_index(games: Sequence[HostedGame], templates: Path, *,
                     name: str = "Nomic") -> dict[str, bytes]:
    """Return the index page of ``games`` and its stylesheet, by path under ``[site] dir``."""
    return render_standalone(templates, "host.html", site_name=name, hosted_games=list(games))
