"""Which memory repository a command works on: ``--repo``, else ``$MEMHTML_ROOT``, else
``~/memhtml``; and whether that root is an initialized memhtml repository.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Final

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


def resolve_root(repo: str | None, environ: Mapping[str, str], home: Path, cwd: Path) -> Path:
    """The absolute repository root for one invocation.

    Args:
        repo: ``--repo`` as given, or ``None``.
        environ: The process environment.
        home: The user's home directory, for ``~`` and the default root.
        cwd: The working directory, for relative roots.

    Raises:
        RepoRequired: ``MEMHTML_REFUSE_ENV_ROOT`` is truthy and ``repo`` is ``None``.
        InvalidInput: ``MEMHTML_REFUSE_ENV_ROOT`` holds a value that is not a switch.
    """
    if repo is not None:
        chosen = repo
    elif env_switch(environ, ENV_REFUSE_ENV_ROOT):
        raise RepoRequired(
            f"{ENV_REFUSE_ENV_ROOT} is set, so the repository must be named with --repo",
            root=None,
            suggestions=("pass --repo PATH",),
        )
    else:
        chosen = environ.get(ENV_ROOT, "").strip() or str(Path("~") / DEFAULT_ROOT_NAME)
    return cwd / _expand_home(chosen, home)


def check_initialized(root: Path) -> Path:
    """Return ``root`` when it is a git work tree holding a ``.memhtml/`` folder.

    Raises:
        RepoRequired: It is not; the suggestion is the ``init`` that would make it one.
    """
    if (root / MARKER_DIR).is_dir() and (root / GIT_MARKER).exists():
        return root
    raise RepoRequired(
        f"{root} is not an initialized memhtml repository "
        f"(a git work tree with a {MARKER_DIR}/ folder)",
        root=str(root),
        suggestions=(f"memhtml init --repo {shlex.quote(str(root))}",),
    )


def repo_root(*, initialized: bool = True) -> Path:
    """The root of the running invocation, checked unless ``initialized`` is false (``init``).

    Raises:
        RepoRequired: No root may be used, or it is not initialized.
        InvalidInput: A repository variable holds a bad value.
    """
    root = resolve_root(current_state().options.repo, os.environ, Path.home(), Path.cwd())
    return check_initialized(root) if initialized else root


def _expand_home(value: str, home: Path) -> Path:
    # Only "~" and "~/…": "~user" would need the password database, and a root named that way
    # is rare enough to take literally rather than make this function do I/O.
    if value == "~":
        return home
    if value.startswith("~/"):
        return home / value[2:]
    return Path(value)
