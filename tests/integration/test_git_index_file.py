"""The bulk index codec agrees with dulwich's: what one writes the other reads, entry for
entry, and the tree id computed from an index is the one git would write.
"""

from __future__ import annotations

import io
import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from dulwich.index import (
    ConflictedIndexEntry,
    Index,
    IndexChecksumWriter,
    IndexEntry,
    commit_tree,
    write_index_dict,
)
from dulwich.object_store import MemoryObjectStore
from dulwich.objects import ObjectID
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.git.index_file import (
    IndexRecord,
    StatStamp,
    encode_entry,
    index_bytes,
    read_index,
    read_index_bytes,
    remember_written,
    tree_id,
)
from memhtml.ports.git import blob_sha

MODES = (0o100644, 0o100755, 0o120000, 0o160000)
names = st.sampled_from([b"a", b"b.html", b"c-d", b"e", b"a.html", b"a-b", b"z" * 70])
paths = st.lists(names, min_size=1, max_size=4).map(b"/".join)


def _consistent(found: set[bytes]) -> bool:
    return not any(other.startswith(path + b"/") for path in found for other in found)


stamps = st.builds(
    StatStamp,
    ctime_ns=st.integers(min_value=0, max_value=2**32 * 10**9 - 1),
    mtime_ns=st.integers(min_value=0, max_value=2**32 * 10**9 - 1),
    dev=st.integers(min_value=0, max_value=2**32 - 1),
    ino=st.integers(min_value=0, max_value=2**32 - 1),
    uid=st.integers(min_value=0, max_value=2**32 - 1),
    gid=st.integers(min_value=0, max_value=2**32 - 1),
    size=st.integers(min_value=0, max_value=2**32 - 1),
)


@st.composite
def indexes(draw: st.DrawFn) -> list[IndexRecord]:
    """Stage-0 records over paths that can share one tree, with varied modes and stamps."""
    found = draw(st.sets(paths, min_size=0, max_size=8).filter(_consistent))
    return [
        encode_entry(
            path,
            blob_sha(path).encode(),
            draw(st.sampled_from(MODES)),
            draw(stamps),
            extended_flags=draw(st.sampled_from([0, 0x4000])),
        )
        for path in sorted(found)
    ]


@contextmanager
def _written(data: bytes) -> Iterator[str]:
    """A temporary index file holding ``data`` (hypothesis examples cannot use tmp_path)."""
    with tempfile.TemporaryDirectory() as directory:
        target = Path(directory) / "index"
        target.write_bytes(data)
        yield str(target)


@settings(deadline=None)
@given(indexes())
@example([encode_entry(b"x" * 5000, blob_sha(b"").encode(), 0o100644)])
def test_records_round_trip(records: list[IndexRecord]) -> None:
    """What index_bytes writes, read_index reads back unchanged (long names included)."""
    with _written(index_bytes(records)) as path:
        assert sorted(records) == sorted(read_index(path))


@settings(deadline=None)
@given(indexes())
def test_dulwich_reads_what_we_write(records: list[IndexRecord]) -> None:
    """dulwich decodes our index to the same paths, shas, modes and sizes."""
    with _written(index_bytes(records)) as index_path:
        index = Index(index_path)
    decoded: dict[bytes, tuple[bytes, int, int]] = {}
    for path, entry in index.items():
        assert isinstance(entry, IndexEntry)
        decoded[path] = (entry.sha, entry.mode, entry.size)
    assert {r.path: (r.sha, r.mode, r.size) for r in records} == decoded


@settings(deadline=None)
@given(indexes(), st.sampled_from([2, 3, 4]))
def test_we_read_what_dulwich_writes(records: list[IndexRecord], version: int) -> None:
    """Every index version dulwich writes, prefix-compressed 4 included, reads back equal."""
    entries: dict[bytes, IndexEntry | ConflictedIndexEntry] = {
        r.path: IndexEntry(
            ctime=(r.ctime_ns // 10**9, r.ctime_ns % 10**9),
            mtime=(r.mtime_ns // 10**9, r.mtime_ns % 10**9),
            dev=0,
            ino=0,
            mode=r.mode,
            uid=0,
            gid=0,
            size=r.size,
            sha=ObjectID(r.sha),
        )
        for r in records
    }
    buffer = io.BytesIO()
    writer = IndexChecksumWriter(buffer)
    write_index_dict(writer, entries, version=version)
    writer.write_checksum()
    with _written(buffer.getvalue()) as path:
        decoded = read_index(path)
    expected = {(r.path, r.sha, r.mode, r.size, r.mtime_ns, r.ctime_ns) for r in records}
    got = {(r.path, r.sha, r.mode, r.size, r.mtime_ns, r.ctime_ns) for r in decoded}
    assert expected == got


@given(indexes())
@example([])
def test_tree_id_is_gits(records: list[IndexRecord]) -> None:
    """The tree id hashed from records equals the tree dulwich builds from the same entries."""
    store = MemoryObjectStore()
    expected = commit_tree(store, [(r.path, ObjectID(r.sha), r.mode) for r in records])
    assert expected == tree_id(records)


def test_unmerged_stages_are_kept_apart(tmp_path: Path) -> None:
    """Stages 1–3 of one path survive a round trip, in stage order."""
    sides = [
        encode_entry(b"a.html", blob_sha(bytes([n])).encode(), 0o100644, stage=n) for n in (3, 1, 2)
    ]
    target = tmp_path / "index"
    target.write_bytes(index_bytes(sides))
    assert [1, 2, 3] == [record.stage for record in read_index(str(target))]


def test_a_corrupt_index_is_refused(tmp_path: Path) -> None:
    """A flipped byte fails the checksum instead of yielding wrong entries."""
    data = bytearray(index_bytes([encode_entry(b"a", blob_sha(b"a").encode(), 0o100644)]))
    data[20] ^= 0xFF
    target = tmp_path / "index"
    target.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        read_index(str(target))


def test_no_index_file_is_an_empty_index(tmp_path: Path) -> None:
    """A repository that never had an index reads as no entries."""
    assert [] == read_index(str(tmp_path / "index"))


def test_a_file_read_again_gives_its_records_and_a_changed_one_is_checked_anew() -> None:
    """The same bytes read twice give equal records in a fresh list; the same entries with a
    flipped byte right after are still refused, not answered from the last read."""
    good = index_bytes([encode_entry(b"a", blob_sha(b"a").encode(), 0o100644)])
    first = read_index_bytes(good)
    first.clear()
    second = read_index_bytes(bytes(good))
    damaged = bytearray(good)
    damaged[20] ^= 0xFF
    with pytest.raises(ValueError, match="checksum"):
        read_index_bytes(bytes(damaged))
    assert [b"a"] == [record.path for record in second]


@settings(deadline=None)
@given(indexes(), st.randoms(use_true_random=False))
def test_what_a_writer_remembers_is_what_decoding_gives(
    records: list[IndexRecord], shuffled: random.Random
) -> None:
    """The records a commit remembers for the index it wrote (in whatever order it holds
    them) are exactly what reading those bytes back would decode."""
    data = index_bytes(records)
    decoded = read_index_bytes(data)
    read_index_bytes(index_bytes([]))  # another index read since: the next read decodes
    assert decoded == read_index_bytes(data)
    held = list(records)
    shuffled.shuffle(held)
    remember_written(data, held)
    remembered = read_index_bytes(data)
    assert decoded == remembered
    assert all(any(r is h for h in held) for r in remembered)  # not decoded again
