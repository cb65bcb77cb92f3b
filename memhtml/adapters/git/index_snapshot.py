"""The git index as status needs it, in columns, reusable while the index file's bytes stay.

Decoding 10,000 entries into Python objects costs tens of milliseconds, and every read of the
store asks for status. A snapshot keeps the stage-0 entries as parallel columns (paths, and
``array`` columns of modes, sizes and times) that encode to a few flat byte strings, so a
snapshot saved by one process loads in another in about a millisecond. A snapshot is keyed by
the index file's own checksum, so it is only ever used for the exact bytes it came from.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Final, TypeVar

import attrs

from memhtml.adapters.git.index_file import IndexRecord, read_index_bytes, tree_digest

_CHECKSUM_LENGTH: Final = 20
_SHA_LENGTH: Final = 20
_SEPARATOR: Final = b"\x00"
_T = TypeVar("_T")


def index_key(data: bytes) -> bytes:
    """What names an index file's content: its trailer, or the body's sha1 when git skipped it.

    The trailer is the sha1 of everything before it, so equal keys mean equal entries. An
    all-zero trailer (``index.skipHash``) says nothing, and the body is hashed instead.
    """
    trailer = data[-_CHECKSUM_LENGTH:]
    if len(data) > _CHECKSUM_LENGTH and any(trailer):
        return b"t" + trailer
    return b"b" + hashlib.sha1(data, usedforsecurity=False).digest()


@attrs.frozen(kw_only=True, eq=False)
class IndexSnapshot:
    """The stage-0 entries of one index file, and the paths it holds in conflict.

    Attributes:
        key: ``index_key`` of the bytes it was decoded from.
        paths: Tracked paths, in index order; a path in conflict is not among them.
        modes, sizes, mtimes, ctimes: Per path, as the index records them (sizes are the
            low 32 bits, as git stores them; times in nanoseconds).
        shas: The blob ids, 20 raw bytes per path, in the same order.
        unmerged: Paths with stage 1–3 entries.
    """

    key: bytes
    paths: tuple[bytes, ...]
    modes: array[int]
    sizes: array[int]
    mtimes: array[int]
    ctimes: array[int]
    shas: bytes
    unmerged: frozenset[bytes]
    _tree: list[bytes] = attrs.field(factory=list, alias="_tree")
    # When derived by ``edited``: the key it was derived from and the paths the edit touched.
    derived_from: tuple[bytes, frozenset[bytes]] | None = None
    _signatures: list[list[tuple[int, int, int]]] = attrs.field(factory=list, init=False)
    _full_paths: dict[bytes, list[bytes]] = attrs.field(factory=dict, init=False)
    _newest: list[int] = attrs.field(factory=list, init=False)
    _lookups: list[tuple[frozenset[bytes], frozenset[bytes]]] = attrs.field(
        factory=list, init=False
    )

    def sha(self, position: int) -> bytes:
        """The hex blob id of the entry at ``position``."""
        start = position * _SHA_LENGTH
        return self.shas[start : start + _SHA_LENGTH].hex().encode("ascii")

    def entries(self) -> Iterator[tuple[bytes, bytes, int]]:
        """``(path, hex sha, mode)`` per tracked entry, in index order."""
        for position, path in enumerate(self.paths):
            yield path, self.sha(position), self.modes[position]

    @property
    def tree_known(self) -> bool:
        """Whether ``tree`` is already computed."""
        return bool(self._tree)

    def tree(self) -> bytes:
        """The id (hex) of the tree the tracked entries describe, computed once."""
        if not self._tree:
            self._tree.append(tree_digest(self.entries()))
        return self._tree[0]

    def known_tree(self, tree: bytes) -> None:
        """Record the tree id when the caller already knows it (a writer that just built it)."""
        if not self._tree:
            self._tree.append(tree)

    def signatures(self) -> list[tuple[int, int, int]]:
        """``(mtime, ctime, size)`` per path, as ``stat_signature`` gives them; built once."""
        if not self._signatures:
            columns = zip(self.mtimes, self.ctimes, self.sizes, strict=True)
            self._signatures.append(list(columns))
        return self._signatures[0]

    def newest_mtime(self) -> int:
        """The latest mtime any entry records (-1 with no entries); computed once."""
        if not self._newest:
            self._newest.append(max(self.mtimes, default=-1))
        return self._newest[0]

    def known_paths(self) -> frozenset[bytes]:
        """Every path the index holds, tracked or in conflict; built once."""
        return self._lookup()[0]

    def directories(self) -> frozenset[bytes]:
        """Every directory holding a path the index knows (``a``, ``a/b`` for ``a/b/c``)."""
        return self._lookup()[1]

    def _lookup(self) -> tuple[frozenset[bytes], frozenset[bytes]]:
        if not self._lookups:
            known = frozenset(self.paths) | self.unmerged
            parents = {path.rpartition(b"/")[0] for path in known}
            directories: set[bytes] = set()
            for parent in parents:
                while parent and parent not in directories:
                    directories.add(parent)
                    parent = parent.rpartition(b"/")[0]
            self._lookups.append((known, frozenset(directories)))
        return self._lookups[0]

    def full_paths(self, root: bytes) -> list[bytes]:
        """Every path joined to the working tree ``root``; built once per root."""
        found = self._full_paths.get(root)
        if found is None:
            prefix = root + b"/"
            found = self._full_paths[root] = [prefix + path for path in self.paths]
        return found

    def edited(
        self, key: bytes, removed: set[bytes], added: list[IndexRecord], tree: bytes | None
    ) -> IndexSnapshot:
        """This snapshot with ``removed`` paths dropped and stage-0 ``added`` records appended.

        What a writer that rewrote the index from this one's entries hands to status, so the
        next status needs no decode. Order does not matter to status; ``tree`` is the new
        tree when the writer knows it.
        """
        drop = sorted(position for position, path in enumerate(self.paths) if path in removed)
        bounds = list(zip([-1, *drop], [*drop, len(self.paths)], strict=True))

        def cut(column: array[int]) -> array[int]:
            kept = array(column.typecode)
            for start, stop in bounds:
                kept.extend(column[start + 1 : stop])
            return kept

        fresh = [record for record in added if not record.stage]
        paths = tuple(chain.from_iterable(self.paths[start + 1 : stop] for start, stop in bounds))
        shas = b"".join(
            self.shas[(start + 1) * _SHA_LENGTH : stop * _SHA_LENGTH] for start, stop in bounds
        )
        columns = [cut(self.modes), cut(self.sizes), cut(self.mtimes), cut(self.ctimes)]
        for record in fresh:
            for column, value in zip(
                columns, (record.mode, record.size, record.mtime_ns, record.ctime_ns), strict=True
            ):
                column.append(value)
        edited = IndexSnapshot(
            key=key,
            paths=paths + tuple(record.path for record in fresh),
            modes=columns[0],
            sizes=columns[1],
            mtimes=columns[2],
            ctimes=columns[3],
            shas=shas + b"".join(bytes.fromhex(record.sha.decode("ascii")) for record in fresh),
            unmerged=self.unmerged,
            _tree=[] if tree is None else [tree],
            derived_from=(self.key, frozenset(removed) | {record.path for record in added}),
        )
        # The derived columns status builds, carried over instead of rebuilt for 10k paths.
        if self._signatures:
            kept = _cut_list(self._signatures[0], bounds)
            kept += [(r.mtime_ns, r.ctime_ns, r.size) for r in fresh]
            edited._signatures.append(kept)
        for root, full in self._full_paths.items():
            prefix = root + b"/"
            edited._full_paths[root] = _cut_list(full, bounds) + [prefix + r.path for r in fresh]
        return edited

    def encode(self) -> dict[str, bytes]:
        """Flat byte strings, for ``decode`` in this or another process."""
        return {
            "key": self.key,
            "paths": _SEPARATOR.join(self.paths),
            "count": b"%d" % len(self.paths),
            "modes": self.modes.tobytes(),
            "sizes": self.sizes.tobytes(),
            "mtimes": self.mtimes.tobytes(),
            "ctimes": self.ctimes.tobytes(),
            "shas": self.shas,
            "unmerged": _SEPARATOR.join(sorted(self.unmerged)),
            "tree": self._tree[0] if self._tree else b"",
        }

    @classmethod
    def decode(cls, fields: dict[str, bytes]) -> IndexSnapshot:
        """The snapshot ``encode`` gave.

        Raises:
            ValueError, KeyError, TypeError: The fields do not hold a snapshot.
        """
        count = int(fields["count"])
        joined = fields["paths"]
        paths = tuple(joined.split(_SEPARATOR)) if count else ()
        columns = [_column(code, fields[name]) for code, name in _COLUMNS]
        shas = fields["shas"]
        if any(len(column) != count for column in columns) or len(paths) != count:
            raise ValueError("snapshot columns disagree")
        if len(shas) != count * _SHA_LENGTH:
            raise ValueError("snapshot shas disagree")
        unmerged = fields["unmerged"]
        tree = fields["tree"]
        return cls(
            key=fields["key"],
            paths=paths,
            modes=columns[0],
            sizes=columns[1],
            mtimes=columns[2],
            ctimes=columns[3],
            shas=shas,
            unmerged=frozenset(unmerged.split(_SEPARATOR)) if unmerged else frozenset(),
            _tree=[tree] if tree else [],
        )


def _cut_list(column: list[_T], bounds: list[tuple[int, int]]) -> list[_T]:
    """``column`` without the positions between ``bounds``' runs (see ``edited``)."""
    kept: list[_T] = []
    for start, stop in bounds:
        kept.extend(column[start + 1 : stop])
    return kept


