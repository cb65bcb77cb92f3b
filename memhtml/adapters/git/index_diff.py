"""What changed between two snapshots of one index file: the paths whose entry differs.

The watcher's status amends its last answer when the index file changed (a commit, an add, a
checkout, by this process or another); only the paths whose entry changed need a fresh look.
"""

from __future__ import annotations

import itertools
import operator
from array import array
from collections.abc import Iterator
from typing import Final

import attrs

from memhtml.adapters.git.index_snapshot import IndexSnapshot

_SHA_LENGTH: Final = 20
_BLOCK: Final = 64
"""Entries compared at once while two snapshots agree."""


def entry_changes(old: IndexSnapshot, new: IndexSnapshot) -> set[bytes]:
    """Paths whose index entry (blob and mode) differs between two snapshots, those only
    one holds, and those whose conflict state changed. Stat data is left out: a working
    file's verdict depends on its entry's blob, not on how the index stamped it."""
    if new.derived_from is not None and new.derived_from[0] == old.key:
        # A writer of this process derived ``new`` from ``old``: it knows what it touched.
        return set(new.derived_from[1])
    changed = set(old.unmerged ^ new.unmerged)
    if old.paths == new.paths and old.shas == new.shas and old.modes == new.modes:
        return changed
    head = _common_run(old, new, 0, 0, 1)
    tail = _common_run(old, new, len(old.paths) - 1, len(new.paths) - 1, -1)
    tail = min(tail, len(old.paths) - head, len(new.paths) - head)
    a = _Entries.of(old, head, len(old.paths) - tail)
    b = _Entries.of(new, head, len(new.paths) - tail)
    if _ascending(a.paths) and _ascending(b.paths):
        changed.update(_merged_changes(a, b))
    else:
        # A snapshot a writer of this process derived appends its new entries (order does not
        # matter to status), and a rule that needs no order costs a set of every entry.
        changed.update(path for path, _, _ in a.entry_set() ^ b.entry_set())
    return changed


@attrs.frozen
class _Entries:
    """A run of a snapshot's entries: paths, blobs (20 raw bytes each) and modes."""

    paths: tuple[bytes, ...]
    shas: bytes
    modes: array[int]

    @classmethod
    def of(cls, snapshot: IndexSnapshot, start: int, stop: int) -> _Entries:
        return cls(
            snapshot.paths[start:stop],
            snapshot.shas[start * _SHA_LENGTH : stop * _SHA_LENGTH],
            snapshot.modes[start:stop],
        )

    def entry_set(self) -> set[tuple[bytes, bytes, int]]:
        shas, size = self.shas, _SHA_LENGTH
        blobs = [shas[start : start + size] for start in range(0, len(shas), size)]
        return set(zip(self.paths, blobs, self.modes, strict=True))


def _common_run(old: IndexSnapshot, new: IndexSnapshot, i: int, j: int, step: int) -> int:
    """How many entries, from position ``i`` of ``old`` and ``j`` of ``new`` going ``step``
    (1 forwards, -1 backwards), agree in path, blob and mode: whole blocks first, then one by
    one."""
    run, size = 0, _SHA_LENGTH
    block = _BLOCK
    while block:
        while True:
            lo_a, hi_a = (i, i + block) if step > 0 else (i - block + 1, i + 1)
            lo_b, hi_b = (j, j + block) if step > 0 else (j - block + 1, j + 1)
            if min(lo_a, lo_b) < 0 or hi_a > len(old.paths) or hi_b > len(new.paths):
                break
            if not (
                old.paths[lo_a:hi_a] == new.paths[lo_b:hi_b]
                and old.shas[lo_a * size : hi_a * size] == new.shas[lo_b * size : hi_b * size]
                and old.modes[lo_a:hi_a] == new.modes[lo_b:hi_b]
            ):
                break
            run, i, j = run + block, i + step * block, j + step * block
        block //= 8
    return run


def _ascending(paths: tuple[bytes, ...]) -> bool:
    """Whether ``paths`` strictly ascend, as git keeps an index's stage-0 entries."""
    return all(map(operator.lt, paths, itertools.islice(paths, 1, None)))


def _merged_changes(old: _Entries, new: _Entries) -> Iterator[bytes]:
    """``entry_changes``' paths of two ascending snapshots, by one merge of the two: runs of
    :data:`_BLOCK` entries equal in path, blob and mode are skipped with three slice
    comparisons, so an index of 10,000 entries that differs in a few costs a few hundred
    comparisons instead of two sets of every entry."""
    a, b, size = old.paths, new.paths, _SHA_LENGTH
    i = j = 0
    while i < len(a) and j < len(b):
        k = min(_BLOCK, len(a) - i, len(b) - j)
        if (
            a[i : i + k] == b[j : j + k]
            and old.shas[i * size : (i + k) * size] == new.shas[j * size : (j + k) * size]
            and old.modes[i : i + k] == new.modes[j : j + k]
        ):
            i, j = i + k, j + k
            continue
        for _ in range(k):  # one entry at a time through this run, then try a run again
            if i == len(a) or j == len(b):
                break
            if a[i] == b[j]:
                if (
                    old.shas[i * size : (i + 1) * size] != new.shas[j * size : (j + 1) * size]
                    or old.modes[i] != new.modes[j]
                ):
                    yield a[i]
                i, j = i + 1, j + 1
            elif a[i] < b[j]:
                yield a[i]
                i += 1
            else:
                yield b[j]
                j += 1
    yield from a[i:]
    yield from b[j:]
