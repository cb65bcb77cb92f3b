"""An in-memory index for the write path's unit tests: ``Indexer``, ``Recorder`` and
``AssistLookup`` in one.

``update`` projects HEAD's tree from a git port into a dictionary (path → content hash, type),
so the dedup lookup answers from what was committed, as the SQLite index does. Tests steer it
with plain attributes (``stale``, ``stored_model``, ``update_failures``) and assert on its state
(``updates``, ``links``, ``frame_lookups``, ``near_lookups``). Vectors are the ones the write
path hands ``update`` (the near-duplicate assist's), or put in ``vectors`` by a test; the
neighbours are scored with the float32 loop both real backends use. It passes the recorder
contract suite beside ``SqliteRecorder``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import attrs

from memhtml.adapters.system.clock import FixedClock
from memhtml.app.bootstrap import memory_codec
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.domain.chunking import chunk_id_for
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.frame_key import frame_key
from memhtml.domain.model import MemoryDoc
from memhtml.domain.near_duplicates import ranked_near
from memhtml.domain.paths import is_archived_path, is_indexable_path
from memhtml.domain.vectors import f32_cosine_distance
from memhtml.domain.vocabulary import TASK_TYPE
from memhtml.ports.assist_lookup import FrameMatch, NearMatch, NearQuery
from memhtml.ports.errors import EmbedModelMismatch, IndexStale
from memhtml.ports.git import GitPort
from memhtml.ports.git_writer import ChangeSet, FileWrite, GitWriter, RecoveryFinding
from memhtml.ports.indexer import (
    BackfillReport,
    IndexState,
    RebuildReport,
    UpdateReport,
    VectorCoverage,
)
from memhtml.ports.progress import NO_PROGRESS, ProgressSink
from memhtml.ports.recorder import SessionLink
from tests.fakes.git import FakeGit

FAKE_SPACE: Final = "fake-model@3"
_STAMP: Final = "2026-01-01T00:00:00Z"


@attrs.frozen(kw_only=True)
class FakeRow:
    """What the fake index knows about one file."""

    content_hash: str
    memory_type: str
    archived: bool
    gist: str = ""


class FakeIndex:
    """An index plane over a git port: projection, preflight refusals and session links."""

    def __init__(self, git: GitPort, parse: Callable[[bytes], MemoryDoc]) -> None:
        """Empty until the first ``update``; configured space ``FAKE_SPACE``."""
        self._git = git
        self._parse = parse
        self.rows: dict[str, FakeRow] = {}
        self.links: list[SessionLink] = []
        self.updates = 0
        self.stale = False
        self.stored_model = FAKE_SPACE
        # 1-based update call number -> the error that call raises.
        self.update_failures: dict[int, Exception] = {}
        self.head_sha: str | None = None
        # Raised by record_session_links when set.
        self.link_failure: Exception | None = None
        # The key sets active_frames_for was asked, one entry per call.
        self.frame_lookups: list[tuple[str, ...]] = []
        # Stored vectors by chunk id (space FAKE_SPACE), and the query count of each
        # active_nearest_for call.
        self.vectors: dict[str, bytes] = {}
        self.near_lookups: list[int] = []

    # --- Indexer ------------------------------------------------------------------------

    @property
    def embedder_bound(self) -> bool:
        """No embedder: a lexical-only fake."""
        return False

    def rebuild(
        self, *, embed: bool, force: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> RebuildReport:
        """Project HEAD from scratch; reports no progress."""
        self.rows = {}
        self._project()
        return RebuildReport(
            head_sha=self.head_sha,
            files_indexed=len(self.rows),
            chunks_indexed=0,
            edges_indexed=0,
            embeddings_preserved=0,
            embeddings_written=0,
        )

    def update(
        self,
        *,
        embed: bool,
        progress: ProgressSink = NO_PROGRESS,
        known: Mapping[bytes, MemoryDoc] | None = None,
        vectors: Mapping[str, bytes] | None = None,
        committed_only: bool = False,
    ) -> UpdateReport:
        """Refuse as the real indexer does, or fail as told, or project HEAD (no progress,
        and no working tree to skip, whatever ``committed_only`` says); files whose bytes
        ``known`` holds take that document instead of a parse; handed ``vectors`` are
        stored."""
        self.updates += 1
        failure = self.update_failures.get(self.updates)
        if failure is not None:
            raise failure
        if self.stale:
            raise IndexStale("a rebuild started and did not finish")
        if self.stored_model != FAKE_SPACE:
            raise EmbedModelMismatch(self.stored_model, FAKE_SPACE)
        before = self.head_sha
        self._project(known or {})
        self.vectors.update(vectors or {})
        return UpdateReport(head_sha=self.head_sha, unchanged=before == self.head_sha)

    def embed_missing(
        self, candidate_chunk_ids: Sequence[str] | None = None, *, limit: int | None = None
    ) -> int:
        """Nothing to embed."""
        return 0

    def backfill(
        self, *, dry_run: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> BackfillReport:
        """Nothing to embed."""
        return BackfillReport(
            head_sha=self.head_sha,
            chunks=0,
            embeddings=0,
            embeddings_written=0,
            embeddings_remaining=0,
        )

    def vector_coverage(self) -> VectorCoverage:
        """No chunks, full coverage."""
        return VectorCoverage(model=FAKE_SPACE, chunks=0, embeddings=0, coverage=1.0)

    def rebuild_in_progress(self) -> bool:
        """No other process rebuilds a fake."""
        return False

    def index_state(self) -> IndexState | None:
        """The watermark after the first update."""
        if self.updates == 0:
            return None
        return IndexState(
            head_sha=None if self.stale else self.head_sha,
            embed_model=self.stored_model,
            embed_dim=3,
            rebuilt_at=_STAMP,
            updated_at=_STAMP,
        )

    # --- Recorder -----------------------------------------------------------------------

    def active_path_for_hash(self, content_hash: str) -> str | None:
        """The first path, in path order, of an active non-task row with the hash."""
        found = sorted(
            path
            for path, row in self.rows.items()
            if row.content_hash == content_hash
            and not row.archived
            and row.memory_type != TASK_TYPE
        )
        return found[0] if found else None

    def record_session_links(self, links: Sequence[SessionLink]) -> None:
        """Append the links that are not exact repeats (or fail as told)."""
        if self.link_failure is not None:
            raise self.link_failure
        for link in links:
            if not any(_same_key(link, known) for known in self.links):
                self.links.append(link)

    def session_links(
        self, *, path: str | None = None, session_id: str | None = None
    ) -> tuple[SessionLink, ...]:
        """The filtered links in (at, path, session, kind) order."""
        chosen = [
            link
            for link in self.links
            if (path is None or link.path == path)
            and (session_id is None or link.session_id == session_id)
        ]
        return tuple(sorted(chosen, key=lambda k: (k.at, k.path, k.session_id, k.kind)))

    # --- AssistLookup ---------------------------------------------------------------------

    def active_frames_for(self, keys: Sequence[str]) -> Mapping[str, tuple[FrameMatch, ...]]:
        """Live non-task rows whose gist keys to one of ``keys``, by path; records the call."""
        self.frame_lookups.append(tuple(keys))
        found: dict[str, list[FrameMatch]] = {}
        for path, row in sorted(self.rows.items()):
            key = frame_key(row.gist)
            if (
                key is not None
                and key in keys
                and not row.archived
                and row.memory_type != TASK_TYPE
            ):
                found.setdefault(key, []).append(FrameMatch(path=path, gist=row.gist))
        return {key: tuple(matches) for key, matches in found.items()}

    def first_chunk_vectors(self, paths: Sequence[str], *, model: str) -> Mapping[str, bytes]:
        """The stored first-chunk vector of each listed row that has one."""
        found = {}
        for path in paths:
            row = self.rows.get(path)
            blob = None if row is None else self.vectors.get(chunk_id_for(row.content_hash, 0))
            if blob is not None and model == FAKE_SPACE:
                found[path] = blob
        return found

    def active_nearest_for(
        self,
        queries: Sequence[NearQuery],
        *,
        model: str,
        floor: float,
        limit: int,
        exclude_types: Sequence[str] = (),
    ) -> tuple[tuple[NearMatch, ...], ...]:
        """Live rows' first-chunk vectors scored against each query; records the call."""
        self.near_lookups.append(len(queries))
        live = self.first_chunk_vectors(
            [
                p
                for p, row in sorted(self.rows.items())
                if not row.archived and row.memory_type not in exclude_types
            ],
            model=model,
        )
        answers = []
        for query in queries:
            scored = []
            for path, blob in live.items():
                distance = f32_cosine_distance(blob, query.vector)
                if distance is not None:
                    gist = self.rows[path].gist
                    scored.append(NearMatch(path=path, gist=gist, similarity=1.0 - distance))
            own = () if query.own_path is None else (query.own_path,)
            answers.append(ranked_near(scored, floor=floor, limit=limit, excluded=own))
        return tuple(answers)

    # --- internals ----------------------------------------------------------------------

    def _project(self, known: Mapping[bytes, MemoryDoc] | None = None) -> None:
        self.head_sha = self._git.head()
        if self.head_sha is None:
            self.rows = {}
            return
        entries = [e for e in self._git.list_tree(self.head_sha) if is_indexable_path(e.path)]
        blobs = self._git.read_blobs([e.blob_sha for e in entries])
        rows: dict[str, FakeRow] = {}
        for entry in entries:
            data = blobs[entry.blob_sha]
            try:
                doc = (known or {}).get(data) or self._parse(data)
            except InvalidMemory:
                continue
            rows[entry.path] = FakeRow(
                content_hash=doc.content_hash,
                memory_type=doc.memory_type,
                archived=is_archived_path(entry.path),
                gist=doc.gist,
            )
        self.rows = rows


