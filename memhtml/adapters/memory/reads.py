"""The read-side ports in memory: candidate rows, the archive lookup, listing, counts, health."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from memhtml.adapters.memory.tables import MemoryTables
from memhtml.domain.scope import ENTITY_SEPARATOR, SearchScope, is_narrowing, scope_admits
from memhtml.domain.vectors import f32_cosine_distance, pack_f32
from memhtml.ports.archive_lookup import ArchivedLookup, ArchivedMatch
from memhtml.ports.candidate_store import CandidateRow
from memhtml.ports.embedder import Vector
from memhtml.ports.health import ContradictionLink, DanglingLink, FrameClaim, InboxDepths
from memhtml.ports.index_census import IndexCounts
from memhtml.ports.link_graph import StoredLink
from memhtml.ports.lister import ListedMemory, ListPage

INBOX_PREFIX = "areas/inbox/"
SUPERSEDES = "supersedes"
PROVENANCE_CLASS = "provenance"


class MemoryCandidateStore:
    """The :class:`memhtml.ports.candidate_store.CandidateStore` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Read from ``tables``."""
        self._t = tables

    def candidate_rows(self, paths: Sequence[str], model: str | None) -> Mapping[str, CandidateRow]:
        """See ``CandidateStore.candidate_rows``."""
        t = self._t
        first_vector: dict[str, bytes] = {}
        wanted = set(paths)
        for chunk_id, chunk in t.chunks.items():
            vector = t.vectors.get(chunk_id)
            if chunk.path in wanted and chunk.ordinal == 0 and vector and vector.model == model:
                first_vector[chunk.path] = vector.blob
        found: dict[str, CandidateRow] = {}
        for path in paths:
            row = t.files.get(path)
            if row is None or path in found:
                continue
            found[path] = CandidateRow(
                title=row.title,
                gist=row.gist,
                memory_type=row.memory_type,
                confidence=row.confidence,
                updated_at=row.updated_at,
                disclosure_text=row.disclosure_text,
                vector_blob=first_vector.get(path),
                superseded_by=self._superseded_by(path) if row.archived else None,
                importance=row.importance,
                pinned=row.pinned,
                tags=tuple(sorted(t.tags.get(path, ()))),
            )
        return found

    def snippets(
        self, paths: Sequence[str], query_vector: Vector | None, model: str | None
    ) -> Mapping[str, str]:
        """See ``CandidateStore.snippets``."""
        t = self._t
        probe = None if query_vector is None else pack_f32(query_vector)
        best: dict[str, tuple[bool, float, int, str]] = {}
        wanted = set(paths)
        for chunk_id, chunk in t.chunks.items():
            if chunk.path not in wanted:
                continue
            vector = t.vectors.get(chunk_id)
            distance = None
            if probe is not None and vector is not None and vector.model == model:
                distance = f32_cosine_distance(vector.blob, probe)
            key = (distance is None, 0.0 if distance is None else distance, chunk.ordinal)
            if chunk.path not in best or key < best[chunk.path][:3]:
                best[chunk.path] = (*key, chunk.text)
        return {path: pick[3] for path, pick in best.items()}

    def entity_refs(self, paths: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
        """See ``CandidateStore.entity_refs``."""
        refs: dict[str, tuple[str, ...]] = {}
        for path in dict.fromkeys(paths):
            entities = self._t.entities.get(path, ())
            if entities:
                refs[path] = tuple(sorted(f"{e.type}{ENTITY_SEPARATOR}{e.name}" for e in entities))
        return refs

    def _superseded_by(self, path: str) -> str | None:
        row = self._t.files[path]
        names = {path, row.origin_path}
        sources = [
            src
            for (src, rel, dst), edge in self._t.edges.items()
            if rel == SUPERSEDES and not edge.derived and dst in names
        ]
        return min(sources) if sources else None


class MemoryArchiveLookup:
    """The :class:`memhtml.ports.archive_lookup.ArchiveLookup` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Read from ``tables``."""
        self._t = tables

    def scope_is_empty(self, scope: SearchScope) -> bool:
        """See ``ArchiveLookup.scope_is_empty``."""
        if not is_narrowing(scope):
            return False
        return not any(scope_admits(scope, self._t.scope_facts(p)) for p in self._t.files)

    def archived_in_scope(self, scope: SearchScope, limit: int) -> ArchivedLookup:
        """See ``ArchiveLookup.archived_in_scope``."""
        widened = attrs.evolve(scope, include_archived=True)
        matches = sorted(
            path
            for path, row in self._t.files.items()
            if row.archived and scope_admits(widened, self._t.scope_facts(path))
        )
        candidates = MemoryCandidateStore(self._t)
        return ArchivedLookup(
            count=len(matches),
            matches=tuple(
                ArchivedMatch(path=path, superseded_by=candidates._superseded_by(path))
                for path in matches[:limit]
            ),
        )


class MemoryLister:
    """The :class:`memhtml.ports.lister.Lister` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """List the rows of ``tables``."""
        self._t = tables

    def list_page(
        self, scope: SearchScope, *, para: str | None, after: str | None, limit: int
    ) -> ListPage:
        """See ``Lister.list_page``."""
        t = self._t
        paths = sorted(
            path
            for path, row in t.files.items()
            if scope_admits(scope, t.scope_facts(path))
            and (para is None or row.para == para)
            and (after is None or path > after)
        )
        page = paths[:limit]
        files = tuple(
            ListedMemory(
                path=path,
                title=t.files[path].title,
                memory_type=t.files[path].memory_type,
                gist=t.files[path].gist,
                workspace=t.files[path].workspace,
                para=t.files[path].para,
                confidence=t.files[path].confidence,
                importance=t.files[path].importance,
                archived=t.files[path].archived,
                updated_at=t.files[path].updated_at,
            )
            for path in page
        )
        more = len(paths) > limit and bool(files)
        return ListPage(files=files, next_cursor=files[-1].path if more else None)


