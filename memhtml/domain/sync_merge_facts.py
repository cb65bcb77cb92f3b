"""What the sync merge rules read off paths and versions (docs/sync.md §3): which files are
generated, where a moved file may go, whether a side brought a memory to a path, and the few
facts of a version the rules compare."""

from __future__ import annotations

import re
from typing import Final

from memhtml.domain.paths import GENERATED_NAMES, origin_path
from memhtml.domain.sidecar import SIDECAR_PATH
from memhtml.domain.sync_values import SUPERSEDES, MemoryFacts, MergeSides, Side, Version

_VARIANT: Final = re.compile(r"-\d+(\.[^./]*)?$")


def is_generated(path: str) -> bool:
    """A file a publish step regenerates (``index.html``, ``sitemap.xml`` at any depth)."""
    return path.rsplit("/", 1)[-1] in GENERATED_NAMES


def variant(path: str, n: int) -> str:
    """``dir/stem-n.ext`` (``dir/name-n`` without an extension) for ``n`` ≥ 2."""
    folder, slash, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    base = f"{stem}-{n}{dot}{ext}" if stem else f"{name}-{n}"
    return f"{folder}{slash}{base}"


def arrived(sides: MergeSides, side: Side, path: str, content_hash: str | None = None) -> bool:
    """``side`` holds a memory at ``path`` that the base did not hold there: a new file, or one
    that replaced another (a merge moved it onto a path a file it moved aside had held). With
    ``content_hash``, only a copy of that content counts."""
    found = sides.version(side, path)
    if found is None or found.memory is None:
        return False
    if content_hash is not None and found.memory.content_hash != content_hash:
        return False
    return hash_of(memory_of(sides.base.get(path))) != found.memory.content_hash


def archived_from(archived: str, path: str) -> bool:
    """``archived`` is where archiving ``path`` puts it (``archive/<YYYY>/<path>``, or that with
    the ``-<n>`` an occupied archive path gets)."""
    origin = origin_path(archived)
    return origin is not None and (origin == path or _VARIANT.sub(r"\1", origin) == path)


def special(path: str) -> bool:
    """A path with a rule of its own: never a memory's new home."""
    return path == SIDECAR_PATH or is_generated(path)


def blob_of(version: Version | None) -> str | None:
    return None if version is None else version.blob


def hash_of(facts: MemoryFacts | None) -> str | None:
    return None if facts is None else facts.content_hash


def memory_of(version: Version | None) -> MemoryFacts | None:
    return None if version is None else version.memory


def successor_targets(facts: MemoryFacts | None) -> frozenset[str]:
    """What a memory says it supersedes: two new files superseding one are rival corrections."""
    if facts is None:
        return frozenset()
    return frozenset(target for rel, target in facts.links if rel == SUPERSEDES)
