"""Where a write lands, and which caller paths are acceptable at all (docs/format.md §11).

Two kinds of bad path are told apart. A path that could leave the repository (``..``, a
backslash, NUL, ``.git``) is refused outright with nothing written, whatever the command. A path
that is merely unusable as a memory path (no bucket, no ``.html``) is ignored by ``write``, as
docs/format.md §11 rule 1 says, unless the caller asked for ``strict_path``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from memhtml.domain.errors import Conflict, InvalidInput, InvalidMemory
from memhtml.domain.findings import Finding
from memhtml.domain.paths import file_name, is_valid_explicit_path, normalize_path

# Far beyond any real run of same-titled memories in one folder; a bound so that a predicate
# that never answers "free" (a bug, a hostile tree) ends in an error instead of a hang.
MAX_COLLISION_SUFFIX: Final = 10_000
STRICT_PATH_CODE: Final = "path-unusable"
_UNSAFE_CHARACTERS: Final = frozenset({"\\", "\x00"})
_GIT_DIR: Final = ".git"


def repo_path(raw: str, label: str) -> str:
    """A caller's path to an existing file, as a repo path: leading ``/`` stripped.

    The leading slash is allowed because hrefs are written ``/path.html``; anything else that
    could name a file outside the repository is refused before a byte is read.

    Args:
        raw: The caller's path.
        label: The argument to name in the error (``path``, ``src``…).

    Raises:
        InvalidInput: The path is empty or could escape the repository.
    """
    path = raw.lstrip("/")
    if not path or not is_safe_path(path):
        raise InvalidInput(f"{label} must be a path inside the repository, like areas/inbox/x.html")
    return path


def is_safe_path(path: str) -> bool:
    """Relative, no empty, ``.`` or ``..`` segment, no backslash or NUL, no ``.git`` segment."""
    if not path or path.startswith("/") or any(ch in _UNSAFE_CHARACTERS for ch in path):
        return False
    return all(seg not in {"", ".", ".."} and seg.lower() != _GIT_DIR for seg in path.split("/"))


def explicit_path(raw: str | None, *, strict: bool) -> str | None:
    """The path a write asked for, normalised, or ``None`` when placement should decide.

    Args:
        raw: The caller's ``path``, if any.
        strict: Refuse an unusable path rather than ignore it.

    Raises:
        InvalidInput: The path could escape the repository (refused even without ``strict``:
            silently writing elsewhere would hide an attack or a bug).
        InvalidMemory: ``strict`` and the path is not a usable memory path.
    """
    if raw is None:
        return None
    path = normalize_path(raw)
    if path and not is_safe_path(path):
        raise InvalidInput("path must stay inside the repository")
    if is_valid_explicit_path(path):
        return path
    if strict:
        detail = "path must start with a PARA bucket, have two segments and end in .html"
        raise InvalidMemory((Finding(code=STRICT_PATH_CODE, detail=detail),))
    return None


def free_path(
    directory: str,
    title: str,
    memory_type: str,
    write_date: str,
    is_free: Callable[[str], bool],
) -> str:
    """The first free ``directory/<slug>.html``, trying collision suffixes ``-2``, ``-3``….

    Args:
        directory: The placement folder.
        title, memory_type, write_date: What the file name is built from (``file_name``).
        is_free: Whether nothing occupies a path (no file, no folder, no file above it).

    Raises:
        Conflict: Every suffix up to ``MAX_COLLISION_SUFFIX`` is taken.
    """
    for collision in range(1, MAX_COLLISION_SUFFIX + 1):
        path = f"{directory}/{file_name(title, memory_type, write_date, collision)}"
        if is_free(path):
            return path
    raise Conflict(f"no free file name for this title under {directory}/")
