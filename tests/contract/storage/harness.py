"""One harness for every storage contract suite: the same assertions over each backend.

A suite takes the ``backend`` fixture (parametrized over SQLite and the in-memory backend) and
talks to the ports only: never ``SELECT``, never a backend's private tables. Memories are
written as real files (rendered and parsed by the html adapter) projected by the domain.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import attrs

from memhtml.adapters.html import parse_memory, render_memory
from memhtml.adapters.memory import open_memory_storage
from memhtml.adapters.sqlite.opening import open_sqlite_storage
from memhtml.domain.model import Link, MemoryDoc, RenderInputs
from memhtml.domain.projection import FileProjection, project_file
from memhtml.ports.git import blob_sha
from memhtml.ports.storage import Storage, StorageLocation

BACKENDS = ("sqlite", "memory")
NOW = "2026-09-14T07:02:11Z"
MODEL = "memhtml-hashing-v1@16"
DIM = 16


def _location(folder: Path, tokenizer: str) -> StorageLocation:
    return StorageLocation(
        index_path=str(folder / "index.db"),
        state_path=str(folder / "state.db"),
        fts_tokenizer=tokenizer,
    )


_TEMPLATES = tempfile.TemporaryDirectory(prefix="memhtml-storage-templates-")
atexit.register(_TEMPLATES.cleanup)


@functools.cache
def _sqlite_template(tokenizer: str) -> Path:
    """A folder holding what opening a new SQLite store leaves once it is closed."""
    folder = Path(_TEMPLATES.name) / tokenizer
    open_sqlite_storage(_location(folder, tokenizer)).storage.close()
    return folder


@contextmanager
def open_backend(kind: str, tokenizer: str = "unicode61") -> Iterator[Storage]:
    """A fresh, empty store of the given backend, closed afterwards.

    A SQLite store opens a copy of a new store's files: migrating a file per test cost ~80 ms
    on an idle core; the copy is opened exactly as the first open left it (migrations, the
    state plane's first fill and damaged files have their own tests).
    """
    with tempfile.TemporaryDirectory() as folder:
        if kind == "sqlite":
            store = Path(folder) / "store"
            shutil.copytree(_sqlite_template(tokenizer), store)
            storage = open_sqlite_storage(_location(store, tokenizer)).storage
        else:
            storage = open_memory_storage(_location(Path(folder), tokenizer)).storage
        try:
            yield storage
        finally:
            storage.close()


@attrs.frozen(kw_only=True)
class Memory:
    """A memory as a test describes it."""

    path: str
    claim: str
    title: str = "A memory"
    memory_type: str = "semantic"
    body: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()
    updated_at: str = "2026-09-02T00:00:00Z"
    event_at: str | None = None
    session_id: str | None = None

    def data(self) -> bytes:
        """The file's bytes, as the writer renders them."""
        inputs = RenderInputs(
            title=self.title,
            memory_type=self.memory_type,
            created_at="2026-09-01T00:00:00Z",
            updated_at=self.updated_at,
            claim=self.claim,
            body=self.body,
            tags=self.tags,
            entities=self.entities,
            aliases=self.aliases,
            links=tuple(Link(rel, target) for rel, target in self.links),
            event_at=self.event_at,
            task_status="todo" if self.memory_type == "task" else None,
            session_id=self.session_id,
        )
        return render_memory(inputs).encode("utf-8")

    def doc(self) -> MemoryDoc:
        """The parsed file."""
        return parse_memory(self.data())

    def projection(self, indexed_at: str = NOW) -> FileProjection:
        """The rows the index holds for it."""
        data = self.data()
        return project_file(
            path=self.path, blob_sha=blob_sha(data), doc=parse_memory(data), indexed_at=indexed_at
        )


def write(storage: Storage, memories: Sequence[Memory]) -> tuple[FileProjection, ...]:
    """Project ``memories`` into ``storage`` and refresh the contextual documents, as an
    indexing pass does; return their projections."""
    projections = tuple(memory.projection() for memory in memories)
    storage.index.write_projections(projections)
    storage.index.refresh_context()
    return projections
