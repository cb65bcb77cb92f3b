"""Which parsed file may hold an active content hash: the index's dedup rule, decided purely.

The index keeps at most one active (not archived) non-task row per content hash: among the
active non-task files of the tree that share a hash, the one with the smallest path. A rebuild
applies that to the whole tree; an update applies it to the files it reads and the rows already
stored (some of which this very pass moves or re-projects), and remembers every file it skips
as a duplicate, so that file is read again when the row holding its hash goes or changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

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
    """An update's parsed files split by who holds each active content hash afterwards.

    Attributes:
        ready: May be projected now: no other stored row holds their hash.
        waiting: Their hash is still held only by rows of this pass that give it up (a
            duplicate's row goes, a waiting row is parked, a ready row takes another hash);
            projected after those.
        duplicates: A file with a smaller path holds, or takes, the hash; skipped.
        displaced: ``(path, content hash)`` of stored holders outside this pass that lose
            their hash to a smaller path of the pass; their rows go before any projection,
            and they are skipped duplicates from then on.
    """

    ready: tuple[ParsedFile, ...]
    waiting: tuple[ParsedFile, ...]
    duplicates: tuple[ParsedFile, ...]
    displaced: tuple[tuple[str, str], ...] = ()


def holds_active_hash(path: str, memory_type: str) -> bool:
    """Whether a file takes part in the dedup index: active (outside ``archive/``), not a task."""
    return not is_archived_path(path) and memory_type != TASK_TYPE


def split_duplicates(
    parsed: Iterable[ParsedFile],
) -> tuple[list[ParsedFile], list[ParsedFile]]:
    """Keep the smallest path per active non-task content hash; return ``(kept, duplicates)``.

    Both lists keep the input's order. Without this, the index's uniqueness would refuse the
    whole batch holding the second file.
    """
    files = list(parsed)
    winners: dict[str, str] = {}
    for file in files:
        if _holds(file):
            held = winners.get(file.doc.content_hash)
            if held is None or file.path < held:
                winners[file.doc.content_hash] = file.path
    kept: list[ParsedFile] = []
    duplicates: list[ParsedFile] = []
    for file in files:
        if _holds(file) and winners[file.doc.content_hash] != file.path:
            duplicates.append(file)
        else:
            kept.append(file)
    return kept, duplicates


class FirstHolders:
    """``split_duplicates`` for files that arrive batch by batch in ascending path order.

    A rebuild writes each batch as it is parsed, before later batches exist. In ascending path
    order the first file to hold a hash has the smallest path, so a later holder is a duplicate
    the moment it arrives, and the split over all batches equals ``split_duplicates`` over the
    whole tree.
    """

    def __init__(self) -> None:
        self._held: set[str] = set()
        self._last: str | None = None

    def split(self, parsed: Iterable[ParsedFile]) -> tuple[list[ParsedFile], list[ParsedFile]]:
        """This batch's ``(kept, duplicates)``, each in input order.

        Raises:
            ValueError: A path is not greater than every path seen before it.
        """
        kept: list[ParsedFile] = []
        duplicates: list[ParsedFile] = []
        for file in parsed:
            if self._last is not None and file.path <= self._last:
                raise ValueError("files must arrive in ascending path order")
            self._last = file.path
            if not _holds(file):
                kept.append(file)
            elif file.doc.content_hash in self._held:
                duplicates.append(file)
            else:
                self._held.add(file.doc.content_hash)
                kept.append(file)
        return kept, duplicates


def hashes_to_check(parsed: Iterable[ParsedFile]) -> list[str]:
    """The sorted content hashes of the files that take part in the dedup index."""
    return sorted({f.doc.content_hash for f in parsed if _holds(f)})


def claim_hashes(parsed: Sequence[ParsedFile], holders: Mapping[str, frozenset[str]]) -> Claims:
    """Decide who holds each contested hash: the smallest path, as a rebuild would.

    The candidates for a hash are the files of this pass that hold it and the stored rows
    outside the pass that hold it now (rows of this pass stand for their file). The smallest
    path wins; every other file of the pass is a duplicate and every other stored row outside
    the pass is displaced. A winning file is ready unless a stored row of this pass still
    holds its hash, and then waits for that row to give it up.

    Args:
        parsed: This pass's files, in projection order: every changed file, and every
            remembered duplicate whose hash may have been freed.
        holders: For each hash the files hold, the paths whose active rows hold it now.
    """
    in_pass = {f.path for f in parsed}
    contenders: dict[str, list[str]] = {}
    for file in parsed:
        if _holds(file):
            contenders.setdefault(file.doc.content_hash, []).append(file.path)
    winners: dict[str, str] = {}
    displaced: list[tuple[str, str]] = []
    for content_hash, paths in contenders.items():
        outside = holders.get(content_hash, frozenset()) - in_pass
        winner = min([*paths, *outside])
        winners[content_hash] = winner
        displaced += [(path, content_hash) for path in sorted(outside - {winner})]
    gone = {path for path, _ in displaced}
    ready: list[ParsedFile] = []
    waiting: list[ParsedFile] = []
    duplicates: list[ParsedFile] = []
    for file in parsed:
        content_hash = file.doc.content_hash
        if not _holds(file):
            ready.append(file)
        elif winners[content_hash] != file.path:
            duplicates.append(file)
        elif holders.get(content_hash, frozenset()) - gone - {file.path}:
            waiting.append(file)
        else:
            ready.append(file)
    return Claims(
        ready=tuple(ready),
        waiting=tuple(waiting),
        duplicates=tuple(duplicates),
        displaced=tuple(sorted(displaced)),
    )


def duplicate_hashes(claims: Claims) -> dict[str, str]:
    """Every file a pass leaves skipped as a duplicate, with the content hash it repeats."""
    skipped = {f.path: f.doc.content_hash for f in claims.duplicates}
    skipped.update(claims.displaced)
    return skipped


def duplicates_to_revisit(
    remembered: Mapping[str, str],
    holders: Mapping[str, frozenset[str]],
    touched: AbstractSet[str],
) -> tuple[str, ...]:
    """The remembered duplicates an update must read again: those whose hash may be free.

    A duplicate's hash may be free when a row holding it is removed, moved or re-projected
    by this pass (``touched``), or when no row holds it at all (a pass that died after freeing
    it). Otherwise its holder, unchanged, still has the smaller path. A duplicate this pass
    already reads (``touched``) is left to it, and a remembered path that holds the hash
    itself is no duplicate.

    Args:
        remembered: Skipped duplicates, path to the content hash it repeats.
        holders: For each remembered hash, the paths whose active rows held it before this
            pass changed anything.
        touched: Paths whose rows this pass removes, moves or re-projects.
    """
    revisit: list[str] = []
    for path, content_hash in remembered.items():
        held_by = holders.get(content_hash, frozenset())
        if path in touched or path in held_by:
            continue
        if not held_by or held_by & touched:
            revisit.append(path)
    return tuple(sorted(revisit))


def remembered_after(
    remembered: Mapping[str, str],
    holders: Mapping[str, frozenset[str]],
    decided: AbstractSet[str],
    skipped: Mapping[str, str],
) -> dict[str, str]:
    """The skipped duplicates to remember after a pass.

    Args:
        remembered: The duplicates remembered before it.
        holders: As given to ``duplicates_to_revisit``; a remembered path that holds its hash
            is forgotten.
        decided: Every path the pass planned or read: each is now either indexed, gone, or
            one of ``skipped``.
        skipped: The pass's own duplicates (``duplicate_hashes``).
    """
    kept = {
        path: content_hash
        for path, content_hash in remembered.items()
        if path not in decided and path not in holders.get(content_hash, frozenset())
    }
    kept.update(skipped)
    return kept


def _holds(file: ParsedFile) -> bool:
    return holds_active_hash(file.path, file.doc.memory_type)
