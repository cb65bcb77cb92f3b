"""Which parsed file may hold an active content hash: the index's dedup rule, decided purely.

The index keeps at most one active (not archived) non-task row per content hash. A rebuild
keeps the first such file in path order; an update also has to decide around the rows already
stored, some of which this very pass moves or re-projects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from memhtml.domain.model import MemoryDoc
from memhtml.domain.paths import is_archived_path
from memhtml.domain.vocabulary import TASK_TYPE


@attrs.frozen(kw_only=True)
class ParsedFile:
    """A file that parsed: its path, blob and document."""

    path: str
    blob_sha: str
    doc: MemoryDoc


@attrs.frozen(kw_only=True)
class Claims:
    """An update's parsed files split by what the stored active hashes allow.

    Attributes:
        ready: May be projected now.
        waiting: Their hash is held only by rows this pass re-projects (which may give it
            up); decided again after those.
        duplicates: Another memory holds the hash; skipped.
    """

    ready: tuple[ParsedFile, ...]
    waiting: tuple[ParsedFile, ...]
    duplicates: tuple[ParsedFile, ...]


def holds_active_hash(path: str, memory_type: str) -> bool:
    """Whether a file takes part in the dedup index: active (outside ``archive/``), not a task."""
    return not is_archived_path(path) and memory_type != TASK_TYPE


def split_duplicates(
    parsed: Iterable[ParsedFile],
) -> tuple[list[ParsedFile], list[ParsedFile]]:
    """Keep the first active non-task file per content hash; return ``(kept, duplicates)``.

    Without this, the index's uniqueness would refuse the whole batch holding the second file.
    """
    owners: set[str] = set()
    kept: list[ParsedFile] = []
    duplicates: list[ParsedFile] = []
    for file in parsed:
        if _holds(file):
            if file.doc.content_hash in owners:
                duplicates.append(file)
                continue
            owners.add(file.doc.content_hash)
        kept.append(file)
    return kept, duplicates


def hashes_to_check(parsed: Iterable[ParsedFile]) -> list[str]:
    """The sorted content hashes of the files that take part in the dedup index."""
    return sorted({f.doc.content_hash for f in parsed if _holds(f)})


def claim_hashes(
    parsed: Sequence[ParsedFile],
    holders: Mapping[str, frozenset[str]],
    *,
    released: frozenset[str] | None = None,
) -> Claims:
    """Split files into ready, waiting and duplicate, against the active hashes stored now.

    A file is ready when no other active non-task row holds its hash and no earlier file of
    this pass claimed it; it waits when every holder is itself being re-projected (and may be
    giving the hash up); otherwise it duplicates another memory. With ``released`` (rows
    removed or parked before these projections, in the same transaction), nothing waits any
    more: a hash still held now stays held.

    Args:
        parsed: The files, in projection order.
        holders: For each hash, the paths whose active rows hold it.
        released: Paths whose rows give their hash up before these projections.
    """
    in_pass = {f.path for f in parsed}
    ready: list[ParsedFile] = []
    waiting: list[ParsedFile] = []
    duplicates: list[ParsedFile] = []
    claimed: set[str] = set()
    for file in parsed:
        if not _holds(file):
            ready.append(file)
            continue
        others = holders.get(file.doc.content_hash, frozenset()) - {file.path}
        others -= released or frozenset()
        if file.doc.content_hash in claimed:
            duplicates.append(file)
        elif not others:
            claimed.add(file.doc.content_hash)
            ready.append(file)
        elif released is None and others <= in_pass:
            waiting.append(file)
        else:
            duplicates.append(file)
    return Claims(ready=tuple(ready), waiting=tuple(waiting), duplicates=tuple(duplicates))


def _holds(file: ParsedFile) -> bool:
    return holds_active_hash(file.path, file.doc.memory_type)
