"""The git index file (``.git/index``), read and written in bulk.

dulwich parses and writes the index one small read or write at a time, which costs about
0.25 s per 10,000 entries each way: more than the rest of a status or a one-file commit put
together. Versions 2 and 3 (what git and dulwich write by default) are decoded here with one
``struct`` call per entry, and each entry keeps its encoded bytes, so a commit re-emits the
untouched entries verbatim and encodes only the paths it changed. Version 4 (prefix-compressed
paths) goes through dulwich's reader; the rewrite is then version 3, which every git reads.
SHA-1 only: the adapter refuses other object formats when it opens a repository.
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
from collections.abc import Iterable
from typing import Final, NamedTuple, TypeAlias, Union

from dulwich.index import (
    ConflictedIndexEntry,
    IndexChecksumReader,
    IndexEntry,
    read_index_dict_with_version,
)

_SIGNATURE: Final = b"DIRC"
_HEADER: Final = struct.Struct(">4sLL")
# ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size, 20-byte sha, flags.
_ENTRY: Final = struct.Struct(">10L20sH")
_EXTENDED_FLAGS: Final = struct.Struct(">H")
_CHECKSUM_LENGTH: Final = 20
_FAST_VERSIONS: Final = frozenset({2, 3})
WRITTEN_VERSION: Final = 3
_FLAG_EXTENDED: Final = 0x4000
_NAME_MASK: Final = 0x0FFF
_STAGE_SHIFT: Final = 12
_STAGE_MASK: Final = 0x3
_WORD: Final = 0xFFFFFFFF
_NS: Final = 1_000_000_000
_Node: TypeAlias = dict[bytes, Union["_Node", tuple[int, bytes]]]


class IndexRecord(NamedTuple):
    """One index entry: what status needs, plus the entry's encoded bytes.

    ``stage`` is 0 for a normal entry and 1–3 for the sides of an unmerged path.
    """

    path: bytes
    stage: int
    mode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    sha: bytes
    raw: bytes


# The last index file decoded in this process, and its records: a write reads the same file in
# its status walk and again under the index lock to commit, and equal bytes decode alike.
_last_read: tuple[bytes, tuple[IndexRecord, ...]] | None = None


def read_index(index_path: str) -> list[IndexRecord]:
    """Every entry of the index at ``index_path``, in file order; none when there is no file.

    Raises:
        ValueError: The file is not an index or its checksum does not match.
    """
    try:
        with open(index_path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return []
    return read_index_bytes(data)


def read_index_bytes(data: bytes) -> list[IndexRecord]:
    """Every entry of the index file ``data``, in file order.

    The same bytes as the previous call of this process (compared whole, not by checksum)
    give that call's records again without decoding.

    Raises:
        ValueError: The bytes are not an index or their checksum does not match.
    """
    global _last_read
    last = _last_read
    if last is not None and last[0] == data:
        return list(last[1])
    records = _decoded(data)
    _last_read = (data, tuple(records))
    return records


def remember_written(data: bytes, records: Iterable[IndexRecord]) -> None:
    """Record that ``data`` is ``index_bytes(records)``, which this process just wrote, so the
    next ``read_index_bytes`` of those bytes (the next commit's, in a warm process) gives the
    records without decoding them: ~60 ms at 10,000 entries. They are what decoding gives:
    ``index_bytes`` writes each record's own bytes, in this order."""
    global _last_read
    _last_read = (data, tuple(sorted(records, key=_file_order)))


def _file_order(record: IndexRecord) -> tuple[bytes, int]:
    return record.path, record.stage


def _decoded(data: bytes) -> list[IndexRecord]:
    if len(data) < _HEADER.size + _CHECKSUM_LENGTH:
        raise ValueError("truncated index")
    signature, version, count = _HEADER.unpack_from(data)
    if signature != _SIGNATURE:
        raise ValueError("not an index")
    if version not in _FAST_VERSIONS:
        return _read_with_dulwich(data)
    body, checksum = data[:-_CHECKSUM_LENGTH], data[-_CHECKSUM_LENGTH:]
    # An all-zero trailer is git's index.skipHash: no checksum was computed.
    if any(checksum) and hashlib.sha1(body, usedforsecurity=False).digest() != checksum:
        raise ValueError("index checksum mismatch")
    records: list[IndexRecord] = []
    offset = _HEADER.size
    for _ in range(count):
        fields = _ENTRY.unpack_from(data, offset)
        flags = fields[11]
        name_at = offset + _ENTRY.size + (_EXTENDED_FLAGS.size if flags & _FLAG_EXTENDED else 0)
        length = flags & _NAME_MASK
        if length == _NAME_MASK:
            length = data.index(b"\x00", name_at) - name_at
        end = offset + ((name_at - offset + length + 8) & ~7)
        records.append(
            IndexRecord(
                path=data[name_at : name_at + length],
                stage=(flags >> _STAGE_SHIFT) & _STAGE_MASK,
                mode=fields[6],
                size=fields[9],
                mtime_ns=fields[2] * _NS + fields[3],
                ctime_ns=fields[0] * _NS + fields[1],
                sha=fields[10].hex().encode("ascii"),
                raw=data[offset:end],
            )
        )
        offset = end
    return records


class StatStamp(NamedTuple):
    """The stat data an index entry records, so status can skip re-hashing an unchanged file."""

    ctime_ns: int = 0
    mtime_ns: int = 0
    dev: int = 0
    ino: int = 0
    uid: int = 0
    gid: int = 0
    size: int = 0


# No stat data: status cannot trust the entry and re-hashes the file. Used when the working
# file may differ from the blob (a moved file carrying unstaged edits).
UNSTAMPED: Final = StatStamp()


def stamp_of(info: os.stat_result) -> StatStamp:
    """The stamp of a file as ``os.lstat`` saw it."""
    return StatStamp(
        ctime_ns=info.st_ctime_ns,
        mtime_ns=info.st_mtime_ns,
        dev=info.st_dev,
        ino=info.st_ino,
        uid=info.st_uid,
        gid=info.st_gid,
        size=info.st_size,
    )


def encode_entry(
    path: bytes,
    sha: bytes,
    mode: int,
    stamp: StatStamp = UNSTAMPED,
    *,
    stage: int = 0,
    extended_flags: int = 0,
) -> IndexRecord:
    """A record for ``path`` holding blob ``sha`` (hex) with the given stat stamp."""
    dev, ino, uid, gid, size = (
        value & _WORD for value in (stamp.dev, stamp.ino, stamp.uid, stamp.gid, stamp.size)
    )
    flags = min(len(path), _NAME_MASK) | (stage << _STAGE_SHIFT)
    if extended_flags:
        flags |= _FLAG_EXTENDED
    head = _ENTRY.pack(
        (stamp.ctime_ns // _NS) & _WORD,
        stamp.ctime_ns % _NS,
        (stamp.mtime_ns // _NS) & _WORD,
        stamp.mtime_ns % _NS,
        dev,
        ino,
        mode,
        uid,
        gid,
        size,
        bytes.fromhex(sha.decode("ascii")),
        flags,
    )
    if extended_flags:
        head += _EXTENDED_FLAGS.pack(extended_flags)
    unpadded = len(head) + len(path)
    raw = head + path + b"\x00" * (((unpadded + 8) & ~7) - unpadded)
    return IndexRecord(
        path=path,
        stage=stage,
        mode=mode,
        size=size,
        mtime_ns=stamp.mtime_ns,
        ctime_ns=stamp.ctime_ns,
        sha=sha,
        raw=raw,
    )


def index_bytes(records: Iterable[IndexRecord]) -> bytes:
    """A complete index file (version 3, no extensions) holding ``records``.

    Entries are ordered by path, then stage, as git requires. Extensions are dropped on
    purpose: the cached trees and untracked cache they hold describe the old entries.
    """
    ordered = sorted(records, key=_file_order)
    body = b"".join(
        [_HEADER.pack(_SIGNATURE, WRITTEN_VERSION, len(ordered)), *(r.raw for r in ordered)]
    )
    return body + hashlib.sha1(body, usedforsecurity=False).digest()


def tree_id(records: Iterable[IndexRecord]) -> bytes:
    """The id (hex) of the tree the stage-0 records describe: what ``git write-tree`` gives.

    Lets status compare the index with HEAD in one step, without building tree objects; a
    mismatch only sends it down the slower path that finds which paths differ.
    """
    return tree_digest((r.path, r.sha, r.mode) for r in records if not r.stage)


def tree_digest(entries: Iterable[tuple[bytes, bytes, int]]) -> bytes:
    """The id (hex) of the tree holding ``(path, hex sha, mode)`` entries (see ``tree_id``)."""
    root: _Node = {}
    for path, sha, mode in entries:
        *directories, name = path.split(b"/")
        node = root
        for directory in directories:
            child = node.setdefault(directory, {})
            if not isinstance(child, dict):
                raise ValueError("index holds a file and a directory at one path")
            node = child
        node[name] = (mode, sha)
    return _tree_digest(root).hex().encode("ascii")


def _tree_digest(node: _Node) -> bytes:
    items: list[tuple[bytes, bytes]] = []
    for name, value in node.items():
        if isinstance(value, dict):
            # Git orders a directory as if its name ended in "/".
            items.append((name + b"/", b"40000 " + name + b"\x00" + _tree_digest(value)))
        else:
            mode, sha = value
            items.append((name, b"%o " % mode + name + b"\x00" + bytes.fromhex(sha.decode())))
    body = b"".join(entry for _, entry in sorted(items))
    return hashlib.sha1(b"tree %d\x00" % len(body) + body, usedforsecurity=False).digest()


def _ns_of(value: int | float | tuple[int, int]) -> int:
    if isinstance(value, tuple):
        return value[0] * _NS + value[1]
    return int(value * _NS)


def _record_of(path: bytes, entry: IndexEntry, stage: int) -> IndexRecord:
    stamp = StatStamp(
        ctime_ns=_ns_of(entry.ctime),
        mtime_ns=_ns_of(entry.mtime),
        dev=entry.dev,
        ino=entry.ino,
        uid=entry.uid,
        gid=entry.gid,
        size=entry.size,
    )
    return encode_entry(
        path, entry.sha, entry.mode, stamp, stage=stage, extended_flags=entry.extended_flags
    )


def _read_with_dulwich(data: bytes) -> list[IndexRecord]:
    entries, _, _ = read_index_dict_with_version(IndexChecksumReader(io.BytesIO(data)))
    records: list[IndexRecord] = []
    for path, entry in entries.items():
        if isinstance(entry, ConflictedIndexEntry):
            sides = (entry.ancestor, entry.this, entry.other)
            records.extend(
                _record_of(path, side, stage)
                for stage, side in enumerate(sides, start=1)
                if side is not None
            )
        else:
            records.append(_record_of(path, entry, 0))
    return records