_COLUMNS: Final = (("L", "modes"), ("L", "sizes"), ("q", "mtimes"), ("q", "ctimes"))


def _column(code: str, raw: bytes) -> array[int]:
    column = array(code)
    column.frombytes(raw)
    return column


def snapshot_of(key: bytes, records: Iterable[IndexRecord]) -> IndexSnapshot:
    """The snapshot of an index's records (any stage, in file order)."""
    stage0: list[IndexRecord] = []
    unmerged: set[bytes] = set()
    for record in records:
        if record.stage:
            unmerged.add(record.path)
        else:
            stage0.append(record)
    tracked = [record for record in stage0 if record.path not in unmerged]
    return IndexSnapshot(
        key=key,
        paths=tuple(record.path for record in tracked),
        modes=array("L", (record.mode for record in tracked)),
        sizes=array("L", (record.size for record in tracked)),
        mtimes=array("q", (record.mtime_ns for record in tracked)),
        ctimes=array("q", (record.ctime_ns for record in tracked)),
        shas=b"".join(bytes.fromhex(record.sha.decode("ascii")) for record in tracked),
        unmerged=frozenset(unmerged),
    )


def read_snapshot(data: bytes) -> IndexSnapshot:
    """Decode the index file ``data`` into a snapshot.

    Raises:
        ValueError: The bytes are not an index, or its checksum does not match.
    """
    return snapshot_of(index_key(data), read_index_bytes(data))
