"""Parsing many memory files, serially or on a process pool, never failing on one bad file.

Parsing is the cost of a rebuild (html5lib runs a few milliseconds per 2 KB file) and it is
pure, so it may run on other cores; projection and every write stay in the calling process,
which owns the storage connection. Documents the caller already holds (the write path's own
renders) are passed in and never parsed again.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from memhtml.domain.content_claims import ParsedFile
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.model import MemoryDoc
from memhtml.ports.indexer import SkippedFile
from memhtml.ports.memory_parser import MemoryParser
from memhtml.ports.progress import NO_PROGRESS, PHASE_PARSING, ProgressSink

# A parser that raises anything but InvalidMemory has a bug, but that bug must not make every
# read fail: `update` runs before each read (docs/decisions.md §20), so the file is skipped
# and named.
PARSE_ERROR: Final = "parse-error"
# Batches per worker: enough that one slow batch does not leave the other core idle at the end,
# few enough that pickling overhead stays small.
BATCHES_PER_WORKER: Final = 4
# "fork" starts a worker in milliseconds with html5lib already imported; "forkserver" and
# "spawn" re-import it and the main module per worker (measured: +0.45 s on 100 files, and a
# 1,000-file tree parsed in 1.80 s against 1.28 s with fork). Where fork is not the safe
# default (macOS, Windows), parsing stays serial rather than pay that or risk a fork there.
POOL_START_METHOD: Final = "fork"
POOL_PLATFORM: Final = "linux"
# Measured on 2 idle cores (bench/bench_index.py, BENCHMARKS.md): the fork pool parses 100
# files in 0.15 s against 0.24 s serially and 1,000 in 1.28 s against 2.14 s; it breaks even
# near 20 files, and loses under heavy contention from other processes. 200 keeps a margin.
DEFAULT_WORKERS: Final = 2
DEFAULT_POOL_MIN_FILES: Final = 200
# Workers must not outlive the process that forked them: a forked worker holds a copy of
# every descriptor its parent had (the pool's own pipes included, so it never reads EOF) and
# of the databases' files, and a killed rebuild used to leave both workers running for good.
# The kernel kills a worker whose parent dies (Linux's PR_SET_PDEATHSIG); a thread in each
# worker that polls its parent pid is the fallback where that call is missing.
_PR_SET_PDEATHSIG: Final = 1
PARENT_POLL_S: Final = 0.5


@attrs.frozen(kw_only=True)
class SourceFile:
    """One file's bytes and where they came from."""

    path: str
    blob_sha: str
    data: bytes


@attrs.frozen(kw_only=True)
class ParseSettings:
    """How to spread parsing over processes.

    Attributes:
        workers: Processes to parse on; 1 parses in this process.
        pool_min_files: Below this many files parsing stays serial whatever ``workers`` says:
            the pool's start-up and the pickling of results cost more than it saves.
    """

    workers: int = DEFAULT_WORKERS
    pool_min_files: int = DEFAULT_POOL_MIN_FILES

    def __attrs_post_init__(self) -> None:
        """Refuse settings that cannot run."""
        if self.workers < 1 or self.pool_min_files < 0:
            raise ValueError("workers must be at least 1 and pool_min_files not negative")


def parse_files(
    files: Sequence[SourceFile],
    parser: MemoryParser,
    settings: ParseSettings,
    progress: ProgressSink = NO_PROGRESS,
    *,
    known: Mapping[bytes, MemoryDoc] | None = None,
) -> list[ParsedFile | SkippedFile]:
    """Parse every file, in input order; a file that fails becomes a ``SkippedFile``.

    The pool runs only when it can help: more than one worker, at least ``pool_min_files``
    files, Linux (where fork is the safe default), and a parser that pickles (a module-level
    function does; a lambda does not). A pool that breaks falls back to parsing here.
    ``progress`` hears of the parsing phase: per file here, per batch from the pool.
    Files whose exact bytes ``known`` holds take that document and are never parsed.
    """
    held = _known(files, known or {})
    if held:
        unknown = [file for i, file in enumerate(files) if i not in held]
        rest = iter(parse_files(unknown, parser, settings, progress))
        return [held[i] if i in held else next(rest) for i in range(len(files))]
    datas = [file.data for file in files]
    if not datas:
        return []
    outcomes: list[MemoryDoc | Refusal] | None = None
    progress.start(PHASE_PARSING, len(datas))
    if pool_helps(len(datas), parser, settings):
        # Imported here: a one-file update (every write) never starts a pool.
        from concurrent.futures.process import BrokenProcessPool

        try:
            outcomes = _parse_on_pool(datas, parser, settings.workers, progress)
        except (BrokenProcessPool, OSError):
            # A worker killed (out of memory) or a fork refused: parse here instead, because
            # a rebuild that fails for want of a second core helps nobody.
            outcomes = None
            progress.start(PHASE_PARSING, len(datas))
    if outcomes is None:
        outcomes = []
        for data in datas:
            outcomes.append(_parse_one(parser, data))
            progress.advance()
    progress.finish()
    return [file_outcome(file, outcome) for file, outcome in zip(files, outcomes, strict=True)]


