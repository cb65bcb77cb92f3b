"""An in-memory repository implementing both git ports, for unit tests of the app.

It keeps commits, one branch, an index and a working tree as dictionaries, and passes the same
contract suites as the dulwich adapter. Blob shas are git's own, so a sha computed here equals
the one a real repository gives the same bytes.

Test-side helpers (``write_file``, ``remove_file``, ``stage_move``, ``stage_remove``,
``detach_head``, ``history``) stand in for an agent or a person editing the working tree by hand.

Not modelled: submodules, symlinks, file modes, unmerged entries, and of ``.gitignore`` only
the root file with plain, ``/``-anchored and trailing-``/`` patterns (no ``!`` negation).
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Final

import attrs

from memhtml.ports.clock import Clock
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import (
    CommitNote,
    DiffEntry,
    LineStep,
    PathRefused,
    StatusEntry,
    TreeEntry,
    blob_sha,
    check_repo_path,
)
from memhtml.ports.git_writer import (
    COMMIT_OPERATION,
    REFUSED_OCCUPIED,
    BaseNode,
    ChangeSet,
    HeadMoved,
    RecoveryFinding,
    plan_tree_edits,
)

BRANCH: Final = "main"
# Git's defaults: a pair scoring above 60 of 100 is a rename; content pairing is skipped
# when sources times adds exceeds 200 squared; long lines are compared in 64-byte blocks.
RENAME_THRESHOLD: Final = 60
RENAME_PAIR_LIMIT: Final = 200
SIMILARITY_BLOCK: Final = 64
_Tree = Mapping[str, tuple[str, int]]


@attrs.frozen(kw_only=True)
class _Commit:
    tree: _Tree
    parent: str | None
    message: str
    time: int = 0


class FakeGit:
    """``GitPort`` and ``GitWriter`` over dictionaries."""

    def __init__(
        self, *, initialized: bool = True, bare: bool = False, clock: Clock | None = None
    ) -> None:
        """Start empty: unborn ``main``, no files. ``initialized=False`` waits for ``init``;
        ``clock`` stamps commits (whole seconds, as git keeps them), the epoch without one."""
        self._clock = clock
        self._initialized = initialized
        self._bare = bare
        self._blobs: dict[str, bytes] = {}
        self._commits: dict[str, _Commit] = {}
        self._branch_head: str | None = None
        self._detached: str | None = None
        self._index: dict[str, tuple[str, int]] = {}
        self._files: dict[str, bytes] = {}
        # Findings a test plants for the recovery path to report and clear.
        self.pending_recovery: list[RecoveryFinding] = []
        self.recoveries = 0

    # --- test-side helpers -------------------------------------------------------------

    def write_file(self, path: str, data: bytes) -> None:
        """Write a working-tree file without staging it."""
        self._files[path] = data

    def remove_file(self, path: str) -> None:
        """Delete a working-tree file without staging the deletion."""
        del self._files[path]

    def staged(self, path: str) -> bool:
        """Whether ``path`` has an index entry (``git ls-files --cached``)."""
        return path in self._index

    def stage_move(self, source: str, target: str) -> None:
        """``git mv`` without committing: the file and its index entry move."""
        self._files[target] = self._files.pop(source)
        self._index[target] = self._index.pop(source)

    def stage_remove(self, path: str) -> None:
        """``git rm`` without committing: the file and its index entry go."""
        self._files.pop(path, None)
        del self._index[path]

    def detach_head(self) -> None:
        """Point HEAD at its current commit directly (``git checkout --detach``)."""
        self._detached = self._head()

    def history(self) -> tuple[str, ...]:
        """Commits from HEAD back along first parents."""
        found: list[str] = []
        sha = self._head()
        while sha is not None:
            found.append(sha)
            sha = self._commits[sha].parent
        return tuple(found)

    # --- GitPort ------------------------------------------------------------------------

    def head(self) -> str | None:
        """See ``GitPort.head``."""
        self._require("head")
        return self._head()

    def list_tree(self, ref: str, prefixes: Sequence[str] = ()) -> tuple[TreeEntry, ...]:
        """See ``GitPort.list_tree``."""
        tree = self._tree_of(self._resolve(ref, "list_tree"))
        roots = [check_repo_path(p.rstrip("/"), "list_tree") for p in prefixes]
        return tuple(
            TreeEntry(path=path, blob_sha=tree[path][0])
            for path in sorted(tree)
            if not roots or any(path == r or path.startswith(r + "/") for r in roots)
        )

    def commit_at(self, epoch_seconds: int) -> str | None:
        """See ``GitPort.commit_at``."""
        self._require("commit_at")
        sha = self._head()
        while sha is not None and self._commits[sha].time > epoch_seconds:
            sha = self._commits[sha].parent
        return sha

    def recent_commits(self, limit: int) -> tuple[CommitNote, ...]:
        """See ``GitPort.recent_commits``."""
        self._require("recent_commits")
        return tuple(
            CommitNote(
                sha=sha, parent=self._commits[sha].parent, message=self._commits[sha].message
            )
            for sha in self.history()[: max(0, limit)]
        )

    def first_parent_changes(self, stop: str | None) -> tuple[LineStep, ...] | None:
        """See ``GitPort.first_parent_changes``."""
        self._require("first_parent_changes")
        line: list[str] = []
        sha = self._head()
        while sha is not None and sha != stop:
            line.append(sha)
            sha = self._commits[sha].parent
        if stop is not None and sha != stop:
            return None
        steps: list[LineStep] = []
        before = self._tree_of(stop)
        for commit in reversed(line):
            after = self._tree_of(commit)
            changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
            changes = tuple((p, after[p][0] if p in after else None) for p in sorted(changed))
            steps.append(LineStep(sha=commit, at=self._commits[commit].time, changes=changes))
            before = after
        return tuple(steps)

    def read_blobs(self, shas: Sequence[str]) -> Mapping[str, bytes]:
        """See ``GitPort.read_blobs``."""
        self._require("read_blobs")
        if any(sha not in self._blobs for sha in shas):
            raise GitFailure("read_blobs")
        return {sha: self._blobs[sha] for sha in shas}

    def diff(self, from_sha: str | None, to_sha: str | None) -> tuple[DiffEntry, ...]:
        """See ``GitPort.diff``."""
        self._require("diff")
        old = self._tree_of(None if from_sha is None else self._resolve(from_sha, "diff"))
        new = self._tree_of(None if to_sha is None else self._resolve(to_sha, "diff"))
        rows = _name_status(old, new, self._blobs)
        return tuple(sorted(rows, key=lambda row: (row.path, row.status)))

    def status(self) -> tuple[StatusEntry, ...]:
        """See ``GitPort.status``."""
        self._require_worktree("status")
        head = self._tree_of(self._head())
        adds = {p: self._index[p] for p in self._index.keys() - head.keys()}
        deletes = {p: head[p] for p in head.keys() - self._index.keys()}
        changed: dict[str, str | None] = {
            p: None for p in head.keys() & self._index.keys() if head[p] != self._index[p]
        }
        sources = sorted(deletes)
        for path in sorted(adds):
            source = next((s for s in sources if deletes[s] == adds[path]), None)
            if source is not None:
                sources.remove(source)
            changed[path] = source
        changed.update((source, None) for source in sources)
        for path, (sha, _) in self._index.items():
            if path not in changed and blob_sha(self._files.get(path, b"")) != sha:
                changed[path] = None
            if path not in self._files:
                changed.setdefault(path, None)
        for path in self._files.keys() - self._index.keys():
            if not self._ignored(path):
                changed.setdefault(path, None)
        return tuple(
            StatusEntry(path=p, deleted=p not in self._files, from_path=changed[p])
            for p in sorted(changed)
        )

    def hash_working_file(self, path: str) -> str:
        """See ``GitPort.hash_working_file``."""
        return blob_sha(self._read(path, "hash_working_file"))

    def read_working_file(self, path: str) -> bytes:
        """See ``GitPort.read_working_file``."""
        return self._read(path, "read_working_file")

    # --- GitWriter ----------------------------------------------------------------------

    def init(self) -> bool:
        """See ``GitWriter.init``."""
        created = not self._initialized
        self._initialized = True
        return created

    def commit(self, changes: ChangeSet, message: str, *, expected_head: str | None) -> str:
        """See ``GitWriter.commit``."""
        self._require_worktree(COMMIT_OPERATION)
        every = [
            *(w.path for w in changes.writes),
            *changes.deletes,
            *(p for m in changes.moves for p in (m.source, m.target)),
        ]
        for path in every:
            check_repo_path(path, COMMIT_OPERATION)
        for move in changes.moves:
            if move.target in self._files:
                raise PathRefused(COMMIT_OPERATION, move.target, REFUSED_OCCUPIED)
        for write in changes.writes:
            if any(other.startswith(write.path + "/") for other in self._files):
                raise PathRefused(COMMIT_OPERATION, write.path, REFUSED_OCCUPIED)
        actual = self._head()
        if actual != expected_head:
            raise HeadMoved(expected_head, actual)
        base = self._tree_of(actual)
        edits = plan_tree_edits(changes, lambda path: _lookup(base, path))
        tree = dict(base)
        for write in changes.writes:
            self._blobs[blob_sha(write.data)] = write.data
        for edit in edits:
            if edit.blob_sha is None:
                tree.pop(edit.path)
            else:
                tree[edit.path] = (edit.blob_sha, edit.mode)
        sha = hashlib.sha1(
            repr((sorted(tree.items()), actual, message, len(self._commits))).encode(),
            usedforsecurity=False,
        ).hexdigest()
        when = 0 if self._clock is None else int(self._clock.now().timestamp())
        self._commits[sha] = _Commit(tree=tree, parent=actual, message=message, time=when)
        if self._detached is not None:
            self._detached = sha
        else:
            self._branch_head = sha
        for move in changes.moves:
            moved = self._files.pop(move.source, None)
            self._files[move.target] = (
                moved if moved is not None else self._blobs[tree[move.target][0]]
            )
        for write in changes.writes:
            self._files[write.path] = write.data
        for path in changes.deletes:
            self._files.pop(path, None)
        for edit in edits:
            if edit.blob_sha is None:
                self._index.pop(edit.path, None)
            else:
                self._index[edit.path] = (edit.blob_sha, edit.mode)
        return sha

    def needs_recovery(self) -> bool:
        """A dictionary commit cannot be interrupted: there is never anything to recover,
        except what a test planted in ``pending_recovery``."""
        return bool(self.pending_recovery)

    def inspect(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """See ``GitWriter.inspect``: the planted findings, unrepaired."""
        return tuple(attrs.evolve(f, repaired=False) for f in self.pending_recovery)

    def recover(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """See ``GitWriter.recover``: the planted findings, now repaired, and gone."""
        done = tuple(attrs.evolve(f, repaired=True) for f in self.pending_recovery)
        self.pending_recovery = []
        self.recoveries += 1
        return done

    # --- internals ----------------------------------------------------------------------

    def _require(self, operation: str) -> None:
        if not self._initialized:
            raise GitFailure(operation)

    def _require_worktree(self, operation: str) -> None:
        self._require(operation)
        if self._bare:
            raise GitFailure(f"{operation} (bare repository)")

    def _head(self) -> str | None:
        return self._detached if self._detached is not None else self._branch_head

    def _resolve(self, ref: str, operation: str) -> str:
        self._require(operation)
        sha = self._head() if ref in {"HEAD", BRANCH, f"refs/heads/{BRANCH}"} else ref
        if sha is None or sha not in self._commits:
            raise GitFailure(operation)
        return sha

    def _tree_of(self, sha: str | None) -> _Tree:
        return {} if sha is None else self._commits[sha].tree

    def _read(self, path: str, operation: str) -> bytes:
        check_repo_path(path, operation)
        self._require_worktree(operation)
        if path not in self._files:
            raise GitFailure(operation)
        return self._files[path]

    def _ignored(self, path: str) -> bool:
        rules = self._files.get(".gitignore", b"").decode("utf-8", errors="replace")
        return any(_matches(line.strip(), path) for line in rules.splitlines())


def _lookup(tree: _Tree, path: str) -> BaseNode | None:
    if path in tree:
        sha, mode = tree[path]
        return BaseNode(kind="file", blob_sha=sha, mode=mode)
    if any(other.startswith(path + "/") for other in tree):
        return BaseNode(kind="tree")
    return None


def _name_status(old: _Tree, new: _Tree, blobs: Mapping[str, bytes]) -> list[DiffEntry]:
    """Rows by git's rename rules, restated: exact blob matches pair first, then the most
    similar pairs above the threshold. A deleted file's match is a rename; a match against a
    modified file's old content, or against a source already renamed, is a copy: an add.
    """
    deleted = sorted(old.keys() - new.keys())
    modified = sorted(p for p in old.keys() & new.keys() if old[p] != new[p])
    sources = sorted([*deleted, *modified])
    adds = sorted(new.keys() - old.keys())
    renamed: dict[str, str] = {}
    copied: set[str] = set()
    used: set[str] = set()
    adds_by_blob: dict[str, list[str]] = defaultdict(list)
    for path in adds:
        adds_by_blob[new[path][0]].append(path)
    sources_by_blob: dict[str, list[str]] = defaultdict(list)
    for path in sources:
        sources_by_blob[old[path][0]].append(path)
    for sha, group in sources_by_blob.items():
        targets = adds_by_blob.get(sha, [])
        for source, target in zip(group, targets, strict=False):
            if source in modified:
                copied.add(target)
            else:
                renamed[target] = source
                used.add(source)
        copied.update(targets[len(group) :])
    open_sources = [s for s in sources if s not in used]
    open_adds = [a for a in adds if a not in renamed and a not in copied]
    if len(open_sources) * len(open_adds) <= RENAME_PAIR_LIMIT**2:
        candidates = sorted(
            (-score, "copy" if source in modified else "rename", source, target)
            for source in open_sources
            for target in open_adds
            if (score := _similarity(blobs[old[source][0]], blobs[new[target][0]]))
            > RENAME_THRESHOLD
        )
        for _, kind, source, target in candidates:
            if target in renamed or target in copied:
                continue
            if kind == "rename" and source not in used:
                renamed[target] = source
                used.add(source)
            else:
                copied.add(target)
    rows = [DiffEntry(status="M", path=p) for p in modified]
    rows += [DiffEntry(status="R", path=target, from_path=s) for target, s in renamed.items()]
    rows += [DiffEntry(status="A", path=p) for p in adds if p not in renamed]
    rows += [DiffEntry(status="D", path=p) for p in deleted if p not in used]
    return rows


def _blocks(data: bytes) -> Counter[bytes]:
    """Bytes per block, a block being a line (newline included) or 64 bytes of a long one."""
    pieces = data.split(b"\n")
    lines = [piece + b"\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
    counts: Counter[bytes] = Counter()
    for line in lines:
        for start in range(0, len(line), SIMILARITY_BLOCK):
            block = line[start : start + SIMILARITY_BLOCK]
            counts[block] += len(block)
    return counts


def _similarity(old: bytes, new: bytes) -> int:
    """0–100: bytes in blocks the two blobs share, over the larger blob's size."""
    largest = max(len(old), len(new))
    if not largest:
        return 100
    return sum((_blocks(old) & _blocks(new)).values()) * 100 // largest


def _matches(pattern: str, path: str) -> bool:
    """A root ``.gitignore`` line against a file path (the subset the module docstring names)."""
    if not pattern or pattern.startswith(("#", "!")):
        return False
    directory_only = pattern.endswith("/")
    core = pattern.strip("/")
    parts = path.split("/")
    candidates = parts[:-1] if directory_only else parts
    if "/" in pattern.rstrip("/"):
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(candidates))]
        return any(fnmatchcase(prefix, core) for prefix in prefixes)
    return any(fnmatchcase(name, core) for name in candidates)
