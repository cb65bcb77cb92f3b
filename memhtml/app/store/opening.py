"""Opening, creating and cloning a store: the constructors callers use."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final

from memhtml.app.bootstrap import STORE_DIR, Services, read_settings
from memhtml.app.errors import RepoRequired
from memhtml.app.linked_worktree import refuse_linked_worktree
from memhtml.app.store.facade import Store
from memhtml.ports.clock import Clock
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

if TYPE_CHECKING:
    from memhtml.app.use_cases.clone import CloneResult
    from memhtml.app.use_cases.init import InitResult
    from memhtml.ports.embedder import EmbeddingModel

GIT_DIR: Final = ".git"


def open_store(
    root: str | Path,
    *,
    environ: Mapping[str, str] | None = None,
    clock: Clock | None = None,
    embedder: EmbeddingModel | bool | None = True,
    heal: bool = True,
    thorough: bool = False,
    progress: ProgressSink | None = None,
) -> Store:
    """Open the initialized store at ``root``.

    Args:
        root: The store's working tree (``~`` expanded).
        environ: Where settings come from; ``os.environ`` by default.
        clock: The instant source; the system clock by default.
        embedder: ``True`` builds the configured embedder, an instance overrides it, ``False``
            or ``None`` is lexical-only.
        heal: Repair what a killed command or a damaged file left (off: only report it).
        thorough: Check every database page and sweep the repository (``doctor``).
        progress: Where the index passes a call runs on its own report (a rebuild after a
            lost index, say); silent when omitted.

    Raises:
        RepoRequired: ``root`` is not a git work tree with a ``.memhtml/`` folder, or it is a
            linked worktree (``app/linked_worktree.py``).
        InvalidInput: An environment variable holds a bad value.
    """
    settings = read_settings(root, environ)
    refuse_linked_worktree(settings.root)
    if not ((settings.root / STORE_DIR).is_dir() and (settings.root / GIT_DIR).exists()):
        # Opening anyway would create .memhtml/ and both databases in a folder that is not a
        # store, leaving debris where the caller mistyped a path.
        raise RepoRequired(
            f"{settings.root} is not an initialized memhtml repository",
            root=str(settings.root),
            suggestions=(f"memhtml init --repo {shlex.quote(str(settings.root))}",),
        )
    return Store(
        Services(
            settings,
            clock=clock,
            embedder=embedder,
            heal=heal,
            thorough=thorough,
            progress=progress,
        )
    )


def init_store_at(root: str | Path, *, environ: Mapping[str, str] | None = None) -> InitResult:
    """Create (or re-check) the store at ``root``: repository, scaffold and databases.

    Raises:
        RepoRequired: ``root`` is a linked worktree (``app/linked_worktree.py``).
        GitFailure: The repository cannot be created, configured or committed to.
        StorageFailure: A database cannot be created.
        InvalidInput: An environment variable holds a bad value.
    """
    settings = read_settings(root, environ)
    refuse_linked_worktree(settings.root)
    existed = settings.index_path.exists() and settings.state_path.exists()
    # Opening the services creates and migrates both databases.
    with Store(Services(settings, embedder=False)) as store:
        return store.initialize(databases_created=not existed)


def clone_store_at(
    url: str,
    root: str | Path,
    *,
    environ: Mapping[str, str] | None = None,
    embedder: EmbeddingModel | bool | None = True,
    progress: ProgressSink = NO_PROGRESS,
) -> CloneResult:
    """Make ``root`` a store holding the memory at ``url`` (docs/sync.md §1): a repository
    with ``origin`` at ``url``, the remote's branch checked out, the scaffold completed, then
    a first sync, which builds the index and imports the access rows from the sidecar.

    Raises:
        InvalidInput: ``root`` exists and is not an empty folder.
        RemoteUnreachable: The remote cannot be read; ``root`` is removed again when this call
            created it.
    """
    import shutil

    from memhtml.app.bootstrap.components import git_landing, git_remote, init_repository
    from memhtml.app.use_cases.clone import CloneResult, clone_into
    from memhtml.domain.errors import InvalidInput

    settings = read_settings(Path(root).expanduser().resolve(), environ)
    target = settings.root
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidInput(f"{target} exists and is not an empty folder; clone into a new one")
    created = not target.exists()
    try:
        remote = git_remote(target)
        fetched = clone_into(
            url,
            init_repository=lambda: init_repository(target),
            remote=remote,
            landing=git_landing(target, git_name=settings.git_name, git_email=settings.git_email),
            progress=progress,
        )
        init_store_at(target, environ=environ)
        with open_store(target, environ=environ, embedder=embedder) as store:
            synced = store.sync(progress=progress)
            census = store.index_status()
    except BaseException:
        if created:
            shutil.rmtree(target, ignore_errors=True)
        raise
    return CloneResult(
        root=str(target),
        remote=synced.remote,
        url=synced.url,
        head_sha=synced.head_after,
        fetched=fetched is not None,
        indexed=census.files,
        state_rows=synced.state_rows,
    )
