"""A memory file's HTML as stored, now or at a commit: no parse, no freshness pass, no bump.

What a client fetches to show or quote a file (the MCP resources ``memhtml://memory/…`` and
``memhtml://at/…``); ``read`` is the call that interprets a memory and counts as its use.
"""

from __future__ import annotations

import re
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput, NotFound
from memhtml.domain.paths import is_indexable_path
from memhtml.domain.placement import repo_path
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import GitPort, PathRefused

# Full or abbreviated (at least 4 digits, as git allows) object names only: a ref name could
# smuggle slashes and `..` into what the resource URI treats as the commit segment.
_COMMIT: Final = re.compile(r"[0-9a-f]{4,40}")


@attrs.frozen(kw_only=True)
class MemorySource:
    """One memory file's text.

    Attributes:
        path: The repo path, without a leading ``/``.
        commit: The commit it was read at, as given; ``None`` for the working tree.
        html: The file's text, decoded as UTF-8 (undecodable bytes replaced).
    """

    path: str
    commit: str | None
    html: str


def memory_source(git: GitPort, raw_path: str, *, commit: str | None = None) -> MemorySource:
    """The file at ``raw_path`` in the working tree, or in ``commit``'s tree.

    Raises:
        InvalidInput: The path could leave the repository, or ``commit`` is not a hex sha.
        NotFound: No memory file at the path (there, or at that commit), or no such commit.
    """
    path = repo_path(raw_path, "path")
    if not is_indexable_path(path):
        raise NotFound(f"no memory at {path}")
    data = _working_file(git, path) if commit is None else _committed_file(git, path, commit)
    return MemorySource(path=path, commit=commit, html=data.decode("utf-8", errors="replace"))


def _working_file(git: GitPort, path: str) -> bytes:
    try:
        return git.read_working_file(path)
    except PathRefused as error:
        raise InvalidInput("path must be a path inside the repository") from error
    except GitFailure as error:
        raise NotFound(f"no memory at {path}") from error


def _committed_file(git: GitPort, path: str, commit: str) -> bytes:
    sha = commit.lower()
    if not _COMMIT.fullmatch(sha):
        raise InvalidInput("commit must be a commit sha (4 to 40 hex digits)")
    try:
        entries = git.list_tree(sha, (path,))
    except PathRefused as error:
        raise InvalidInput("path must be a path inside the repository") from error
    except GitFailure as error:
        raise NotFound(f"no commit {sha}") from error
    blob = next((entry.blob_sha for entry in entries if entry.path == path), None)
    if blob is None:
        raise NotFound(f"no memory at {path} in commit {sha}")
    return git.read_blobs((blob,))[blob]
