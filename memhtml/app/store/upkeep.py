"""The facade's upkeep: the index's passes, doctor, the state sidecar, sync with a remote and
the trace plane.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memhtml.app.store.core import StoreCore
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

if TYPE_CHECKING:
    from memhtml.app.use_cases.doctor import DoctorReport
    from memhtml.app.use_cases.index_ops import IndexStatus
    from memhtml.app.use_cases.state_ops import StateExportResult, StateImportResult
    from memhtml.app.use_cases.sync import SyncResult
    from memhtml.app.use_cases.sync_status import SyncStatus
    from memhtml.app.use_cases.trace_reads import TraceDetail, TraceListRequest, TraceListResult
    from memhtml.app.use_cases.trace_scan import TraceScanReport
    from memhtml.ports.indexer import BackfillReport, RebuildReport, UpdateReport


class StoreUpkeep(StoreCore):
    """Index, health, state, sync and trace methods of :class:`~memhtml.app.store.Store`."""

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
