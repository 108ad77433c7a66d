"""Writing the archive to its folder so that a web server never serves half a site.

The configured path is a symbolic link to a complete build beside it
(``.<name>-<random>``). A new build is written whole into a folder of its own, then the
link is replaced in one ``rename`` (atomic on POSIX): a reader sees the old site or the
new one, never a mix. The build it replaced is deleted afterwards. Between two whole
builds, the daemon updates the build in place (``update_site``): each changed page is
swapped in on its own, and the record is extended at its end. A path that is a real
folder is replaced only when it is one speakerbot built (it holds the marker file), or
is empty: ``site build ~`` must not wipe a home folder.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from speakerbot.site.archive import OWN_FILES

__all__ = ["FILE_MODE", "FOLDER_MODE", "MARKER", "SiteWriteError", "is_updatable",
           "update_site", "write_beside", "write_site"]

RECORD = OWN_FILES["record"]
"""The public record's file, which an update extends rather than replaces."""

MARKER = ".speakerbot-site"
"""The file every build holds, so that only speakerbot's own builds are ever replaced."""

FILE_MODE = 0o644
"""Every file of the archive: the public record only, for any reader (the web server)."""

FOLDER_MODE = 0o755
"""Every folder of the archive, the build's own included, for the web server to enter."""


class SiteWriteError(Exception):
    """The archive cannot be written where it was asked to be (the message says why)."""


def write_site(files: Mapping[str, bytes], target: Path) -> Path:
    """Write ``files`` (relative path: bytes) as the site at ``target``; return the build.

    ``target`` ends up a symbolic link to the new build, swapped in atomically.
    """
    target = Path(os.path.abspath(target))
    _check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    build = target.parent / f".{target.name}-{secrets.token_hex(8)}"
    build.mkdir()
    try:
        _write_files(build, files)
        link = target.parent / f".{target.name}-link-{secrets.token_hex(8)}"
        link.symlink_to(build.name, target_is_directory=True)
        old = _current_build(target)
        if target.is_dir() and not target.is_symlink():
            old = _move_aside(target)
        os.replace(link, target)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    _remove_old_builds(target, keep=build, also=old)
    return build


def write_beside(files: Mapping[str, bytes], folder: Path) -> None:
    """Write ``files`` into ``folder`` (a host's, beside its games' archives), each whole.

    Each file is written aside and renamed over the old one: a reader sees either.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        _swap_in(folder / PurePosixPath(relative), content)


def update_site(files: Mapping[str, bytes], target: Path, *, removed: Iterable[str] = (),
                record: bytes = b"") -> Path:
    """Apply changed ``files`` to the build ``target`` links to; return that build.

    Each file is written under a temporary name in its folder and renamed over the old
    one (atomic per file: a reader gets the old page or the new, never half); the paths of
    ``removed`` are deleted; ``record`` (whole lines) is appended to ``record.jsonl`` in
    one write. Refused (``SiteWriteError``) unless ``target`` links to speakerbot's build.
    """
    build = _updatable_build(target)
    if build is None:
        raise SiteWriteError(f"{target} does not link to a build of speakerbot's to update")
    for name, content in files.items():
        path = build.joinpath(*_inside(name).parts)
        _make_folders(build, path.parent)
        _swap_in(path, content)
    for name in removed:
        build.joinpath(*_inside(name).parts).unlink(missing_ok=True)
    if record:
        # One write of whole lines, appended: a reader of the record sees it end at a line.
        descriptor = os.open(build / RECORD, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            os.write(descriptor, record)
        finally:
            os.close(descriptor)
    return build


def is_updatable(target: Path) -> bool:
    """Tell whether ``target`` links to a build of speakerbot's that ``update_site`` can update."""
    return _updatable_build(target) is not None


def _updatable_build(target: Path) -> Path | None:
    """Return the build of speakerbot's that ``target`` links to (None: there is none)."""
    build = _current_build(Path(os.path.abspath(target)))
    return build if build is not None and (build / MARKER).is_file() else None


def _swap_in(path: Path, content: bytes) -> None:
    """Write one file aside, then rename it over ``path``: a reader gets the old or the new."""
    aside = path.parent / f".{path.name}-{secrets.token_hex(8)}"
    try:
        _write_public(aside, content)
        os.replace(aside, path)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise


def _inside(name: str) -> PurePosixPath:
    """Return ``name`` as a path within the site; refuse one that would leave it."""
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise SiteWriteError(f"refusing to write {name!r} outside the site")
    return relative


def _make_folders(build: Path, folder: Path) -> None:
    """Make ``folder`` (within ``build``) and those above it, each readable by all."""
    missing = []
    while folder != build and not folder.is_dir():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir()
        os.chmod(made, FOLDER_MODE)


def _write_files(build: Path, files: Mapping[str, bytes]) -> None:
    """Write every file under ``build``; refuse a path that would leave it."""
    for name, content in files.items():
        path = build.joinpath(*_inside(name).parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_public(path, content)
    _write_public(build / MARKER, b"Built by speakerbot: this folder is replaced whole at "
                  b"every build.\n")
    for folder, _, _ in os.walk(build):
        os.chmod(folder, FOLDER_MODE)


def _write_public(path: Path, content: bytes) -> None:
    """Write one file of the site, readable by all whatever the umask.

    The daemon runs under ``UMask=0077`` (systemd/speakerbot.service), which would leave
    every file 0600: the web server, another user, could then read none of the archive.
    """
    path.write_bytes(content)
    os.chmod(path, FILE_MODE)


def _check_replaceable(target: Path) -> None:
    """Refuse to replace anything but a link, speakerbot's own build, or an empty folder."""
    if target.is_symlink():
        if target.exists() and not (target / MARKER).exists():
            raise SiteWriteError(f"{target} links to a folder speakerbot did not build")
        return
    if not target.exists():
        return
    if not target.is_dir():
        raise SiteWriteError(f"{target} exists and is not a folder")
    if not (target / MARKER).exists() and any(target.iterdir()):
        raise SiteWriteError(f"{target} is a folder that speakerbot did not build and is "
                             "not empty; choose another, or empty it")


def _current_build(target: Path) -> Path | None:
    """Return the build ``target`` links to now, if it is one of ours beside it."""
    if not target.is_symlink():
        return None
    current = (target.parent / os.readlink(target)).resolve()
    return current if current.parent == target.parent.resolve() else None


def _move_aside(target: Path) -> Path:
    """Move a real folder (an old build, or an empty one) aside, to be deleted; return it.

    The only moment a reader finds nothing at ``target``: once, when a real folder
    becomes the link, never between two builds.
    """
    aside = target.parent / f".{target.name}-{secrets.token_hex(8)}"
    target.rename(aside)
    return aside


def _remove_old_builds(target: Path, keep: Path, also: Path | None) -> None:
    """Delete the builds beside ``target`` other than ``keep`` (crashed or replaced ones).

    Only folders named like builds and holding the marker are deleted (a build still being
    written has none yet), and the one just replaced.
    """
    prefix = f".{target.name}-"
    for candidate in target.parent.iterdir():
        if (candidate == keep or not candidate.name.startswith(prefix)
                or candidate.is_symlink() or not candidate.is_dir()):
            continue
        if candidate == also or (candidate / MARKER).exists():
            shutil.rmtree(candidate, ignore_errors=True)
