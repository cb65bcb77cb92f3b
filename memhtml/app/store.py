"""The Python facade: ``memhtml.open(root)`` returns a :class:`Store` a program can embed.

Each method hands one use case the ports it uses, taken from the store's wired
:class:`~memhtml.app.bootstrap.Services`; the command line, the MCP server, the evaluation
harnesses and the tests all call through here, so they run the same code.
"""

from __future__ import annotations

import shlex
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Final

from memhtml.app.bootstrap import STORE_DIR, Services, read_settings
from memhtml.app.errors import RepoRequired
from memhtml.app.linked_worktree import refuse_linked_worktree
from memhtml.ports.clock import Clock
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

if TYPE_CHECKING:
    from memhtml.app.apply_ops import ApplyOp, SessionDefaults
    from memhtml.app.use_cases.apply import ApplyResult
    from memhtml.app.use_cases.archive import ArchiveResult
    from memhtml.app.use_cases.clone import CloneResult
    from memhtml.app.use_cases.collaborators import WriteDeps
    from memhtml.app.use_cases.correct import CorrectRequest, CorrectResult
    from memhtml.app.use_cases.doctor import DoctorReport
    from memhtml.app.use_cases.index_ops import IndexStatus
    from memhtml.app.use_cases.init import InitResult
    from memhtml.app.use_cases.link import LinkResult
    from memhtml.app.use_cases.listing import ListRequest, ListResult
    from memhtml.app.use_cases.memory_source import MemorySource
    from memhtml.app.use_cases.near_duplicates import NearPolicy
    from memhtml.app.use_cases.neighbors import NeighborsResult
    from memhtml.app.use_cases.read import ReadPorts, ReadResult
    from memhtml.app.use_cases.retrieval_ops import RecallAnswer, ReinforceAnswer, SearchAnswer
    from memhtml.app.use_cases.state_ops import StateExportResult, StateImportResult
    from memhtml.app.use_cases.sync import SyncResult
    from memhtml.app.use_cases.sync_status import SyncStatus
    from memhtml.app.use_cases.trace_reads import TraceDetail, TraceListRequest, TraceListResult
    from memhtml.app.use_cases.trace_scan import TraceScanReport
    from memhtml.app.use_cases.write import WriteResult
    from memhtml.domain.reinforce import Signal
    from memhtml.domain.write_requests import WriteRequest
    from memhtml.ports.embedder import EmbeddingModel
    from memhtml.ports.indexer import BackfillReport, RebuildReport, UpdateReport
    from memhtml.ports.retrieval import RecallRequest, SearchRequest

GIT_DIR: Final = ".git"


def near_policy(mode: str, floor: float | None, limit: int | None) -> NearPolicy:
    """The near-duplicate policy of a facade call; ``None`` floor or limit is the default."""
    from memhtml.app.use_cases.near_duplicates import NearPolicy
    from memhtml.domain.near_duplicates import DEFAULT_NEAR_FLOOR, DEFAULT_NEAR_LIMIT

    return NearPolicy(
        mode=mode,
        floor=DEFAULT_NEAR_FLOOR if floor is None else floor,
        limit=DEFAULT_NEAR_LIMIT if limit is None else limit,
    )


