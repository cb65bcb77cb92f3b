"""Parsing many memory files, serially or on a process pool, never failing on one bad file.

Parsing is the cost of a rebuild (html5lib runs a few milliseconds per 2 KB file) and it is
pure, so it may run on other cores; projection and every write stay in the calling process,
which owns the one SQLite connection.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Final

import attrs

from memhtml.domain.errors import InvalidMemory
from memhtml.domain.model import MemoryDoc
from memhtml.ports.indexer import SkippedFile
from memhtml.ports.memory_parser import MemoryParser

# A parser that raises anything but InvalidMemory has a bug, but that bug must not make every
# read fail: `update` runs before each read (DECISIONS 20), so the file is skipped and named.
PARSE_ERROR: Final = "parse-error"
# Batches per worker: enough that one slow batch does not leave the other core idle at the end,
# few enough that pickling overhead stays small.
BATCHES_PER_WORKER: Final = 4
# "fork" starts a worker in milliseconds with html5lib already imported; "spawn" and
# "forkserver" re-import it in every worker, which costs more than a 1,000-file tree saves.
POOL_START_METHOD: Final = "fork"


@attrs.frozen(kw_only=True)
class SourceFile:
    """One file's bytes and where they came from."""

    path: str
    blob_sha: str
    data: bytes


@attrs.frozen(kw_only=True)
class ParsedFile:
    """A file that parsed: its path, blob and document."""

    path: str
    blob_sha: str
    doc: MemoryDoc


@attrs.frozen(kw_only=True)
class ParseSettings:
    """How to spread parsing over processes.

    Attributes:
        workers: Processes to parse on; 1 parses in this process.
        pool_min_files: Below this many files the pool's start-up costs more than it saves,
            so parsing stays serial whatever ``workers`` says.
    """

    workers: int = 1
    pool_min_files: int = 400

    def __attrs_post_init__(self) -> None:
        """Refuse settings that cannot run."""
        if self.workers < 1 or self.pool_min_files < 0:
            raise ValueError("workers must be at least 1 and pool_min_files not negative")


def parse_files(
    files: Sequence[SourceFile], parser: MemoryParser, settings: ParseSettings
) -> list[ParsedFile | SkippedFile]:
    """Parse every file, in input order; a file that fails becomes a ``SkippedFile``.

    The pool runs only when it can help: more than one worker, at least ``pool_min_files``
    files, and a parser that pickles (a module-level function does; a lambda does not).
    """
    datas = [file.data for file in files]
    if _use_pool(len(datas), parser, settings):
        outcomes = _parse_on_pool(datas, parser, settings.workers)
    else:
        outcomes = parse_batch(parser, datas)
    return [_result(file, outcome) for file, outcome in zip(files, outcomes, strict=True)]


def parse_batch(parser: MemoryParser, datas: Sequence[bytes]) -> list[MemoryDoc | tuple[str, ...]]:
    """Each document, or the violation codes that refused it. Module-level so it pickles."""
    return [_parse_one(parser, data) for data in datas]


def _parse_one(parser: MemoryParser, data: bytes) -> MemoryDoc | tuple[str, ...]:
    try:
        return parser(data)
    except InvalidMemory as refused:
        return tuple(dict.fromkeys(v.code for v in refused.violations)) or (PARSE_ERROR,)
    except Exception:
        return (PARSE_ERROR,)


def _use_pool(count: int, parser: MemoryParser, settings: ParseSettings) -> bool:
    if settings.workers < 2 or count < max(settings.pool_min_files, 2):
        return False
    try:
        pickle.dumps(parser)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


def _parse_on_pool(
    datas: list[bytes], parser: MemoryParser, workers: int
) -> list[MemoryDoc | tuple[str, ...]]:
    size = max(1, -(-len(datas) // (workers * BATCHES_PER_WORKER)))
    batches = [datas[start : start + size] for start in range(0, len(datas), size)]
    context = multiprocessing.get_context(POOL_START_METHOD)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        parsed = pool.map(parse_batch, [parser] * len(batches), batches)
        return [outcome for batch in parsed for outcome in batch]


def _result(file: SourceFile, outcome: MemoryDoc | tuple[str, ...]) -> ParsedFile | SkippedFile:
    if isinstance(outcome, MemoryDoc):
        return ParsedFile(path=file.path, blob_sha=file.blob_sha, doc=outcome)
    return SkippedFile(path=file.path, reasons=outcome)
