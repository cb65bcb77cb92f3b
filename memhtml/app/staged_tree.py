"""HEAD's tree plus what one command stages on it, turned into one ``ChangeSet`` at the end.

A command (or a whole ``apply`` batch) reads and places against this view, so an op sees the
files earlier ops wrote, moved or linked, and the batch still lands as one commit on exactly the
HEAD it was planned against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping

from memhtml.domain.errors import NotFound
from memhtml.domain.model import MemoryDoc
from memhtml.ports.git import GitPort, StatusEntry, blob_sha
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite


def _ancestors(path: str) -> Iterator[str]:
    parts = path.split("/")
    for end in range(1, len(parts)):
        yield "/".join(parts[:end])


class StagedTree:
    """The tree at one HEAD with staged writes and moves on top.

    A working object for the length of one attempt, not a value: ops stage into it in order,
    and ``change_set`` describes the net effect. Paths with uncommitted edits (``dirty``) count
    as occupied, so a placement never overwrites a person's unsaved file.
    """

    def __init__(
        self,
        *,
        head: str | None,
        base: Mapping[str, str],
        dirty: frozenset[str],
        read_blob: Callable[[str], bytes],
    ) -> None:
        """Start from a tree.

        Args:
            head: The commit the tree belongs to (``None`` for an unborn HEAD).
            base: Every file of that tree, path to blob sha.
            dirty: Paths with uncommitted changes, untracked files included.
            read_blob: The bytes of a blob by sha.
        """
        self.head = head
        self._base = dict(base)
        self._base_dirs = {ancestor for path in base for ancestor in _ancestors(path)}
        self._dirty = dirty
        self._dirty_dirs = {ancestor for path in dirty for ancestor in _ancestors(path)}
        self._read_blob = read_blob
        # Net content per touched path: bytes, or None once moved away.
        self._final: dict[str, bytes | None] = {}
        # Folders above staged files, with how many staged files each holds: placement asks
        # "is anything staged below?" per write, which scanning every staged path made
        # quadratic in the size of a batch.
        self._staged_dirs: Counter[str] = Counter()
        # Archive moves, target to the path its content first came from, so an unchanged source
        # still diffs as a rename. A move of a moved file extends its chain; a later move onto
        # the same target replaces the earlier one (its source is then only a delete).
        self._moves: dict[str, str] = {}
        # Documents the writer parsed, by the bytes they were parsed from.
        self._docs: dict[bytes, MemoryDoc] = {}

    @classmethod
    def load(cls, git: GitPort, status: Iterable[StatusEntry] | None = None) -> StagedTree:
        """The tree at the current HEAD and the working tree's uncommitted paths.

        Args:
            git: The store's git port.
            status: A status answer this caller already holds for the same moment (the
                preflight index update's, under the same write lock), so the working tree is
                not walked twice; ``None`` walks. An edit made after that walk is one made
                after this load: the commit's own checks never overwrite it.
        """
        head = git.head()
        base = {} if head is None else {e.path: e.blob_sha for e in git.list_tree(head)}
        dirty: set[str] = set()
        for entry in git.status() if status is None else status:
            dirty.add(entry.path)
            if entry.from_path is not None:
                dirty.add(entry.from_path)

        def read_blob(sha: str) -> bytes:
            return git.read_blobs([sha])[sha]

        return cls(head=head, base=base, dirty=frozenset(dirty), read_blob=read_blob)

    def scratch(self) -> StagedTree:
        """A new tree of the same HEAD and uncommitted paths with nothing staged on it."""
        return StagedTree(
            head=self.head, base=self._base, dirty=self._dirty, read_blob=self._read_blob
        )

    def touches_dirty(self, changes: ChangeSet) -> bool:
        """Whether ``changes`` writes, deletes or moves a path with uncommitted edits."""
        paths = [
            *(write.path for write in changes.writes),
            *changes.deletes,
            *(path for move in changes.moves for path in (move.source, move.target)),
        ]
        return any(path in self._dirty for path in paths)

    def exists(self, path: str) -> bool:
        """Whether a file is at ``path`` once the staged changes apply."""
        if path in self._final:
            return self._final[path] is not None
        return path in self._base

    def is_dirty(self, path: str) -> bool:
        """Whether ``path`` carries uncommitted edits in the working tree."""
        return path in self._dirty

    def is_free(self, path: str) -> bool:
        """Whether a new file may go at ``path``: no file, folder or dirty entry there or above."""
        if self.exists(path) or path in self._dirty or path in self._base_dirs:
            return False
        if path in self._staged_dirs or path in self._dirty_dirs:
            return False
        return not any(self.exists(a) or a in self._dirty for a in _ancestors(path))

    def is_usable_folder(self, directory: str) -> bool:
        """Whether files may go under ``directory``: neither it nor a folder above it is a file
        (committed, staged or uncommitted, a symlink included)."""
        prefixes = [*_ancestors(directory), directory]
        return not any(self.exists(p) or p in self._dirty for p in prefixes)

    def read(self, path: str) -> bytes:
        """The file's bytes as staged.

        Raises:
            NotFound: Nothing is at ``path``.
        """
        if path in self._final:
            data = self._final[path]
            if data is None:
                raise NotFound(f"no memory at {path}")
            return data
        if path not in self._base:
            raise NotFound(f"no memory at {path}")
        return self._read_blob(self._base[path])

    def write(self, path: str, data: bytes, doc: MemoryDoc | None = None) -> None:
        """Stage ``data`` at ``path`` (new or replacing).

        Args:
            path: Where.
            data: The file's bytes.
            doc: What parsing ``data`` gives, when the caller already knows (the renderer's
                parse); handed to the index update after the commit (``documents``).
        """
        self._stage(path, data)
        if doc is not None:
            self._docs[data] = doc

    def move(self, source: str, target: str, data: bytes) -> None:
        """Stage a move of ``source`` to ``target``, whose content becomes ``data``."""
        self._stage(source, None)
        self._stage(target, data)
        self._moves[target] = self._moves.pop(source, source)

    def documents(self) -> dict[bytes, MemoryDoc]:
        """The known documents of the bytes still staged, keyed by those bytes."""
        staged = {data for data in self._final.values() if data is not None}
        return {data: doc for data, doc in self._docs.items() if data in staged}

    def _stage(self, path: str, data: bytes | None) -> None:
        was_staged = self._final.get(path) is not None
        self._final[path] = data
        if was_staged != (data is not None):
            change = Counter(_ancestors(path))
            if data is None:
                self._staged_dirs -= change
            else:
                self._staged_dirs += change

    def change_set(self) -> ChangeSet:
        """The net change against the base tree; empty when nothing differs.

        A staged move becomes a ``FileMove`` (plus the write of its stamped content) only when
        its source is a base file left empty; a source written again in the same batch (a
        correction that reuses the old path) becomes two writes, because a change set may not
        give one path two roles.
        """
        moves: list[FileMove] = []
        moved_sources: set[str] = set()
        for target, source in self._moves.items():
            if (
                source in self._base
                and source not in moved_sources
                and self._final.get(source, b"") is None
                and self._final.get(target) is not None
                and target not in self._base
            ):
                moves.append(FileMove(source=source, target=target))
                moved_sources.add(source)
        writes: list[FileWrite] = []
        deletes: list[str] = []
        for path in sorted(self._final):
            data = self._final[path]
            if data is None:
                if path in self._base and path not in moved_sources:
                    deletes.append(path)
            # A move target is never in the base tree, so its stamped bytes are always written.
            elif self._base.get(path) != blob_sha(data):
                writes.append(FileWrite(path=path, data=data))
        return ChangeSet(writes=tuple(writes), deletes=tuple(deletes), moves=tuple(moves))