class MemoryCensus:
    """The :class:`memhtml.ports.index_census.IndexCensus` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Count the rows of ``tables``."""
        self._t = tables

    def counts(self) -> IndexCounts:
        """See ``IndexCensus.counts``."""
        t = self._t
        return IndexCounts(
            files=len(t.files),
            active_files=sum(1 for row in t.files.values() if not row.archived),
            edges=len(t.edges),
            derived_edges=sum(1 for edge in t.edges.values() if edge.derived),
            tags=len({tag for tags in t.tags.values() for tag in tags}),
            entities=len({(e.type, e.name) for refs in t.entities.values() for e in refs}),
        )


class MemoryHealth:
    """The doctor's ``HealthProbe`` and ``OrphanPruner`` ports in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Probe ``tables``."""
        self._t = tables

    def dangling_links(self) -> tuple[DanglingLink, ...]:
        """See ``HealthProbe.dangling_links``."""
        t = self._t
        found = []
        for (src, rel, dst), edge in t.edges.items():
            if edge.derived or edge.edge_class == PROVENANCE_CLASS or dst in t.files:
                continue
            archived = [p for p, row in t.files.items() if row.archived and row.origin_path == dst]
            found.append(
                DanglingLink(
                    src_path=src,
                    rel=rel,
                    dst_path=dst,
                    rewrite_to=min(archived) if archived else None,
                )
            )
        return tuple(sorted(found, key=lambda d: (d.src_path, d.rel, d.dst_path)))

    def orphan_access_rows(self) -> tuple[str, ...]:
        """See ``HealthProbe.orphan_access_rows``."""
        return tuple(sorted(path for path in self._t.access if path not in self._t.files))

    def prune_orphan_access_rows(self) -> tuple[str, ...]:
        """See ``OrphanPruner.prune_orphan_access_rows``."""
        orphans = self.orphan_access_rows()
        with self._t.transaction("prune orphan access rows"):
            for path in orphans:
                del self._t.access[path]
        return orphans

    def inbox_depths(self) -> InboxDepths:
        """See ``HealthProbe.inbox_depths``."""
        rows = [
            row
            for path, row in self._t.files.items()
            if not row.archived and path.startswith(INBOX_PREFIX)
        ]
        tasks = sum(1 for row in rows if row.memory_type == "task")
        return InboxDepths(memories=len(rows) - tasks, tasks=tasks)

    def shared_frames(self) -> tuple[FrameClaim, ...]:
        """See ``HealthProbe.shared_frames``."""
        by_key: dict[str, list[FrameClaim]] = {}
        for path, row in self._t.files.items():
            if row.frame_key is None or row.archived or row.memory_type == "task":
                continue
            claim = FrameClaim(frame_key=row.frame_key, path=path, gist=row.gist)
            by_key.setdefault(row.frame_key, []).append(claim)
        shared = [c for claims in by_key.values() if len(claims) > 1 for c in claims]
        return tuple(sorted(shared, key=lambda c: (c.frame_key, c.path)))

    def active_contradictions(self) -> tuple[ContradictionLink, ...]:
        """See ``HealthProbe.active_contradictions``."""
        files = self._t.files
        found = [
            ContradictionLink(
                src_path=src, src_gist=files[src].gist, dst_path=dst, dst_gist=files[dst].gist
            )
            for (src, rel, dst) in self._t.edges
            if rel == "contradicts"
            and src in files
            and dst in files
            and not files[src].archived
            and not files[dst].archived
        ]
        return tuple(sorted(found, key=lambda c: (c.src_path, c.dst_path)))


class MemoryLinkGraph:
    """The :class:`memhtml.ports.link_graph.LinkGraph` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Read ``tables``' edges."""
        self._t = tables

    def links_touching(self, paths: Sequence[str]) -> tuple[StoredLink, ...]:
        """See ``LinkGraph.links_touching``."""
        wanted = set(paths)
        return tuple(
            sorted(
                StoredLink(
                    src=src, rel=rel, dst=dst, edge_class=edge.edge_class, derived=edge.derived
                )
                for (src, rel, dst), edge in self._t.edges.items()
                if src in wanted or dst in wanted
            )
        )