def _known(files: Sequence[SourceFile], known: Mapping[bytes, MemoryDoc]) -> dict[int, ParsedFile]:
    """The files whose documents ``known`` holds, by their position in ``files``."""
    if not known:
        return {}
    found = ((i, file, known.get(file.data)) for i, file in enumerate(files))
    return {
        i: ParsedFile(path=file.path, blob_sha=file.blob_sha, doc=doc)
        for i, file, doc in found
        if doc is not None
    }


Refusal = tuple[tuple[str, str], ...]
"""The ``(code, detail)`` of each violation that refused a file, first detail per code."""


def parse_batch(parser: MemoryParser, datas: Sequence[bytes]) -> list[MemoryDoc | Refusal]:
    """Each document, or the violations that refused it. Module-level so it pickles."""
    return [_parse_one(parser, data) for data in datas]


def _parse_one(parser: MemoryParser, data: bytes) -> MemoryDoc | Refusal:
    try:
        return parser(data)
    except InvalidMemory as refused:
        first: dict[str, str] = {}
        for violation in refused.violations:
            first.setdefault(violation.code, violation.detail)
        return tuple(first.items()) or ((PARSE_ERROR, ""),)
    except Exception:
        return ((PARSE_ERROR, ""),)


def pool_helps(count: int, parser: MemoryParser, settings: ParseSettings) -> bool:
    """Whether parsing ``count`` files on a process pool can pay: see ``parse_files``."""
    if settings.workers < 2 or count < max(settings.pool_min_files, 2):
        return False
    if not sys.platform.startswith(POOL_PLATFORM):
        return False
    try:
        pickle.dumps(parser)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


def die_with_parent(parent: int) -> None:
    """Pool worker initializer: end this worker as soon as ``parent`` is gone.

    Args:
        parent: The pid of the process that made the pool (passed in, because by the time
            this runs the parent may already have died and the worker been re-parented).
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watcher below still ends the worker
    if os.getppid() != parent:
        os._exit(1)  # the parent died before the call above could take effect
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(1)


def _parse_on_pool(
    datas: list[bytes], parser: MemoryParser, workers: int, progress: ProgressSink
) -> list[MemoryDoc | Refusal]:
    size = max(1, -(-len(datas) // (workers * BATCHES_PER_WORKER)))
    batches = [datas[start : start + size] for start in range(0, len(datas), size)]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context(POOL_START_METHOD)
    outcomes: list[MemoryDoc | Refusal] = []
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    ) as pool:
        # `map` yields in submission order as batches complete, so the bar moves during the
        # parse rather than jumping at its end.
        for batch in pool.map(parse_batch, [parser] * len(batches), batches):
            outcomes.extend(batch)
            progress.advance(len(batch))
    return outcomes


def file_outcome(file: SourceFile, outcome: MemoryDoc | Refusal) -> ParsedFile | SkippedFile:
    """``file`` parsed, or skipped with the codes and details that refused it."""
    if isinstance(outcome, MemoryDoc):
        return ParsedFile(path=file.path, blob_sha=file.blob_sha, doc=outcome)
    return skipped_file(file, outcome)


def skipped_file(file: SourceFile, outcome: Refusal) -> SkippedFile:
    """``file`` skipped with the codes and details that refused it."""
    return SkippedFile(
        path=file.path,
        reasons=tuple(code for code, _ in outcome),
        details=tuple(detail for _, detail in outcome),
    )
