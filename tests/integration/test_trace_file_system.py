"""``FileTranscripts`` on a real folder tree: what is listed, how it is keyed, how it is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memhtml.adapters.system.transcript_files import FileTranscripts
from memhtml.ports.transcript_files import TranscriptUnreadable


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Two projects, a non-transcript file, a linked folder and a linked file."""
    root = tmp_path / "projects"
    (root / "b").mkdir(parents=True)
    (root / "a" / "sub").mkdir(parents=True)
    (root / "b" / "s2.jsonl").write_bytes(b'{"x":1}\n')
    (root / "a" / "s1.jsonl").write_bytes(b"0123456789")
    (root / "a" / "sub" / "agent-1.jsonl").write_bytes(b"")
    (root / "a" / "notes.txt").write_bytes(b"not a transcript")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.jsonl").write_bytes(b"{}\n")
    (root / "linked-folder").symlink_to(outside, target_is_directory=True)
    (root / "b" / "alias.jsonl").symlink_to(root / "a" / "s1.jsonl")
    return root


def test_listing_walks_without_following_folder_links_and_keys_real_paths(tree: Path) -> None:
    """Every .jsonl below, sorted, keyed by its resolved path (a linked file is listed once);
    the linked folder is not entered; other files are ignored."""
    real = tree.resolve()
    listing = FileTranscripts().list_files([str(tree), str(tree / "a")])
    assert [
        str(real / "a" / "s1.jsonl"),
        str(real / "a" / "sub" / "agent-1.jsonl"),
        str(real / "b" / "s2.jsonl"),
    ] == [f.path for f in listing.files]
    s1 = listing.files[0]
    assert (10, (tree / "a" / "s1.jsonl").stat().st_mtime_ns // 1_000_000) == (s1.size, s1.mtime_ms)


def test_a_file_root_is_listed_and_a_missing_root_is_unreadable(tree: Path) -> None:
    """A root naming a file is listed whatever its name; a missing root is reported."""
    listing = FileTranscripts().list_files([str(tree / "a" / "notes.txt"), str(tree / "gone")])
    assert ([str((tree / "a" / "notes.txt").resolve())], [str((tree / "gone").resolve())]) == (
        [f.path for f in listing.files],
        [u.path for u in listing.unreadable],
    )


def test_ranges_come_in_chunks_and_stop_at_the_end_of_a_shorter_file(tree: Path) -> None:
    """Chunks of at most ``chunk_bytes``; a range past the end yields what is there."""
    files = FileTranscripts()
    path = str(tree / "a" / "s1.jsonl")
    assert ([b"234", b"567", b"8"], [b"789"]) == (
        list(files.read_range(path, 2, 9, chunk_bytes=3)),
        list(files.read_range(path, 7, 100, chunk_bytes=64)),
    )


def test_an_unreadable_file_raises_the_port_error(tree: Path) -> None:
    """A file that vanished (or cannot be opened) is TranscriptUnreadable, not OSError."""
    path = tree / "b" / "s2.jsonl"
    os.remove(path)
    with pytest.raises(TranscriptUnreadable):
        list(FileTranscripts().read_range(str(path), 0, 10, chunk_bytes=4))
