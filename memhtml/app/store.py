"""The Python facade: ``memhtml.open(root)`` returns a :class:`Store` a program can embed.

Each method is one call into its use case over the store's wired services, so the facade, the
command line and the tests all run the same code.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Final

from memhtml.app.bootstrap import STORE_DIR, Services, read_settings
from memhtml.app.errors import RepoRequired
from memhtml.ports.clock import Clock

if TYPE_CHECKING:
    from memhtml.app.apply_ops import ApplyOp, SessionDefaults
    from memhtml.app.use_cases.apply import ApplyResult
    from memhtml.app.use_cases.archive import ArchiveResult
    from memhtml.app.use_cases.correct import CorrectRequest, CorrectResult
    from memhtml.app.use_cases.doctor import DoctorReport
    from memhtml.app.use_cases.index_ops import IndexStatus
    from memhtml.app.use_cases.link import LinkResult
    from memhtml.app.use_cases.listing import ListRequest, ListResult
    from memhtml.app.use_cases.memory_source import MemorySource
    from memhtml.app.use_cases.read import ReadResult
    from memhtml.app.use_cases.retrieval_ops import RecallAnswer, ReinforceAnswer, SearchAnswer
    from memhtml.app.use_cases.state_ops import StateExportResult, StateImportResult
    from memhtml.app.use_cases.write import WriteResult
    from memhtml.app.write_requests import WriteRequest
    from memhtml.domain.reinforce import Signal
    from memhtml.ports.embedder import EmbeddingModel
    from memhtml.ports.indexer import BackfillReport, RebuildReport, UpdateReport
    from memhtml.ports.retrieval import RecallRequest, SearchRequest

GIT_DIR: Final = ".git"


class Store:
    """One open memory store. Close it (or use ``with``) to release SQLite.

    Every method raises the domain and port errors its use case documents (``NotFound``,
    ``InvalidInput``, ``InvalidMemory``, ``StorageFailure``, ``GitFailure``…).
    """

    def __init__(self, services: Services) -> None:
        """Wrap wired services; :func:`open_store` is the constructor callers use."""
        self.services = services

    @property
    def root(self) -> Path:
        """The store's working tree."""
        return self.services.settings.root

    def write(self, request: WriteRequest) -> WriteResult:
        """Write one memory as one commit (or dedup onto the active memory holding it)."""
        from memhtml.app.use_cases.write import write_memory

        return write_memory(self.services.write_deps(), request)

    def read(self, path: str, *, session_id: str | None = None) -> ReadResult:
        """Read one memory and bump its salience (cooldown applies)."""
        from memhtml.app.use_cases.read import read_memory

        return read_memory(self.services, path, session_id=session_id)

    def source(self, path: str, *, commit: str | None = None) -> MemorySource:
        """A memory file's HTML now (or at ``commit``); no parse, no freshness pass, no bump."""
        from memhtml.app.use_cases.memory_source import memory_source

        return memory_source(self.services.git, path, commit=commit)

    def list(self, request: ListRequest | None = None) -> ListResult:
        """One path-ordered page of memories; no salience."""
        from memhtml.app.use_cases.listing import ListRequest, list_memories

        return list_memories(self.services, request or ListRequest())

    def search(self, request: SearchRequest | str) -> SearchAnswer:
        """Fused search; a plain string searches with the default scope and limit."""
        from memhtml.app.use_cases.retrieval_ops import search_memories
        from memhtml.ports.retrieval import SearchRequest

        if isinstance(request, str):
            request = SearchRequest(query=request)
        return search_memories(self.services, request)

    def recall(self, request: RecallRequest | str) -> RecallAnswer:
        """The recall pack; a plain string recalls with the default scope and budget."""
        from memhtml.app.use_cases.retrieval_ops import recall_memories
        from memhtml.ports.retrieval import RecallRequest

        if isinstance(request, str):
            request = RecallRequest(query=request)
        return recall_memories(self.services, request)

    def reinforce(
        self,
        paths: Sequence[str],
        signal: Signal | str = "neutral",
        *,
        session_id: str | None = None,
    ) -> ReinforceAnswer:
        """Bump memories by path; non-neutral signals move their outcome."""
        from memhtml.app.use_cases.retrieval_ops import reinforce_paths

        return reinforce_paths(self.services, paths, signal, session_id=session_id)

    def correct(self, target: str, correction: CorrectRequest) -> CorrectResult:
        """Replace a memory: archive it and write its successor, one commit."""
        from memhtml.app.use_cases.correct import correct_memory

        return correct_memory(self.services.write_deps(), target, correction)

    def archive(self, path: str, reason: str) -> ArchiveResult:
        """Move a memory under ``archive/<YYYY>/``, one commit."""
        from memhtml.app.use_cases.archive import archive_memory

        return archive_memory(self.services.write_deps(), path, reason)

    def link(self, src: str, rel: str, dst: str) -> LinkResult:
        """Add one edge of the closed vocabulary to ``src``'s head."""
        from memhtml.app.use_cases.link import link_memories

        return link_memories(self.services.write_deps(), src, rel, dst)

    def apply(
        self,
        ops: Sequence[ApplyOp] | Sequence[str],
        *,
        continue_on_error: bool = False,
        defaults: SessionDefaults | None = None,
    ) -> ApplyResult:
        """Run a batch as one commit; ``ops`` are checked ops or raw JSONL lines."""
        from memhtml.app.apply_ops import parse_apply_lines
        from memhtml.app.use_cases.apply import apply_batch

        checked = (
            parse_apply_lines([op for op in ops if isinstance(op, str)], defaults)
            if any(isinstance(op, str) for op in ops)
            else tuple(op for op in ops if not isinstance(op, str))
        )
        return apply_batch(
            self.services.write_deps(),
            checked,
            continue_on_error=continue_on_error,
            defaults=defaults,
        )

    def index_rebuild(self, *, embed: bool | None = None, force: bool = False) -> RebuildReport:
        """Rebuild the index from HEAD."""
        from memhtml.app.use_cases.index_ops import index_rebuild

        return index_rebuild(self.services, embed=embed, force=force)

    def index_update(self, *, embed: bool | None = None) -> UpdateReport:
        """Bring the index level with HEAD and the working tree."""
        from memhtml.app.use_cases.index_ops import index_update

        return index_update(self.services, embed=embed)

    def index_embed(self, *, dry_run: bool = False) -> BackfillReport:
        """Backfill missing vectors."""
        from memhtml.app.use_cases.index_ops import index_embed

        return index_embed(self.services, dry_run=dry_run)

    def index_status(self) -> IndexStatus:
        """The index's watermark, vector space and counts."""
        from memhtml.app.use_cases.index_ops import index_status

        return index_status(self.services)

    def doctor(self, *, fix: bool = False) -> DoctorReport:
        """Check the store; read-only unless ``fix`` repairs dangling links and orphan rows."""
        from memhtml.app.use_cases.doctor import run_doctor

        return run_doctor(self.services, fix=fix)

    def state_export(self) -> StateExportResult:
        """Export the access table to the committed sidecar (a commit only on change)."""
        from memhtml.app.use_cases.state_ops import state_export

        return state_export(self.services)

    def state_import(self) -> StateImportResult:
        """Merge the committed sidecar into the state plane."""
        from memhtml.app.use_cases.state_ops import state_import

        return state_import(self.services)

    def close(self) -> None:
        """Release the database connection."""
        self.services.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_store(
    root: str | Path,
    *,
    environ: Mapping[str, str] | None = None,
    clock: Clock | None = None,
    embedder: EmbeddingModel | bool | None = True,
) -> Store:
    """Open the initialized store at ``root``.

    Args:
        root: The store's working tree (``~`` expanded).
        environ: Where settings come from; ``os.environ`` by default.
        clock: The instant source; the system clock by default.
        embedder: ``True`` builds the configured embedder, an instance overrides it, ``False``
            or ``None`` is lexical-only.

    Raises:
        RepoRequired: ``root`` is not a git work tree with a ``.memhtml/`` folder.
        InvalidInput: An environment variable holds a bad value.
    """
    settings = read_settings(root, environ)
    if not ((settings.root / STORE_DIR).is_dir() and (settings.root / GIT_DIR).exists()):
        # Opening anyway would create .memhtml/ and both databases in a folder that is not a
        # store, leaving debris where the caller mistyped a path.
        raise RepoRequired(
            f"{settings.root} is not an initialized memhtml repository",
            root=str(settings.root),
            suggestions=(f"memhtml init --repo {shlex.quote(str(settings.root))}",),
        )
    return Store(Services(settings, clock=clock, embedder=embedder))
