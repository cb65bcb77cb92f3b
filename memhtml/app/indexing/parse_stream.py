"""A whole tree parsed and projected in order, batch by batch, while the caller writes what
came back.

A rebuild used to parse every file before writing its first row, so its two halves could not
share the machine: parsing kept both cores busy, then projecting and writing kept one. Here
the first batches go to the pool on entering, so the workers fork before the caller opens its
first transaction; a worker parses and projects (both pure), and the batches come back in
input order, so the caller writes batch k while the pool works on the batches after it. Each
batch the caller takes hands the pool the next one, at most ``AHEAD_PER_WORKER`` per worker
queued beyond it, so a store of any size keeps a bounded number of projections in memory.
Measured at 10,000 files on 2 cores (BENCHMARKS.md, fourteenth session), medians of an
interleaved run: parsing everything first, 11.2 s; this, 9.7 s (a throwaway that streamed but
projected in the caller, 9.1 s against 9.6 s in another run: the caller was the bottleneck).
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future
from typing import Final

import attrs

from memhtml.app.indexing.parse_pool import (
    POOL_START_METHOD,
    ParseSettings,
    Refusal,
    SourceFile,
    die_with_parent,
    parse_batch,
    pool_helps,
    skipped_file,
)
from memhtml.domain.content_claims import ParsedFile
from memhtml.domain.model import MemoryDoc
from memhtml.domain.projection import FileProjection, project_file
from memhtml.ports.indexer import SkippedFile
from memhtml.ports.memory_parser import MemoryParser


@attrs.frozen(kw_only=True)
class ProjectedFile:
    """A file that parsed, and the rows that would make the index hold it."""

    file: ParsedFile
    projection: FileProjection


AHEAD_PER_WORKER: Final = 3
"""Batches handed to the pool per worker beyond the one the caller is reading: enough that
no worker waits for the caller to ask, few enough that the caller, the slower side of a
rebuild, is not handed the whole tree's projections at once. A 10,000-file rebuild's peak
resident memory: 212 MB with every batch handed out up front, 116 MB with this bound, 161 MB
when the tree was parsed first."""

Outcomes = list[ProjectedFile | SkippedFile]
Worked = ProjectedFile | Refusal
"""What a worker returns per file: the file projected, or the violations that refused it."""


@contextlib.contextmanager
def projected_in_order(
    files: Sequence[SourceFile],
    parser: MemoryParser,
    settings: ParseSettings,
    *,
    batch_size: int,
    indexed_at: str,
) -> Iterator[Iterator[Outcomes]]:
    """Yield an iterator over ``files`` parsed and projected (at ``indexed_at``),
    ``batch_size`` at a time, in input order.

    The pool runs when ``parse_files`` would run one; its workers are started on entering, and
    leaving stops them (batches not yet started are cancelled, so a failed write does not wait
    for the rest of the parse). A pool that breaks, at the start or half-way, leaves the
    batches it had not returned to be parsed here: a rebuild never fails for want of a core.
    A file that fails to parse is a ``SkippedFile``, as in ``parse_files``.
    """
    batches = [files[start : start + batch_size] for start in range(0, len(files), batch_size)]
    if not pool_helps(len(files), parser, settings):
        yield (_here(parser, batch, indexed_at) for batch in batches)
        return
    # Imported here, as in parse_pool: a one-file update never starts a pool.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(
        max_workers=settings.workers,
        mp_context=multiprocessing.get_context(POOL_START_METHOD),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )
    try:
        feed = _Feed(pool, parser, batches, indexed_at)
        # The first submission forks every worker, before the caller opens a transaction.
        for _ in range(settings.workers * (1 + AHEAD_PER_WORKER)):
            feed.submit_next()
        yield feed.outcomes()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _Feed:
    """The batches handed to the pool, in order (``None`` for one the pool could not take),
    and their outcomes read back in the same order."""

    def __init__(
        self,
        pool: Executor,
        parser: MemoryParser,
        batches: Sequence[Sequence[SourceFile]],
        indexed_at: str,
    ) -> None:
        self._pool = pool
        self._parser = parser
        self._batches = batches
        self._indexed_at = indexed_at
        self._submitted = 0
        self._pending: deque[Future[list[Worked]] | None] = deque()

    def submit_next(self) -> None:
        """Hand the next batch to the pool, if any is left."""
        from concurrent.futures.process import BrokenProcessPool

        if self._submitted == len(self._batches):
            return
        batch = self._batches[self._submitted]
        self._submitted += 1
        try:
            future = self._pool.submit(parse_and_project, self._parser, batch, self._indexed_at)
        except (BrokenProcessPool, OSError):  # a worker died, or a fork was refused
            self._pending.append(None)
            return
        self._pending.append(future)

    def outcomes(self) -> Iterator[Outcomes]:
        """Each batch's outcomes, in order; taking one hands the pool the next batch."""
        from concurrent.futures.process import BrokenProcessPool

        for batch in self._batches:
            future = self._pending.popleft()
            self.submit_next()
            if future is None:
                yield _here(self._parser, batch, self._indexed_at)
                continue
            try:
                worked = future.result()
            except (BrokenProcessPool, OSError):
                # A worker killed (out of memory, say): this batch and every later one, whose
                # futures fail the same way, are parsed here.
                yield _here(self._parser, batch, self._indexed_at)
                continue
            yield _outcomes(batch, worked)


def parse_and_project(
    parser: MemoryParser, files: Sequence[SourceFile], indexed_at: str
) -> list[Worked]:
    """Each file's document and projection, or the violations that refused it. Module-level
    so it pickles; runs in a pool worker or here."""
    outcomes = parse_batch(parser, [file.data for file in files])
    return [
        _projected(file, outcome, indexed_at) if isinstance(outcome, MemoryDoc) else outcome
        for file, outcome in zip(files, outcomes, strict=True)
    ]


def _projected(file: SourceFile, doc: MemoryDoc, indexed_at: str) -> ProjectedFile:
    projection = project_file(
        path=file.path, blob_sha=file.blob_sha, doc=doc, indexed_at=indexed_at
    )
    parsed = ParsedFile(path=file.path, blob_sha=file.blob_sha, doc=doc)
    return ProjectedFile(file=parsed, projection=projection)


def _here(parser: MemoryParser, batch: Sequence[SourceFile], indexed_at: str) -> Outcomes:
    return _outcomes(batch, parse_and_project(parser, batch, indexed_at))


def _outcomes(batch: Sequence[SourceFile], worked: Sequence[Worked]) -> Outcomes:
    return [
        item if isinstance(item, ProjectedFile) else skipped_file(file, item)
        for file, item in zip(batch, worked, strict=True)
    ]
