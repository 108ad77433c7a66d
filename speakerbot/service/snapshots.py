"""Which snapshots this code may read: those written by the very same engine.

A snapshot is the state as this version's engine folds the record; an engine that folds it
differently (a new field, a fixed evolver) must not start from another's. The fingerprint
is a hash of the engine's source (its compiled modules where no source was installed), of
speakerbot's version and of the library that writes the bytes: any change to them makes
every older snapshot unreadable here, so it is ignored, the state is rebuilt
from the whole record once, and a new snapshot is written.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path

import msgspec

import speakerbot.engine

SNAPSHOT_VERSION = "1"
"""Raised by hand only if snapshots must be thrown away for a reason outside the engine."""


@cache
def snapshot_format() -> str:
    """Return the fingerprint written with each snapshot and required of any read."""
    digest = hashlib.sha256(f"speakerbot snapshot {SNAPSHOT_VERSION} msgspec "
                            f"{msgspec.__version__} speakerbot {_version()}".encode())
    folder = Path(speakerbot.engine.__file__).parent
    # The source; where only compiled modules were installed, those.
    sources = sorted(folder.glob("*.py")) or sorted(folder.glob("**/*.pyc"))
    for path in sources:
        digest.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _version() -> str:
    try:
        return metadata.version("speakerbot")
    except metadata.PackageNotFoundError:
        return "unknown"
