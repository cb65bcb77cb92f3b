"""Which memory repository a command works on, found the way git finds its repository:
``--repo``, else ``$MEMHTML_ROOT``, else the nearest directory from the working directory
upwards that holds a store, else ``~/memhtml``; and whether that root is an initialized store.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

import attrs

from memhtml.app.cli.environment import ENV_REFUSE_ENV_ROOT, ENV_ROOT
from memhtml.app.cli.state import current_state
from memhtml.app.errors import RepoRequired
from memhtml.domain.errors import InvalidInput

DEFAULT_ROOT_NAME: Final = "memhtml"
MARKER_DIR: Final = ".memhtml"
# A directory in a plain clone, a file in a linked worktree: either makes a git work tree.
GIT_MARKER: Final = ".git"
TRUTHY: Final = frozenset({"1", "true", "yes", "on"})
FALSY: Final = frozenset({"0", "false", "no", "off"})


def env_switch(environ: Mapping[str, str], name: str) -> bool:
    """Read an on/off variable; unset or empty is off.

    Raises:
        InvalidInput: The value is neither truthy nor falsy; a typo must not silently mean
            "off" for a switch that exists to refuse something.
    """
    raw = environ.get(name, "").strip()
    value = raw.lower()
    if value in TRUTHY:
        return True
    if not value or value in FALSY:
        return False
    accepted = "/".join(sorted(TRUTHY)) + " or " + "/".join(sorted(FALSY))
    raise InvalidInput(f"{name}={raw!r}: use {accepted}")


SOURCE_FLAG: Final = "--repo"
SOURCE_DISCOVERED: Final = "the working directory"
SOURCE_DEFAULT: Final = "the default"


@attrs.frozen(kw_only=True)
class RootChoice:
    """The root one invocation uses, where it came from, and what was looked at to find it.

    Attributes:
        path: The absolute root.
        source: ``--repo``, ``MEMHTML_ROOT``, ``the working directory`` (found by walking up)
            or ``the default`` (``~/memhtml``).
        searched: What was tried before it, in order, for the error that names them.
    """

    path: Path
    source: str
    searched: tuple[str, ...] = ()


def is_store_dir(path: Path) -> bool:
    """A git work tree holding a ``.memhtml/`` folder: what ``init`` makes."""
    return (path / MARKER_DIR).is_dir() and (path / GIT_MARKER).exists()


def choose_root(
    repo: str | None,
    environ: Mapping[str, str],
    home: Path,
    cwd: Path,
    *,
    is_store: Callable[[Path], bool] = is_store_dir,
) -> RootChoice:
    """The root for one invocation, found as git finds a repository.

    Order: ``--repo``; ``MEMHTML_ROOT``; the working directory and each of its parents, the
    nearest that ``is_store`` accepts; ``~/memhtml``. An explicit choice (the flag or the
    variable) is final even when it is not a store: falling through would quietly write into
    another store than the one named.

    Args:
        repo: ``--repo`` as given, or ``None``.
        environ: The process environment.
        home: The user's home directory, for ``~`` and the default root.
        cwd: The working directory (absolute), for relative roots and the upward search.
        is_store: Whether a directory holds a store; tests pass a pure predicate.

    Raises:
        RepoRequired: ``MEMHTML_REFUSE_ENV_ROOT`` is truthy and ``repo`` is ``None``.
        InvalidInput: ``MEMHTML_REFUSE_ENV_ROOT`` holds a value that is not a switch.
    """
    if repo is not None:
        return RootChoice(path=cwd / _expand_home(repo, home), source=SOURCE_FLAG)
    if env_switch(environ, ENV_REFUSE_ENV_ROOT):
        raise RepoRequired(
            f"{ENV_REFUSE_ENV_ROOT} is set, so the repository must be named with --repo",
            root=None,
            suggestions=("pass --repo PATH",),
        )
    from_env = environ.get(ENV_ROOT, "").strip()
    if from_env:
        return RootChoice(path=cwd / _expand_home(from_env, home), source=ENV_ROOT)
    searched: tuple[str, ...] = (f"{SOURCE_FLAG} not given", f"{ENV_ROOT} unset")
    for directory in (cwd, *cwd.parents):
        if is_store(directory):
            return RootChoice(path=directory, source=SOURCE_DISCOVERED, searched=searched)
    searched = (*searched, f"no store in {cwd} or any directory above it")
    return RootChoice(path=home / DEFAULT_ROOT_NAME, source=SOURCE_DEFAULT, searched=searched)


def resolve_root(
    repo: str | None,
    environ: Mapping[str, str],
    home: Path,
    cwd: Path,
    *,
    is_store: Callable[[Path], bool] = is_store_dir,
) -> Path:
    """The absolute repository root for one invocation (``choose_root``'s path).

    Raises:
        RepoRequired: ``MEMHTML_REFUSE_ENV_ROOT`` is truthy and ``repo`` is ``None``.
        InvalidInput: ``MEMHTML_REFUSE_ENV_ROOT`` holds a value that is not a switch.
    """
    return choose_root(repo, environ, home, cwd, is_store=is_store).path


def check_initialized(root: Path | RootChoice) -> Path:
    """Return the root when it is a git work tree holding a ``.memhtml/`` folder.

    Raises:
        RepoRequired: It is not. The message says where the root came from and what else was
            searched; the suggestions are the ``init`` that would make it one and, when the
            root was not named, naming one.
    """
    choice = root if isinstance(root, RootChoice) else RootChoice(path=root, source=SOURCE_FLAG)
    path = choice.path
    if is_store_dir(path):
        return path
    shown = shlex.quote(str(path))
    what = f"a git work tree with a {MARKER_DIR}/ folder"
    if choice.source == SOURCE_DEFAULT:
        tried = "; ".join(choice.searched)
        message = f"no memhtml store found ({tried}; {path}, the default, is not {what})"
        suggestions: tuple[str, ...] = (
            f"memhtml init --repo {shown}",
            "cd into a store, or pass --repo PATH, or set MEMHTML_ROOT",
        )
    else:
        named = f"from {choice.source}" if choice.source != SOURCE_FLAG else "from --repo"
        message = f"{path} ({named}) is not an initialized memhtml repository ({what})"
        suggestions = (f"memhtml init --repo {shown}",)
    raise RepoRequired(message, root=str(path), suggestions=suggestions)


def repo_root(*, initialized: bool = True) -> Path:
    """The root of the running invocation, checked unless ``initialized`` is false (``init``).

    Raises:
        RepoRequired: No root may be used, or it is not initialized.
        InvalidInput: A repository variable holds a bad value.
    """
    choice = choose_root(current_state().options.repo, os.environ, Path.home(), Path.cwd())
    return check_initialized(choice) if initialized else choice.path


def _expand_home(value: str, home: Path) -> Path:
    # Only "~" and "~/…": "~user" would need the password database, and a root named that way
    # is rare enough to take literally rather than make this function do I/O.
    if value == "~":
        return home
    if value.startswith("~/"):
        return home / value[2:]
    return Path(value)
