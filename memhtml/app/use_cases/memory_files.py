"""Checks and lookups the mutating use cases share for files that already exist."""

from __future__ import annotations

from typing import Final

from memhtml.app.errors import DirtyTree
from memhtml.app.staged_tree import StagedTree
from memhtml.domain.errors import Conflict, InvalidMemory, NotFound
from memhtml.domain.findings import Finding
from memhtml.domain.paths import HTML_SUFFIX, archive_path, is_archived_path, is_indexable_path
from memhtml.domain.placement import MAX_COLLISION_SUFFIX, repo_path

ARCHIVED_TARGET_CODE: Final = "target-archived"
ENCODING_CODE: Final = "encoding"


def existing_memory(tree: StagedTree, raw: str, label: str) -> str:
    """The repo path of a memory file that exists in the staged tree.

    Args:
        tree: The tree the command plans against.
        raw: The caller's path (a leading ``/`` is allowed).
        label: The argument to name in errors.

    Raises:
        InvalidInput: The path could leave the repository.
        NotFound: No memory file is there (a file outside the PARA buckets, or a generated
            ``index.html``, is not a memory either).
    """
    path = repo_path(raw, label)
    if not is_indexable_path(path) or not tree.exists(path):
        raise NotFound(f"no memory at {path}")
    return path


def require_active(path: str) -> None:
    """Refuse a file already under ``archive/``: it cannot be archived or corrected again.

    Raises:
        InvalidMemory: With the ``target-archived`` finding.
    """
    if is_archived_path(path):
        detail = "the file is already archived; correct or archive its active successor"
        raise InvalidMemory((Finding(code=ARCHIVED_TARGET_CODE, detail=detail),))


def require_clean(tree: StagedTree, path: str) -> None:
    """Refuse to rewrite a file with uncommitted edits: the commit would sweep them in.

    Raises:
        DirtyTree: Naming ``path``.
    """
    if tree.is_dirty(path):
        raise DirtyTree((path,))


def text_of(data: bytes) -> str:
    """A memory file's text for a head edit.

    Raises:
        InvalidMemory: The bytes are not UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        detail = "the file is not UTF-8 text"
        raise InvalidMemory((Finding(code=ENCODING_CODE, detail=detail),)) from e


def archive_destination(tree: StagedTree, path: str, year: int) -> str:
    """``archive/<YYYY>/<path>``, or ``…/<stem>-<n>.html`` when an earlier move took it.

    Archiving the same path twice in a year happens (write, archive, write again, archive
    again); suffixing keeps both files, where refusing would make the second archive impossible.

    Raises:
        Conflict: Every suffix is taken.
    """
    destination = archive_path(path, year)
    if tree.is_free(destination):
        return destination
    stem = destination.removesuffix(HTML_SUFFIX)
    for n in range(2, MAX_COLLISION_SUFFIX + 1):
        candidate = f"{stem}-{n}{HTML_SUFFIX}"
        if tree.is_free(candidate):
            return candidate
    raise Conflict(f"no free archive path for {path}")
