"""``init``: create whatever of the store is missing, convergently (docs/cli-contract.md §3.2).

A re-run over a complete store changes nothing: no file, no commit, ``created: false``. A store
missing a piece (someone deleted ``areas/arcs/.gitkeep``) gets that piece back in one commit,
and files a person has edited are never overwritten.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

import attrs

from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.collaborators import COMMIT_ATTEMPTS
from memhtml.domain.commit_messages import INIT_SUBJECT, OP_INIT, commit_message
from memhtml.ports.git import GitPort
from memhtml.ports.git_writer import GitWriter, HeadMoved

KEEP_FILE: Final = ".gitkeep"
SCAFFOLD_FOLDERS: Final[tuple[str, ...]] = (
    "projects",
    "areas",
    "areas/inbox",
    "areas/arcs",
    "resources",
    "resources/people",
    "archive",
    ".memhtml/state",
    ".memhtml/sleep",
)
# Both databases and their WAL/SHM/journal siblings: rebuildable or backed by the sidecar,
# and binary, so a commit of them would bloat every clone.
GITIGNORE: Final = """\
.memhtml/index.db
.memhtml/index.db-*
.memhtml/state.db
.memhtml/state.db-*
"""
GITATTRIBUTES: Final = """\
index.html merge=ours
sitemap.xml merge=ours
*.html diff=html
"""
README_HTML: Final = """\
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>memhtml memory store</title>
</head>
<body>
<h1>memhtml memory store</h1>
<p>Each file under projects/, areas/, resources/ and archive/ states one fact as semantic
HTML. Git keeps the history; .memhtml/index.db is a search index rebuilt from these files
with <code>memhtml index rebuild</code>.</p>
<p>Write with <code>memhtml write</code>, find with <code>memhtml search</code>.</p>
</body>
</html>
"""
RETRY_PAUSE_S: Final = 0.01


def scaffold_files() -> dict[str, bytes]:
    """Every file ``init`` makes sure exists, by path."""
    files = {f"{folder}/{KEEP_FILE}": b"" for folder in SCAFFOLD_FOLDERS}
    files[".gitignore"] = GITIGNORE.encode()
    files[".gitattributes"] = GITATTRIBUTES.encode()
    files["README.html"] = README_HTML.encode()
    return files


@attrs.frozen(kw_only=True)
class InitResult:
    """``repo.init``.

    Attributes:
        root: The store's root directory.
        created: Something was created: the repository, a scaffold file or a database.
        head_sha: HEAD afterwards (``None`` only if nothing was ever committed).
        wrote: The scaffold files this run committed, by path.
    """

    root: str
    created: bool
    head_sha: str | None
    wrote: tuple[str, ...]


def init_store(
    *,
    root: str | Path,
    git: GitPort,
    writer: GitWriter,
    configure_repo: Callable[[], bool],
    create_databases: Callable[[], bool],
    attempts: int = COMMIT_ATTEMPTS,
    pause: Callable[[float], None] = time.sleep,
) -> InitResult:
    """Create the repository (on ``main``), its scaffold, its config and both databases.

    A scaffold path already holding a file, tracked or not, is left alone. Runs in this
    order: repository, config, one scaffold commit (retried if another writer moves HEAD),
    then the databases, which need ``.memhtml/`` to exist.

    Args:
        root: The store's root, reported back.
        git: Reads HEAD, the tree and status once the repository exists.
        writer: Creates the repository and commits the scaffold.
        configure_repo: Sets the repository-local ``merge.ours.driver``; True if it changed
            anything (``repo_config.ensure_merge_ours_driver`` in production).
        create_databases: Opens (creating and migrating) ``index.db`` and ``state.db``; True
            if a file was created. The composition root supplies it.
        attempts: Commit tries when HEAD moves under the scaffold commit.
        pause: Sleeps between tries.

    Raises:
        GitFailure: The repository cannot be created, configured or committed to.
        StorageFailure: A database cannot be created.
    """
    repo_created = writer.init()
    configure_repo()
    wrote: tuple[str, ...] = ()
    for attempt in range(max(1, attempts)):
        tree = StagedTree.load(git)
        missing = {p: data for p, data in scaffold_files().items() if tree.is_free(p)}
        if not missing:
            break
        for path, data in missing.items():
            tree.write(path, data)
        try:
            writer.commit(
                tree.change_set(), commit_message(OP_INIT, INIT_SUBJECT), expected_head=tree.head
            )
        except HeadMoved:
            if attempt == attempts - 1:
                raise
            pause(RETRY_PAUSE_S * 2**attempt)
            continue
        wrote = tuple(sorted(missing))
        break
    databases_created = create_databases()
    return InitResult(
        root=str(root),
        created=repo_created or bool(wrote) or databases_created,
        head_sha=git.head(),
        wrote=wrote,
    )
