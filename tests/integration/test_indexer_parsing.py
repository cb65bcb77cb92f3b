"""Parsing many files for the indexer: serial, on a fork pool, and the fallbacks between them."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from memhtml.adapters.html import parse_memory
from memhtml.app.indexing.parse_pool import (
    PARSE_ERROR,
    ParseSettings,
    SourceFile,
    parse_files,
)
from memhtml.domain.content_claims import ParsedFile
from memhtml.domain.model import MemoryDoc
from memhtml.ports.indexer import SkippedFile
from tests.contract.test_indexer_rebuild import memory_bytes

POOL = ParseSettings(workers=2, pool_min_files=0)


def corpus() -> list[SourceFile]:
    """Six valid memories and one file that is not a memory."""
    files = [
        SourceFile(path=f"areas/m{i}.html", blob_sha=f"{i:040x}", data=memory_bytes(f"M{i} holds."))
        for i in range(6)
    ]
    return [*files, SourceFile(path="areas/z.html", blob_sha="f" * 40, data=b"<p>nothing</p>")]


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


@pytest.mark.parametrize(("workers", "pool_min_files"), [(0, 0), (1, -1)])
def test_settings_that_cannot_run_are_refused(workers: int, pool_min_files: int) -> None:
    """Zero workers or a negative threshold is a configuration error."""
    with pytest.raises(ValueError, match="workers"):
        ParseSettings(workers=workers, pool_min_files=pool_min_files)