def _same_key(a: SessionLink, b: SessionLink) -> bool:
    return (a.path, a.session_id, a.kind, a.at) == (b.path, b.session_id, b.kind, b.at)


class RecordingWriter:
    """A ``GitWriter`` that keeps the change set and message of every commit that lands."""

    def __init__(self, inner: GitWriter) -> None:
        """Wrap ``inner``."""
        self._inner = inner
        self.landed: list[tuple[ChangeSet, str]] = []

    def init(self) -> bool:
        """See ``GitWriter.init``."""
        return self._inner.init()

    def commit(self, changes: ChangeSet, message: str, *, expected_head: str | None) -> str:
        """Delegate; record the commit once it has landed."""
        sha = self._inner.commit(changes, message, expected_head=expected_head)
        self.landed.append((changes, message))
        return sha

    def needs_recovery(self) -> bool:
        """See ``GitWriter.needs_recovery``."""
        return self._inner.needs_recovery()

    def inspect(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """See ``GitWriter.inspect``."""
        return self._inner.inspect(sweep=sweep)

    def recover(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """See ``GitWriter.recover``."""
        return self._inner.recover(sweep=sweep)


class RacingWriter:
    """A ``GitWriter`` that lets another writer land first, ``races`` times, then delegates.

    Each race commits a file of its own straight to ``git`` just before the caller's commit,
    so the caller's compare-and-swap fails with ``HeadMoved`` exactly as under a real race.
    """

    def __init__(self, git: FakeGit, races: int) -> None:
        """Wrap ``git``; the first ``races`` commits lose to a rival commit."""
        self._git = git
        self.races = races
        self.rival_paths: list[str] = []

    def init(self) -> bool:
        """See ``GitWriter.init``."""
        return self._git.init()

    def commit(self, changes: ChangeSet, message: str, *, expected_head: str | None) -> str:
        """Land a rival commit first while races remain, then try the caller's."""
        if self.races > 0:
            self.races -= 1
            path = f"areas/inbox/rival-{len(self.rival_paths)}.txt"
            rival = ChangeSet(writes=(FileWrite(path=path, data=b"rival"),))
            self._git.commit(rival, "rival", expected_head=self._git.head())
            self.rival_paths.append(path)
        return self._git.commit(changes, message, expected_head=expected_head)

    def needs_recovery(self) -> bool:
        """See ``GitWriter.needs_recovery``."""
        return self._git.needs_recovery()

    def inspect(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """See ``GitWriter.inspect``."""
        return self._git.inspect(sweep=sweep)

    def recover(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """See ``GitWriter.recover``."""
        return self._git.recover(sweep=sweep)


@attrs.define
class FakeStore:
    """A store over fakes: git, the index plane, a fixed clock and the pauses taken."""

    git: FakeGit
    index: FakeIndex
    clock: FixedClock
    pauses: list[float]
    deps: WriteDeps

    def snapshot(self) -> tuple[object, ...]:
        """HEAD, every committed blob and the working tree's status: equal means untouched."""
        head = self.git.head()
        tree = () if head is None else self.git.list_tree(head)
        return head, tree, self.git.status()

    def files(self) -> dict[str, bytes]:
        """Every file of HEAD's tree, by path."""
        head = self.git.head()
        if head is None:
            return {}
        entries = self.git.list_tree(head)
        blobs = self.git.read_blobs([e.blob_sha for e in entries])
        return {e.path: blobs[e.blob_sha] for e in entries}

    @property
    def commits(self) -> list[tuple[ChangeSet, str]]:
        """Change set and message of each commit the use cases landed, oldest first."""
        writer = self.deps.writer
        assert isinstance(writer, RecordingWriter)
        return writer.landed


START: Final = dt.datetime(2026, 9, 14, 7, 2, 11, tzinfo=dt.UTC)


def fake_store(*, writer: GitWriter | None = None, git: FakeGit | None = None) -> FakeStore:
    """A fresh store over fakes; ``writer`` replaces the git writer (a ``RacingWriter``)."""
    git = git if git is not None else FakeGit()
    codec = memory_codec()
    index = FakeIndex(git, codec.parse)
    clock = FixedClock(START)
    pauses: list[float] = []
    deps = WriteDeps(
        git=git,
        writer=RecordingWriter(writer if writer is not None else git),
        recorder=index,
        indexer=index,
        clock=clock,
        codec=codec,
        assists=index,
        embed=False,
        pause=pauses.append,
    )
    return FakeStore(git=git, index=index, clock=clock, pauses=pauses, deps=deps)
