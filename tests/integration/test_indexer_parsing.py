"""Parsing many files for the indexer: serial, on a fork pool, and the fallbacks between them;
all at once (``parse_files``) or parsed and projected batch by batch in order
(``projected_in_order``, the rebuild's)."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from memhtml.adapters.html import parse_memory
from memhtml.app.indexing.parse_pool import (
    PARSE_ERROR,
    ParseSettings,
    SourceFile,
    parse_files,
)
from memhtml.app.indexing.parse_stream import AHEAD_PER_WORKER, ProjectedFile, projected_in_order
from memhtml.domain.content_claims import ParsedFile
from memhtml.domain.model import MemoryDoc
from memhtml.domain.projection import project_file
from memhtml.ports.indexer import SkippedFile
from tests.contract.test_indexer_rebuild import memory_bytes

POOL = ParseSettings(workers=2, pool_min_files=0)
INDEXED_AT = "2026-12-03T08:00:00Z"


def corpus() -> list[SourceFile]:
    """Six valid memories and one file that is not a memory."""
    files = [
        SourceFile(path=f"areas/m{i}.html", blob_sha=f"{i:040x}", data=memory_bytes(f"M{i} holds."))
        for i in range(6)
    ]
    return [*files, SourceFile(path="areas/z.html", blob_sha="f" * 40, data=b"<p>nothing</p>")]


def dies_on_the_fourth(data: bytes) -> MemoryDoc:
    """A parser whose worker dies on one file half-way through the tree."""
    if multiprocessing.parent_process() is not None and b"M3 holds." in data:
        os._exit(3)
    return parse_memory(data)


def leaves_a_mark(data: bytes) -> MemoryDoc:
    """A parser that drops one file per document into ``$MARKS_DIR``: parsing seen from here."""
    marks = Path(os.environ["MARKS_DIR"])
    (marks / f"{os.getpid()}-{len(list(marks.iterdir()))}-{hash(data)}").touch()
    return parse_memory(data)


def dies_in_a_worker(data: bytes) -> MemoryDoc:
    """A parser whose worker process dies; in the parent it parses normally."""
    if multiprocessing.parent_process() is not None:
        os._exit(3)
    return parse_memory(data)


def crashes(data: bytes) -> MemoryDoc:
    """A parser with a bug: it raises something other than InvalidMemory."""
    raise KeyError("bug")


def serial_outcomes() -> list[ParsedFile | SkippedFile]:
    """The reference answer: everything parsed in this process."""
    return parse_files(corpus(), parse_memory, ParseSettings(workers=1))


def test_pool_and_serial_agree_in_order_and_content() -> None:
    """The fork pool returns the same documents and skips, in input order."""
    assert serial_outcomes() == parse_files(corpus(), parse_memory, POOL)


def test_a_broken_pool_falls_back_to_serial_parsing() -> None:
    """A worker that dies breaks the pool; the files are then parsed in this process."""
    assert serial_outcomes() == parse_files(corpus(), dies_in_a_worker, POOL)


def test_an_unpicklable_parser_parses_serially() -> None:
    """A lambda cannot travel to a worker, so the pool is skipped, not failed."""
    outcomes = parse_files(corpus(), lambda data: parse_memory(data), POOL)
    assert serial_outcomes() == outcomes


def test_a_parser_bug_is_a_skip_not_a_crash() -> None:
    """Any other exception from the parser skips the file with the parse-error code."""
    outcomes = parse_files(corpus()[:2], crashes, ParseSettings(workers=1))
    expected = [
        SkippedFile(path=f"areas/m{i}.html", reasons=(PARSE_ERROR,), details=("",))
        for i in range(2)
    ]
    assert expected == outcomes


def streamed(parser: object, settings: ParseSettings, batch_size: int) -> list[list[object]]:
    """Every batch ``projected_in_order`` yields, each projected file checked against
    ``project_file`` and then given as the parsed file ``parse_files`` would return."""
    batches: list[list[object]] = []
    with projected_in_order(
        corpus(),
        parser,  # type: ignore[arg-type]
        settings,
        batch_size=batch_size,
        indexed_at=INDEXED_AT,
    ) as stream:
        for batch in stream:
            batches.append([_parsed(outcome) for outcome in batch])
    return batches


def _parsed(outcome: object) -> object:
    if not isinstance(outcome, ProjectedFile):
        return outcome
    file = outcome.file
    expected = project_file(
        path=file.path, blob_sha=file.blob_sha, doc=file.doc, indexed_at=INDEXED_AT
    )
    assert expected == outcome.projection
    return file


@pytest.mark.parametrize("batch_size", [1, 2, 3, 7, 200])
@pytest.mark.parametrize("settings", [ParseSettings(workers=1), POOL], ids=["serial", "pool"])
def test_the_stream_yields_the_serial_outcomes_in_batches_in_order(
    settings: ParseSettings, batch_size: int
) -> None:
    """Batch by batch, serial or on the pool: the batches are cut at ``batch_size``, every
    projection is ``project_file``'s, and together they are exactly what parsing everything at
    once gives."""
    batches = streamed(parse_memory, settings, batch_size)
    expected = serial_outcomes()
    assert [len(expected[i : i + batch_size]) for i in range(0, 7, batch_size)] == [
        len(batch) for batch in batches
    ]
    assert expected == [outcome for batch in batches for outcome in batch]


@pytest.mark.parametrize("parser", [dies_in_a_worker, dies_on_the_fourth])
def test_a_pool_that_breaks_mid_stream_leaves_the_rest_to_this_process(parser: object) -> None:
    """A worker that dies at the first batch or half-way: the batches the pool did not
    return are parsed here, and the stream is what a serial parse gives."""
    batches = streamed(parser, POOL, 2)
    assert serial_outcomes() == [outcome for batch in batches for outcome in batch]


def test_the_pool_runs_only_a_few_batches_ahead_of_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the caller is still on its first batch, the workers parse at most the batches
    handed out ahead of it; the rest wait until the caller asks, then all arrive."""
    monkeypatch.setenv("MARKS_DIR", str(tmp_path))
    files = [
        SourceFile(path=f"areas/m{i:02d}.html", blob_sha=f"{i:040x}", data=memory_bytes(f"M{i}."))
        for i in range(40)
    ]
    ahead = POOL.workers * (1 + AHEAD_PER_WORKER)
    with projected_in_order(
        files, leaves_a_mark, POOL, batch_size=1, indexed_at=INDEXED_AT
    ) as batches:
        next(batches)
        time.sleep(0.5)  # ample for two workers to parse all 40 files if they were handed them
        assert len(list(tmp_path.iterdir())) <= ahead + 1
        assert 39 == sum(1 for _ in batches)
    assert 40 == len(list(tmp_path.iterdir()))


def test_leaving_the_stream_early_stops_the_workers() -> None:
    """A rebuild whose write fails leaves the stream after its first batch: the pool's
    workers are gone when the context is."""
    before = set(multiprocessing.active_children())
    with projected_in_order(
        corpus(), parse_memory, POOL, batch_size=1, indexed_at=INDEXED_AT
    ) as batches:
        next(batches)
        workers = set(multiprocessing.active_children()) - before
        assert 2 == len(workers)
    assert all(not worker.is_alive() for worker in workers)


@pytest.mark.parametrize(("workers", "pool_min_files"), [(0, 0), (1, -1)])
def test_settings_that_cannot_run_are_refused(workers: int, pool_min_files: int) -> None:
    """Zero workers or a negative threshold is a configuration error."""
    with pytest.raises(ValueError, match="workers"):
        ParseSettings(workers=workers, pool_min_files=pool_min_files)