class Store:
    """One open memory store. Close it (or use ``with``) to release its storage.

    Every method raises the domain and port errors its use case documents (``NotFound``,
    ``InvalidInput``, ``InvalidMemory``, ``StorageFailure``, ``GitFailure``…).
    """

    def __init__(self, services: Services) -> None:
        """Wrap wired services; :func:`open_store` is the constructor callers use."""
        from memhtml.app.use_cases.known_at import PastVersionMemo

        self.services = services
        self._past_memo = PastVersionMemo()
        # A store nobody closes is closed when it is collected, or at the latest as the
        # interpreter exits, while modules still work: dulwich's own finalizers would otherwise
        # run during teardown and print "sys.meta_path is None" warnings. Runs at most once.
        self._closer = weakref.finalize(self, services.close)

    @property
    def root(self) -> Path:
        """The store's working tree."""
        return self.services.settings.root

    def write_deps(self, *, embed: bool | None = None) -> WriteDeps:
        """The ports every mutating use case takes; ``embed`` overrides the store's setting."""
        from memhtml.app.use_cases.collaborators import WriteDeps

        s = self.services
        return WriteDeps(
            git=s.git,
            writer=s.writer,
            recorder=s.storage.recorder,
            indexer=s.indexer,
            clock=s.clock,
            codec=s.codec,
            assists=s.storage.assists,
            embed=s.embeds if embed is None else embed,
            embedder=s.embedder,
            write_lock=s.write_lock,
        )

    def read_ports(self) -> ReadPorts:
        """The ports the read-side use cases take."""
        from memhtml.app.use_cases.read import ReadPorts

        s = self.services
        return ReadPorts(
            git=s.git,
            indexer=s.indexer,
            retrieval=s.retrieval,
            recorder=s.storage.recorder,
            clock=s.clock,
            parse=s.parse,
            embed=s.embeds,
            links=s.storage.links,
            vector_floor=s.settings.embed.vector_coverage_floor,
            history=s.storage.history,
            fts_tokenizer=s.settings.fts_tokenizer,
            past_memo=self._past_memo,
            prefetch_query=None if s.query_embedder is None else s.query_embedder.prefetch,
        )

    def initialize(self, *, databases_created: bool) -> InitResult:
        """``memhtml init``'s steps: repository, config, scaffold commit (idempotent).

        Args:
            databases_created: Whether opening this store created its databases (the
                storage is already open by the time this runs).
        """
        from memhtml.app.use_cases.init import init_store

        s = self.services
        return init_store(
            root=s.settings.root,
            git=s.git,
            writer=s.writer,
            configure_repo=s.configure_repo,
            create_databases=lambda: databases_created,
        )

    def write(
        self,
        request: WriteRequest,
        *,
        embed: bool | None = None,
        on_conflict: str = "report",
        on_near_duplicate: str = "report",
        near_floor: float | None = None,
        near_limit: int | None = None,
    ) -> WriteResult:
        """Write one memory as one commit (or dedup onto the active memory holding it).

        ``embed`` False indexes it lexically and leaves its vector to a later pass (the next
        search embeds pending chunks, bounded, or ``index embed``); None is the store's setting.
        ``on_conflict`` is ``report``, ``fail`` or ``supersede`` (``use_cases/conflicts``);
        ``on_near_duplicate`` is ``report``, ``skip`` or ``fail``, with the cosine floor and the
        cap on listed matches (``None``: the defaults; ``use_cases/near_duplicates``).
        """
        from memhtml.app.use_cases.write import write_memory

        return write_memory(
            self.write_deps(embed=embed),
            request,
            on_conflict=on_conflict,
            near=near_policy(on_near_duplicate, near_floor, near_limit),
        )

    def read(
        self,
        path: str,
        *,
        session_id: str | None = None,
        prompt_id: str | None = None,
        turn_uuid: str | None = None,
        known_at: str | None = None,
    ) -> ReadResult:
        """Read one memory and bump its salience (cooldown applies); with ``known_at`` (a
        normalised UTC stamp), read it as the store knew it then, from git, bumping nothing."""
        from memhtml.app.use_cases.read import read_with

        return read_with(
            self.read_ports(),
            path,
            session_id=session_id,
            prompt_id=prompt_id,
            turn_uuid=turn_uuid,
            known_at=known_at,
        )

    def source(self, path: str, *, commit: str | None = None) -> MemorySource:
        """A memory file's HTML now (or at ``commit``); no parse, no freshness pass, no bump."""
        from memhtml.app.use_cases.memory_source import memory_source

        return memory_source(self.services.git, path, commit=commit)

    def neighbors(
        self, path: str, *, depth: int = 1, relations: Sequence[str] | None = None
    ) -> NeighborsResult:
        """The links around one memory, out to ``depth`` hops; ``relations`` narrows them."""
        from memhtml.app.use_cases.neighbors import NeighborPorts, neighbors_with

        s = self.services
        ports = NeighborPorts(
            links=s.storage.links,
            candidates=s.storage.candidates,
            indexer=s.indexer,
            embed=s.embeds,
        )
        return neighbors_with(ports, path, depth=depth, relations=relations)

    def list(self, request: ListRequest | None = None) -> ListResult:
        """One path-ordered page of memories; no salience."""
        from memhtml.app.use_cases.listing import KnownAtListing, ListRequest, list_with

        s = self.services
        known = KnownAtListing(
            history=s.storage.history,
            git=s.git,
            parse=s.parse,
            tokenizer=s.settings.fts_tokenizer,
            memo=self._past_memo,
        )
        return list_with(
            s.indexer, s.storage.lister, request or ListRequest(), embed=s.embeds, known=known
        )

    def search(self, request: SearchRequest | str, *, known_at: str | None = None) -> SearchAnswer:
        """Fused search; a plain string searches with the default scope and limit. With
        ``known_at`` (a normalised UTC stamp), what the store knew then."""
        from memhtml.app.use_cases.retrieval_ops import search_with
        from memhtml.ports.retrieval import SearchRequest

        if isinstance(request, str):
            request = SearchRequest(query=request)
        return search_with(self.read_ports(), request, known_at=known_at)

    def recall(self, request: RecallRequest | str, *, known_at: str | None = None) -> RecallAnswer:
        """The recall pack; a plain string recalls with the default scope and budget. With
        ``known_at`` (a normalised UTC stamp), from what the store knew then."""
        from memhtml.app.use_cases.retrieval_ops import recall_with
        from memhtml.ports.retrieval import RecallRequest

        if isinstance(request, str):
            request = RecallRequest(query=request)
        return recall_with(self.read_ports(), request, known_at=known_at)

    def reinforce(
        self,
        paths: Sequence[str],
        signal: Signal | str = "neutral",
        *,
        session_id: str | None = None,
        prompt_id: str | None = None,
        turn_uuid: str | None = None,
    ) -> ReinforceAnswer:
        """Bump memories by path; non-neutral signals move their outcome."""
        from memhtml.app.use_cases.retrieval_ops import reinforce_with

        return reinforce_with(
            self.read_ports(),
            paths,
            signal,
            session_id=session_id,
            prompt_id=prompt_id,
            turn_uuid=turn_uuid,
        )

    def correct(
        self,
        target: str,
        correction: CorrectRequest,
        *,
        embed: bool | None = None,
        on_conflict: str = "report",
        on_near_duplicate: str = "report",
        near_floor: float | None = None,
        near_limit: int | None = None,
    ) -> CorrectResult:
        """Replace a memory: archive it and write its successor, one commit (``embed``,
        ``on_conflict`` and the near-duplicate policy as in ``write``)."""
        from memhtml.app.use_cases.correct import correct_memory

        return correct_memory(
            self.write_deps(embed=embed),
            target,
            correction,
            on_conflict=on_conflict,
            near=near_policy(on_near_duplicate, near_floor, near_limit),
        )

    def archive(self, path: str, reason: str, *, embed: bool | None = None) -> ArchiveResult:
        """Move a memory under ``archive/<YYYY>/``, one commit (``embed`` as in ``write``)."""
        from memhtml.app.use_cases.archive import archive_memory

        return archive_memory(self.write_deps(embed=embed), path, reason)

    def link(self, src: str, rel: str, dst: str, *, embed: bool | None = None) -> LinkResult:
        """Add one edge of the closed vocabulary to ``src``'s head (``embed`` as in ``write``)."""
        from memhtml.app.use_cases.link import link_memories

        return link_memories(self.write_deps(embed=embed), src, rel, dst)

    def apply(
        self,
        ops: Sequence[ApplyOp] | Sequence[str],
        *,
        continue_on_error: bool = False,
        defaults: SessionDefaults | None = None,
        progress: ProgressSink = NO_PROGRESS,
        embed: bool | None = None,
        on_conflict: str = "report",
        on_near_duplicate: str = "report",
        near_floor: float | None = None,
        near_limit: int | None = None,
    ) -> ApplyResult:
        """Run a batch as one commit; ``ops`` are checked ops or raw JSONL lines.

        ``embed`` False leaves the batch's vectors to a later pass (the store's setting when
        None); ``on_conflict`` and the near-duplicate policy as in ``write``.
        """
        from memhtml.app.apply_ops import parse_apply_lines
        from memhtml.app.use_cases.apply import apply_batch

        checked = (
            parse_apply_lines([op for op in ops if isinstance(op, str)], defaults)
            if any(isinstance(op, str) for op in ops)
            else tuple(op for op in ops if not isinstance(op, str))
        )
        return apply_batch(
            self.write_deps(embed=embed),
            checked,
            continue_on_error=continue_on_error,
            defaults=defaults,
            progress=progress,
            on_conflict=on_conflict,
            near=near_policy(on_near_duplicate, near_floor, near_limit),
        )

    def index_rebuild(
        self,
        *,
        embed: bool | None = None,
        force: bool = False,
        progress: ProgressSink = NO_PROGRESS,
    ) -> RebuildReport:
        """Rebuild the index from HEAD; ``embed`` defaults to whether the store embeds."""
        from memhtml.app.use_cases.index_ops import index_rebuild

        s = self.services
        return index_rebuild(
            s.indexer,
            embed=s.embeds if embed is None else embed,
            force=force,
            progress=progress,
        )

    def index_update(
        self, *, embed: bool | None = None, progress: ProgressSink = NO_PROGRESS
    ) -> UpdateReport:
        """Bring the index level with HEAD and the working tree."""
        from memhtml.app.use_cases.index_ops import index_update

        s = self.services
        return index_update(
            s.indexer, embed=s.embeds if embed is None else embed, progress=progress
        )

    def index_embed(
        self, *, dry_run: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> BackfillReport:
        """Backfill missing vectors."""
        from memhtml.app.use_cases.index_ops import embed_with

        return embed_with(self.services.indexer, dry_run=dry_run, progress=progress)

    def index_status(self) -> IndexStatus:
        """The index's watermark, vector space and counts."""
        from memhtml.app.use_cases.index_ops import status_with

        s = self.services
        head = s.git.head()
        return status_with(
            s.indexer,
            s.storage.census,
            configured_model=s.watermark,
            floor=s.settings.embed.vector_coverage_floor,
            has_state=s.storage.has_state,
            head=head,
            history=s.storage.history,
            sync=self.sync_status(head=head),
        )

    def doctor(self, *, fix: bool = False) -> DoctorReport:
        """Check the store; read-only unless ``fix`` repairs dangling links and orphan rows.

        Raises:
            DirtyTree, IndexStale, EmbedModelMismatch, HeadMoved: Only with ``fix``; nothing
                is written then.
        """
        import attrs

        from memhtml.app.use_cases.doctor import DoctorPorts, doctor_with
        from memhtml.app.use_cases.doctor_fix import FixPorts, repair_with
        from memhtml.app.use_cases.recovery_report import described, doctor_findings

        s = self.services
        repaired = None
        if fix:
            repaired = repair_with(
                FixPorts(
                    deps=self.write_deps(),
                    probe=s.storage.health,
                    pruner=s.storage.pruner,
                    retarget=s.codec.retarget_link,
                    drop=s.codec.drop_link,
                )
            )
            healed = tuple(f for f in s.recovery if f.repaired)
            repaired = attrs.evolve(repaired, recovered=described(healed))
        report = doctor_with(
            DoctorPorts(
                git=s.git,
                parse=s.parse,
                indexer=s.indexer,
                probe=s.storage.health,
                root=str(s.settings.root),
                configured_model=s.watermark,
                floor=s.settings.embed.vector_coverage_floor,
                # The configured backend, not the embedder instance: the plain doctor opens
                # none, and low coverage must still be reported when the store should embed.
                embeds=s.settings.embed.writes_vectors,
                has_state=s.storage.has_state,
                recovery=doctor_findings(s.recovery, s.writer, s.indexer, after_fix=fix),
                history=s.storage.history,
                sync=self.sync_status(),
            )
        )
        return report if repaired is None else attrs.evolve(report, repaired=repaired)

    def state_export(self) -> StateExportResult:
        """Export the access table to the committed sidecar (a commit only on change)."""
        from memhtml.app.use_cases.state_ops import export_with

        s = self.services
        return export_with(s.storage.state, s.git, s.writer)

    def state_import(self) -> StateImportResult:
        """Merge the committed sidecar into the state plane."""
        from memhtml.app.use_cases.state_ops import import_with, read_sidecar

        s = self.services
        return import_with(s.storage.state, read_sidecar(s.git), has_state=s.storage.has_state)

    def sync(
        self,
        *,
        remote: str = "origin",
        dry_run: bool = False,
        progress: ProgressSink = NO_PROGRESS,
    ) -> SyncResult:
        """Exchange commits with ``remote`` (docs/sync.md): export the access table, fetch,
        merge or fast-forward, push (retrying when someone pushed first), catch the index up
        and merge the remote's access rows into the state plane."""
        from memhtml.app.use_cases.sync import SyncPorts, sync_with

        s = self.services
        ports = SyncPorts(
            git=s.git,
            writer=s.writer,
            history=s.history,
            landing=s.landing,
            remote=s.remote,
            indexer=s.indexer,
            codec=s.codec,
            clock=s.clock,
            state=s.storage.state if s.storage.has_state else None,
            embed=s.embeds,
        )
        return sync_with(ports, remote=remote, dry_run=dry_run, progress=progress)

    def sync_status(self, *, remote: str = "origin", head: str | None = None) -> SyncStatus:
        """Ahead and behind against ``remote``'s tracking branch and the last sync, from local
        refs (no network); ``head`` is HEAD when the caller already read it."""
        from memhtml.app.use_cases.sync_status import sync_status_with

        s = self.services
        at = s.git.head() if head is None else head
        return sync_status_with(s.remote, s.history, head=at, name=remote)

    def set_remote(self, url: str, *, name: str = "origin") -> bool:
        """Point remote ``name`` at ``url``; True when the configuration changed."""
        return self.services.remote.set_remote(name, url)

    def remote_url(self, name: str = "origin") -> str:
        """Remote ``name``'s URL with any secret hidden.

        Raises:
            RemoteMissing: None is configured under that name.
        """
        return self.services.remote.remote(name).url

    def trace_scan(
        self,
        roots: Sequence[str] | None = None,
        *,
        progress: ProgressSink = NO_PROGRESS,
        environ: Mapping[str, str] | None = None,
    ) -> TraceScanReport:
        """Scan agent transcripts into the trace plane.

        Args:
            roots: Directories (or files) to scan; None scans the agents' usual session
                folders that exist (``~/.claude/projects``, ``~/.codex/sessions``, moved by
                ``CLAUDE_CONFIG_DIR`` and ``CODEX_HOME`` in ``environ``).
            progress: Receives the ``scanning`` phase, in bytes.
            environ: Where those two variables are read; ``os.environ`` by default.
        """
        import os

        from memhtml.app.use_cases.trace_scan import (
            TraceScanPorts,
            default_transcript_roots,
            existing_roots,
            scan_traces,
        )

        s = self.services
        if roots is None:
            candidates = default_transcript_roots(
                os.environ if environ is None else environ, str(Path.home())
            )
            roots = existing_roots(s.transcripts, candidates)
        ports = TraceScanPorts(files=s.transcripts, traces=s.storage.traces, clock=s.clock)
        return scan_traces(ports, roots, progress=progress)

    def trace_list(self, request: TraceListRequest | None = None) -> TraceListResult:
        """Scanned sessions, latest activity first."""
        from memhtml.app.use_cases.trace_reads import TraceListRequest, list_traces

        return list_traces(self.services.storage.traces, request or TraceListRequest())

    def trace_show(self, session_id: str) -> TraceDetail:
        """One session's row, prompts and the memories it touched."""
        from memhtml.app.use_cases.trace_reads import show_trace

        storage = self.services.storage
        return show_trace(storage.traces, storage.recorder, session_id)

    def close(self) -> None:
        """Release the storage; a second call does nothing."""
        self._closer()

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
