"""Fakes for the read side: retrieval, lister, health probe, state plane, a backfilling indexer.

Each keeps plain state a test steers and asserts on (``reinforced``, ``searches``…); none
mocks a call sequence.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from memhtml.domain.errors import NotFound
from memhtml.domain.reinforce import ReinforceResult, Signal
from memhtml.domain.scope import SearchScope
from memhtml.domain.sidecar import parse_sidecar, render_sidecar
from memhtml.domain.sync_sidecar import move_access_rows
from memhtml.ports.health import ContradictionLink, DanglingLink, FrameClaim, InboxDepths
from memhtml.ports.index_census import IndexCounts
from memhtml.ports.indexer import BackfillReport
from memhtml.ports.lister import ListedMemory, ListPage
from memhtml.ports.progress import NO_PROGRESS, ProgressSink
from memhtml.ports.retrieval import (
    ArchivedLookup,
    RecallRequest,
    RecallResult,
    SearchRequest,
    SearchResult,
)
from memhtml.ports.state_plane import StateImport
from tests.fakes.write_plane import FakeIndex


class FakeRetrieval:
    """Retrieval over a ``FakeIndex``: empty results, reinforcement recorded per call."""

    def __init__(self, index: FakeIndex) -> None:
        """Known paths are the index's rows at the time of each call."""
        self._index = index
        self.searches: list[SearchRequest] = []
        self.recalls: list[RecallRequest] = []
        self.reinforced: list[tuple[tuple[str, ...], Signal]] = []

    def search(self, request: SearchRequest) -> SearchResult:
        """No hits; the request is kept."""
        self.searches.append(request)
        return SearchResult(
            hits=(),
            vector_coverage=1.0,
            arms=("fts",),
            degraded=True,
            entity_scope=request.scope.entity,
            scope_empty=False,
            archived_matches=0,
            archived=(),
        )

    def recall(self, request: RecallRequest) -> RecallResult:
        """Not used by these tests' assertions beyond being called."""
        from memhtml.domain.disclosure import DisclosureFold

        self.recalls.append(request)
        fold = DisclosureFold(disclosed=(), index_lines=(), spent_chars=0, truncated=False)
        return RecallResult(
            arcs=fold,
            memories=fold,
            spent_chars=0,
            truncated=False,
            degraded=True,
            vector_coverage=1.0,
            arms=("fts",),
        )

    def reinforce(self, paths: Sequence[str], signal: Signal) -> ReinforceResult:
        """Refuse the whole call on an unknown path; otherwise bump every path."""
        missing = [p for p in paths if p not in self._index.rows]
        if missing:
            raise NotFound(f"no memory at: {', '.join(missing)}")
        self.reinforced.append((tuple(paths), signal))
        return ReinforceResult(bumped=tuple(paths), cooled_down=())

    def archived_in_scope(self, scope: SearchScope, limit: int) -> ArchivedLookup:
        """Nothing archived."""
        return ArchivedLookup(count=0, matches=())


class FakeLister:
    """Keyset pages over a fixed list of rows; the scope's type and archived rules only."""

    def __init__(self, rows: Sequence[ListedMemory]) -> None:
        """List ``rows``."""
        self.rows = sorted(rows, key=lambda r: r.path)
        self.calls: list[tuple[SearchScope, str | None, str | None, int]] = []

    def list_page(
        self, scope: SearchScope, *, para: str | None, after: str | None, limit: int
    ) -> ListPage:
        """The rows after ``after`` that the scope's type/archive rules and ``para`` admit."""
        self.calls.append((scope, para, after, limit))
        admitted = [
            r
            for r in self.rows
            if (after is None or r.path > after)
            and (para is None or r.para == para)
            and (scope.include_archived or not r.archived)
            and (
                r.memory_type in scope.memory_types
                if scope.memory_types
                else r.memory_type != "task"
            )
        ]
        page = tuple(admitted[:limit])
        more = len(admitted) > limit
        return ListPage(files=page, next_cursor=page[-1].path if more and page else None)


@attrs.define
class FakeProbe:
    """A health probe answering what the test put in it."""

    dangling: tuple[DanglingLink, ...] = ()
    orphans: tuple[str, ...] = ()
    inbox: InboxDepths = attrs.Factory(lambda: InboxDepths(memories=0, tasks=0))
    frames: tuple[FrameClaim, ...] = ()
    contradictions: tuple[ContradictionLink, ...] = ()

    def dangling_links(self) -> tuple[DanglingLink, ...]:
        """The configured dangling links."""
        return self.dangling

    def orphan_access_rows(self) -> tuple[str, ...]:
        """The configured orphans."""
        return self.orphans

    def inbox_depths(self) -> InboxDepths:
        """The configured depths."""
        return self.inbox

    def shared_frames(self) -> tuple[FrameClaim, ...]:
        """The configured claims on shared keys."""
        return self.frames

    def active_contradictions(self) -> tuple[ContradictionLink, ...]:
        """The configured contradictions."""
        return self.contradictions


@attrs.define
class FakeCensus:
    """An index census answering fixed counts."""

    answer: IndexCounts

    def counts(self) -> IndexCounts:
        """The configured counts."""
        return self.answer


@attrs.define
class FakeStatePlane:
    """A state plane holding its sidecar text; import keeps what it was given."""

    text: str = ""
    imported: list[str] = attrs.Factory(list)

    def export_access(self) -> str:
        """The configured text."""
        return self.text

    def import_access(self, sidecar: str) -> StateImport:
        """Count the parseable rows and torn lines, as the SQLite plane does."""
        self.imported.append(sidecar)
        parsed = parse_sidecar(sidecar)
        return StateImport(merged=len(parsed.rows), skipped=parsed.skipped)

    def move_access(self, moves: Sequence[tuple[str, str]]) -> int:
        """Move the configured text's rows by the domain's rule; the moves whose source held one."""
        table = {row.path: row for row in parse_sidecar(self.text).rows}
        count = 0
        for source, target in moves:
            if source != target and source in table:
                table = move_access_rows(table, [(source, target)])
                count += 1
        self.text = render_sidecar(table[path] for path in sorted(table))
        return count


class BackfillIndex(FakeIndex):
    """A ``FakeIndex`` whose ``backfill`` answers a configured report."""

    report: BackfillReport
    bound: bool = True

    @property
    def embedder_bound(self) -> bool:
        """As configured."""
        return self.bound

    def backfill(
        self, *, dry_run: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> BackfillReport:
        """The configured report."""
        return self.report
