"""``Store.trace_scan`` over real files and SQLite: a file growing (torn lines included) scanned
at several sizes ends where one scan of the final file ends; rewritten, shorter, torn and
binary files; the retrieval modules never name a trace table."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import attrs
import pytest

import memhtml
from memhtml.adapters.sqlite.schema import TRACE_TABLES
from memhtml.app.store import Store, init_store_at
from memhtml.app.use_cases.trace_scan import TraceScanReport
from memhtml.domain.trace_sessions import SessionQuery

FIXTURES: Final = Path(__file__).resolve().parents[1] / "fixtures" / "traces"
CLAUDE: Final = FIXTURES / "claude/-home-ada-code-shop/7f3c2a9e-5b1d-4c8e-9f00-1a2b3c4d5e6f.jsonl"
CODEX: Final = next((FIXTURES / "codex").rglob("*.jsonl"))
PACKAGE: Final = Path(memhtml.__file__).resolve().parent
ENV: Final = {"MEMHTML_EMBED": "off"}


@pytest.fixture
def open_store(tmp_path: Path) -> Iterator[Callable[[str], Store]]:
    """Opens (initializing) a store under ``tmp_path`` by name; all closed afterwards."""
    opened: list[Store] = []

    def make(name: str) -> Store:
        root = tmp_path / name
        init_store_at(root, environ=ENV)
        store = memhtml.open(root, environ=ENV, embedder=False)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


def state(store: Store, folder: Path) -> tuple[object, ...]:
    """What the trace port answers about ``folder``'s files, minus write and file instants."""
    traces = store.services.storage.traces
    sessions = tuple(
        attrs.evolve(r, indexed_at="", file_mtime="", file_path=Path(r.file_path).name)
        for r in traces.sessions(SessionQuery(limit=100))
    )
    names = sorted(p.name for p in folder.iterdir())
    paths = [str(folder / name) for name in names]
    marks = traces.file_marks(paths)
    return (
        traces.counts(),
        sessions,
        [(m.watermark.size, m.watermark.byte_off, m.session_id) for m in marks.values()],
        [traces.stored_extract(p) for p in paths],
        [traces.prompts(r.session_id) for r in sessions],
    )


def _touch(path: Path, step: int) -> None:
    """A distinct modification time per step (real clocks can repeat a millisecond)."""
    os.utime(path, ns=(1_757_000_000_000_000_000 + step * 10**9,) * 2)


@pytest.mark.parametrize("source", [CLAUDE, CODEX], ids=["claude", "codex"])
def test_a_growing_file_scanned_at_several_sizes_ends_like_one_scan(
    open_store: Callable[[str], Store], tmp_path: Path, source: Path
) -> None:
    """Cut anywhere (mid-line too), appended and scanned piece by piece: the tail path stores
    exactly what one scan of the final file stores."""
    data = source.read_bytes()
    cuts = [0, 1, len(data) // 3, len(data) // 3 + 7, len(data) // 2, len(data) - 5, len(data)]
    growing_dir, whole_dir = tmp_path / "growing", tmp_path / "whole"
    growing_dir.mkdir()
    whole_dir.mkdir()
    growing_file = growing_dir / source.name
    growing = open_store("a")
    actions: list[tuple[int, int, int]] = []
    for step, (a, b) in enumerate(itertools.pairwise(cuts)):
        with growing_file.open("ab") as handle:
            handle.write(data[a:b])
        _touch(growing_file, step)
        report: TraceScanReport = growing.trace_scan([str(growing_dir)])
        actions.append((report.rescanned, report.tailed, report.skipped))
    (whole_dir / source.name).write_bytes(data)
    whole = open_store("b")
    whole.trace_scan([str(whole_dir)])
    assert state(whole, whole_dir) == state(growing, growing_dir)
    assert sum(tailed for _, tailed, _ in actions) >= 3


def test_a_torn_last_line_waits_and_a_shorter_rewrite_rescans(
    open_store: Callable[[str], Store], tmp_path: Path
) -> None:
    """Torn: pending, then read whole once finished. Shorter rewrite: rescanned from zero."""
    folder = tmp_path / "t"
    folder.mkdir()
    path = folder / "s.jsonl"
    data = CLAUDE.read_bytes()
    lines = data.splitlines(keepends=True)
    head = b"".join(lines[:4])
    path.write_bytes(head + lines[4][:25])
    _touch(path, 1)
    store = open_store("s")
    torn = store.trace_scan([str(folder)])
    path.write_bytes(head + lines[4])
    _touch(path, 2)
    finished = store.trace_scan([str(folder)])
    path.write_bytes(b"".join(lines[:3]))
    _touch(path, 3)
    shorter = store.trace_scan([str(folder)])
    assert (25, 1, 0) == (torn.pending_bytes, finished.tailed, finished.pending_bytes)
    assert finished.records.assistant == 1
    session = store.trace_show("7f3c2a9e-5b1d-4c8e-9f00-1a2b3c4d5e6f").session
    assert (1, 0) == (shorter.rescanned, None if session is None else session.prompt_count)


def test_binary_garbage_is_counted_and_skipped_next_time(
    open_store: Callable[[str], Store], tmp_path: Path
) -> None:
    """Random bytes: malformed lines, no session, a watermark; the next scan skips the file."""
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "junk.jsonl").write_bytes(os.urandom(200_000))
    store = open_store("g")
    first = store.trace_scan([str(folder)])
    second = store.trace_scan([str(folder)])
    assert (1, 0, 1) == (first.no_session, first.sessions, second.skipped)
    assert first.records.malformed + first.records.oversized == first.records.lines


def test_no_retrieval_module_names_a_trace_table() -> None:
    """The SQL and in-memory modules that answer retrieval never mention the trace plane."""
    retrieval_modules = [
        "adapters/sqlite/retrieval_sql.py",
        "adapters/sqlite/fused_search.py",
        "adapters/sqlite/candidate_sql.py",
        "adapters/sqlite/arm_sql.py",
        "adapters/sqlite/graph_sql.py",
        "adapters/sqlite/rank_store.py",
        "adapters/sqlite/candidate_store.py",
        "adapters/sqlite/archive_lookup.py",
        "adapters/sqlite/scope_sql.py",
        "adapters/sqlite/access_store.py",
        "adapters/sqlite/reinforce_sql.py",
        "adapters/memory/rank_store.py",
        "adapters/memory/reads.py",
        *(str(p.relative_to(PACKAGE)) for p in (PACKAGE / "app" / "retrieval").glob("*.py")),
    ]
    names = [*TRACE_TABLES, "traces_fts", "trace_"]
    pattern = re.compile("|".join(re.escape(name) for name in names))
    mentions = {
        module: pattern.findall((PACKAGE / module).read_text(encoding="utf-8"))
        for module in retrieval_modules
    }
    assert {module: [] for module in retrieval_modules} == mentions
