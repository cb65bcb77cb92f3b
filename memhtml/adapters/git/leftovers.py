"""What a killed writer leaves outside git's data: temporary working files, and dulwich's
half-written objects (loose-object and pack-index lock files, unfinished temporary packs, packs
whose index was never written). Git and dulwich ignore all of them, but a retry that writes
the same object or pack trips over its lock file, and ``git count-objects`` calls them garbage.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from memhtml.ports.git_writer import RecoveryFinding

LOCK_SUFFIX: Final = ".lock"
SHOWN_PATHS: Final = 5
"""How many paths a finding lists before it says "…"."""
# What `working_tree.write_file` names its temporary files: `.<name>.<uuid4 hex>.tmp`.
TEMP_FILE: Final = re.compile(r"^\..+\.[0-9a-f]{32}\.tmp$")
# What dulwich's `add_pack` names an unfinished pack (`tempfile.mkstemp(suffix=".pack")`).
_TEMP_PACK: Final = re.compile(r"^tmp[a-z0-9_]{8}\.pack$")
_LOOSE_DIRECTORY: Final = re.compile(r"^[0-9a-f]{2}$")
# File times and the journal's clock may disagree by a filesystem's timestamp granularity.
SLACK_NS: Final = 2_000_000_000
_SKIPPED_DIRECTORIES: Final = frozenset({".git", ".memhtml"})


def made_since(path: Path, since_ns: int) -> bool:
    """Whether ``path`` was last written at or after ``since_ns`` (``time.time_ns``)."""
    try:
        return path.lstat().st_mtime_ns >= since_ns - SLACK_NS
    except FileNotFoundError:
        return False


def removed(kind: str, paths: list[Path], base: Path) -> list[RecoveryFinding]:
    """Delete ``paths`` and say so in one repaired finding (none when there is nothing)."""
    if not paths:
        return []
    for path in paths:
        path.unlink(missing_ok=True)
    shown = ", ".join(str(p.relative_to(base)) for p in paths[:SHOWN_PATHS])
    more = "…" if len(paths) > SHOWN_PATHS else ""
    detail = f"{len(paths)} removed ({shown}{more})"
    return [RecoveryFinding(kind=kind, detail=detail, repaired=True)]


def object_leftovers(git_dir: Path) -> Iterator[Path]:
    """dulwich's half-written object files: loose-object and pack-index lock files, unfinished
    temporary packs, and packs whose index was never written (both git and dulwich ignore
    those, but a retry of the same pack would trip over its lock)."""
    objects = git_dir / "objects"
    try:
        names = os.listdir(objects)
    except FileNotFoundError:
        return
    for name in names:
        if _LOOSE_DIRECTORY.match(name):
            try:
                inner = os.listdir(objects / name)
            except OSError:
                continue
            yield from (objects / name / f for f in inner if f.endswith(LOCK_SUFFIX))
    packs = objects / "pack"
    try:
        pack_names = set(os.listdir(packs))
    except FileNotFoundError:
        return
    for name in sorted(pack_names):
        unfinished = _TEMP_PACK.match(name) or name.endswith(".idx" + LOCK_SUFFIX)
        unindexed = name.endswith(".pack") and name[: -len(".pack")] + ".idx" not in pack_names
        if unfinished or unindexed:
            yield packs / name


def temp_files_in(directory: Path) -> list[Path]:
    """The writer's temporary files directly in ``directory``."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [directory / name for name in sorted(names) if TEMP_FILE.match(name)]


def walk_temp_files(root: Path) -> Iterator[Path]:
    """The writer's temporary files anywhere in the working tree (not ``.git``, ``.memhtml``)."""
    for directory, subdirectories, files in os.walk(root):
        if directory == str(root):
            subdirectories[:] = [d for d in subdirectories if d not in _SKIPPED_DIRECTORIES]
        yield from (Path(directory) / name for name in sorted(files) if TEMP_FILE.match(name))
