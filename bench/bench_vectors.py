"""Vector-arm storage benchmark (issue 4 item 6, docs/decisions.md §8).

Times the exact vector arm as retrieval will run it inside SQL — the nearest chunk per path by
``vec_distance_cosine`` over the scope-filtered rows, ``ORDER BY dist, path LIMIT 40`` — against
a ``vec0`` KNN pre-filter whose survivors are re-scored exactly, and against an in-process numpy
matrix when numpy is importable. Each faster path also reports how often its top 40 equals the
exact one, because KNN runs before the scope filter and may miss in-scope rows.

Run: ``.venv/bin/python -m bench.bench_vectors [--sizes 10000,100000] [--queries 9]``.
"""

from __future__ import annotations

import argparse
import importlib
import math
import random
import statistics
import tempfile
import time
from array import array
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Final

import sqlean

from bench.machine import machine_line
from memhtml.adapters.sqlite.connection import Database, SqlValue, Write
from memhtml.adapters.sqlite.schema import FILE_COLUMNS, WRITE_BATCH_SIZE
from memhtml.adapters.sqlite.vectors import pack_f32

DIM: Final = 384
ARM_LIMIT: Final = 40
CHUNKS_PER_FILE: Final = 3
WORKSPACES: Final = 20
MODEL: Final = "bench-random@384"
NOW: Final = "2026-01-01T00:00:00Z"
KNN_KS: Final = (200, 1000, 4096)  # 4096 is sqlite-vec's ceiling for k
MMAP_BYTES: Final = 1 << 30

# Scope fragments over alias f, as the retrieval arms will splice them.
SCOPES: Final[dict[str, str]] = {
    "default": "f.archived = 0 AND f.memory_type <> 'task'",
    "workspace": "f.archived = 0 AND f.memory_type <> 'task' AND f.workspace = 'ws-08'",
}

EXACT_SQL: Final = """
SELECT c.path, MIN(vec_distance_cosine(e.vec, ?1)) AS dist
FROM files f JOIN chunks c ON c.path = f.path JOIN embeddings e ON e.chunk_id = c.chunk_id
WHERE e.model = ?2 AND {scope}
GROUP BY c.path ORDER BY dist, c.path LIMIT {limit}
"""

# The same arm with the model filter kept off the index (`+`): one vector space fills the table,
# so walking embeddings in table order beats an index walk plus a seek per row.
EXACT_SCAN_SQL: Final = EXACT_SQL.replace("WHERE e.model = ?2", "WHERE +e.model = ?2")

# The arithmetic floor: every vector scored, no join, no scope, no grouping.
DISTANCE_ONLY_SQL: Final = (
    "SELECT chunk_id FROM embeddings ORDER BY vec_distance_cosine(vec, ?1) LIMIT {limit}"
)

KNN_SQL: Final = """
WITH knn AS (SELECT chunk_id FROM vec_chunks WHERE embedding MATCH ?1 AND k = {k})
SELECT c.path, MIN(vec_distance_cosine(e.vec, ?1)) AS dist
FROM knn JOIN embeddings e ON e.chunk_id = knn.chunk_id
JOIN chunks c ON c.chunk_id = e.chunk_id JOIN files f ON f.path = c.path
WHERE e.model = ?2 AND {scope}
GROUP BY c.path ORDER BY dist, c.path LIMIT {limit}
"""


def unit_vector(rng: random.Random) -> list[float]:
    """A random unit vector: uniform components in [-1, 1), normalised.

    Not uniform on the sphere, which timing and the exact-agreement check do not need; drawing
    Gaussians in pure Python would take longer than the whole measurement at 100k chunks.
    """
    components = array("h", rng.randbytes(2 * DIM))
    norm = math.sqrt(math.fsum(float(x) * x for x in components)) or 1.0
    return [x / norm for x in components]


def file_row(index: int) -> tuple[SqlValue, ...]:
    """A files row: a quarter archived, a tenth tasks, projects spread over 20 workspaces."""
    para = ("projects", "areas", "resources", "archive")[index % 4]
    workspace = f"ws-{index % WORKSPACES:02d}" if para == "projects" else None
    values: dict[str, SqlValue] = dict.fromkeys(FILE_COLUMNS)
    values.update(
        path=f"{para}/{workspace or 'x'}/m{index:06d}.html",
        blob_sha=f"{index:040x}",
        content_hash=f"sha256:{index:064x}",
        memory_type="task" if index % 10 == 3 else "semantic",
        title=f"memory {index}",
        body_text="body",
        gist="",
        fts_text="",
        disclosure_text="",
        para=para,
        workspace=workspace,
        confidence=1.0,
        importance=5,
        archived=int(para == "archive"),
        word_count=1,
        created_at=NOW,
        updated_at=NOW,
        reprieves=0,
        needs_revision=0,
        author="agent",
        indexed_at=NOW,
        task_status="todo" if index % 10 == 3 else None,
        pinned=0,
    )
    return tuple(values[c] for c in FILE_COLUMNS)


def build(db: Database, chunks: int, rng: random.Random) -> float:
    """Fill files, chunks, embeddings and the vec0 table with ``chunks`` random unit vectors.

    Returns:
        Seconds spent writing (vector generation excluded).
    """
    db.script(f"CREATE VIRTUAL TABLE vec_chunks USING vec0(chunk_id TEXT PRIMARY KEY, "
              f"embedding float[{DIM}] distance_metric=cosine)")  # fmt: skip
    insert_file = (
        f"INSERT INTO files ({', '.join(FILE_COLUMNS)}) "
        f"VALUES ({', '.join('?' for _ in FILE_COLUMNS)})"
    )
    pending: list[Write] = []
    insert_s = 0.0
    for chunk in range(chunks):
        index, ordinal = divmod(chunk, CHUNKS_PER_FILE)
        row = file_row(index)
        if ordinal == 0:
            pending.append((insert_file, row))
        chunk_id = f"{chunk:064x}"
        blob = pack_f32(unit_vector(rng))
        pending.extend(
            [
                (
                    "INSERT INTO chunks VALUES (?, ?, ?, ?, 'text', 4)",
                    (chunk_id, row[0], row[2], ordinal),
                ),
                (
                    "INSERT INTO embeddings VALUES (?, ?, ?, ?, ?)",
                    (chunk_id, MODEL, DIM, blob, NOW),
                ),
                ("INSERT INTO vec_chunks(chunk_id, embedding) VALUES (?, ?)", (chunk_id, blob)),
            ]
        )
        if len(pending) >= WRITE_BATCH_SIZE:
            insert_s += timed_write(db, pending)
            pending = []
    return insert_s + timed_write(db, pending)


def timed_write(db: Database, writes: Sequence[Write]) -> float:
    """Seconds one write_all took."""
    started = time.perf_counter()
    db.write_all(writes)
    return time.perf_counter() - started


def paths_of(rows: Sequence[Sequence[object]]) -> list[str]:
    """The path column of ranked rows."""
    return [str(row[0]) for row in rows]


def exact_top(db: Database, probe: bytes, scope: str, sql: str = EXACT_SQL) -> list[str]:
    """The exact arm: every in-scope vector scored in SQL."""
    return paths_of(db.all(sql.format(scope=scope, limit=ARM_LIMIT), (probe, MODEL)))


def fresh_connection_top(
    path: Path, probe: bytes, scope: str, mmap_bytes: int = 0
) -> tuple[float, list[str]]:
    """The exact arm as a CLI process meets it: the first query of a new connection.

    ``mmap_bytes`` > 0 reads the file through ``PRAGMA mmap_size`` instead of the page cache.
    """
    with Database.open(path) as db:
        if mmap_bytes:
            db.all(f"PRAGMA mmap_size={mmap_bytes}")
        return timed(partial(exact_top, db, probe, scope, EXACT_SCAN_SQL))


def distance_only(db: Database, probe: bytes) -> list[str]:
    """Every vector scored with nothing around it: the cost of the arithmetic and the reads."""
    return paths_of(db.all(DISTANCE_ONLY_SQL.format(limit=ARM_LIMIT), (probe,)))


def knn_top(db: Database, probe: bytes, scope: str, k: int) -> list[str]:
    """vec0 KNN first (blind to scope), then the scope filter and the exact re-score."""
    sql = KNN_SQL.format(scope=scope, limit=ARM_LIMIT, k=k)
    return paths_of(db.all(sql, (probe, MODEL)))


def timed(action: Callable[[], list[str]]) -> tuple[float, list[str]]:
    """Seconds one call took, and its result."""
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def median_ms(runs: Sequence[tuple[float, list[str]]]) -> float:
    """Median duration of timed runs, in milliseconds."""
    return statistics.median(t for t, _ in runs) * 1000


def agreement(runs: Sequence[tuple[float, list[str]]], truth: Sequence[list[str]]) -> int:
    """How many runs returned exactly the exact arm's top list."""
    return sum(result == expected for (_, result), expected in zip(runs, truth, strict=True))


class NumpyArm:
    """The same arm over an in-process float32 matrix (rows grouped by path)."""

    def __init__(self, np: Any, db: Database) -> None:
        """Load every vector of MODEL with its path's scope columns."""
        self.np = np
        rows = db.all(
            "SELECT c.path, f.archived, f.memory_type = 'task', f.workspace, e.vec "
            "FROM embeddings e JOIN chunks c ON c.chunk_id = e.chunk_id "
            "JOIN files f ON f.path = c.path WHERE e.model = ? ORDER BY c.path",
            (MODEL,),
        )
        self.paths = [str(r[0]) for r in rows]
        self.archived = np.array([bool(r[1]) for r in rows])
        self.task = np.array([bool(r[2]) for r in rows])
        self.workspace = np.array([r[3] or "" for r in rows])
        blob = b"".join(r[4] for r in rows if isinstance(r[4], bytes))
        matrix = np.frombuffer(blob, dtype="<f4").reshape(len(rows), DIM)
        self.matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        starts = [i for i, p in enumerate(self.paths) if i == 0 or p != self.paths[i - 1]]
        self.starts = np.array(starts)
        self.start_paths = [self.paths[i] for i in starts]

    def top(self, query: list[float], scope: str) -> list[str]:
        """Top paths by nearest in-scope chunk, ties by path."""
        np = self.np
        q = np.asarray(query, dtype="<f4")
        dist = 1.0 - self.matrix @ (q / np.linalg.norm(q))
        keep = ~self.archived & ~self.task
        if scope == "workspace":
            keep &= self.workspace == "ws-08"
        per_path = np.minimum.reduceat(np.where(keep, dist, np.inf), self.starts)
        finite = np.flatnonzero(np.isfinite(per_path))
        count = min(ARM_LIMIT, len(finite))
        best = finite[np.argpartition(per_path[finite], count - 1)[:count]] if count else finite
        ranked = sorted(best, key=lambda i: (float(per_path[i]), self.start_paths[i]))
        return [self.start_paths[i] for i in ranked]


def run(chunks: int, queries: int, seed: int) -> list[str]:
    """Build one corpus and return the markdown rows measured on it."""
    rng = random.Random(seed)
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, Database.open(Path(tmp) / "index.db") as db:
        index_path = Path(tmp) / "index.db"
        build_s = build(db, chunks, rng)
        probes = [pack_f32(unit_vector(rng)) for _ in range(queries + 1)]
        vectors = [list(memoryview(p).cast("f")) for p in probes]
        try:
            np: Any = importlib.import_module("numpy")
        except ImportError:
            np = None
        numpy_arm: NumpyArm | None = None
        load_s = 0.0
        if np is not None:
            started = time.perf_counter()
            numpy_arm = NumpyArm(np, db)
            load_s = time.perf_counter() - started
        for scope_name, scope in SCOPES.items():
            exact_top(db, probes[0], scope)  # warm the page cache before timing
            exact_runs = [timed(partial(exact_top, db, p, scope)) for p in probes[1:]]
            truth = [result for _, result in exact_runs]
            row = f"| {chunks:,} | {scope_name} |"
            lines.append(f"{row} exact SQL, planner's plan | {median_ms(exact_runs):.1f} | exact |")
            scan_runs = [
                timed(partial(exact_top, db, p, scope, EXACT_SCAN_SQL)) for p in probes[1:]
            ]
            lines.append(
                f"{row} exact SQL, table scan (+e.model) | {median_ms(scan_runs):.1f} "
                f"| {agreement(scan_runs, truth)}/{queries} |"
            )
            fresh_runs = [fresh_connection_top(index_path, p, scope) for p in probes[1:]]
            lines.append(
                f"{row} exact SQL, table scan, fresh connection | {median_ms(fresh_runs):.1f} "
                f"| {agreement(fresh_runs, truth)}/{queries} |"
            )
            mmap_runs = [fresh_connection_top(index_path, p, scope, MMAP_BYTES) for p in probes[1:]]
            lines.append(
                f"{row} exact SQL, table scan, fresh connection, mmap "
                f"| {median_ms(mmap_runs):.1f} | {agreement(mmap_runs, truth)}/{queries} |"
            )
            for k in KNN_KS:
                runs = [timed(partial(knn_top, db, p, scope, k)) for p in probes[1:]]
                lines.append(
                    f"{row} vec0 KNN k={k} + exact re-score | {median_ms(runs):.1f} "
                    f"| {agreement(runs, truth)}/{queries} |"
                )
            if numpy_arm is None:
                lines.append(f"{row} numpy in-process | skipped: numpy not installed | — |")
                continue
            runs = [timed(partial(numpy_arm.top, v, scope_name)) for v in vectors[1:]]
            lines.append(
                f"{row} numpy in-process (load {load_s:.2f} s) | {median_ms(runs):.1f} "
                f"| {agreement(runs, truth)}/{queries} |"
            )
        floor = [timed(partial(distance_only, db, p)) for p in probes[1:]]
        lines.append(f"| {chunks:,} | none | distance only, no join | {median_ms(floor):.1f} | — |")
        what = "writes: files, chunks, embeddings + vec0"
        lines.append(f"| {chunks:,} | build | {what} | {build_s * 1000:.0f} | — |")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    """Print the machine line and one markdown table of medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,100000", help="chunk counts, comma-separated")
    parser.add_argument("--queries", type=int, default=9, help="timed queries per row")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    vec_version = Database.open(":memory:").get("SELECT vec_version()")
    print(machine_line(), f"· SQLite {sqlean.sqlite_version} · sqlite-vec {vec_version}")
    print(f"{DIM}-dim random unit vectors, {CHUNKS_PER_FILE} chunks per file, top {ARM_LIMIT}, "
          f"median of {args.queries} queries")  # fmt: skip
    print("\n| chunks | scope | method | median ms | same top 40 as exact |")
    print("|---:|---|---|---:|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        for line in run(size, args.queries, args.seed):
            print(line, flush=True)


if __name__ == "__main__":
    main()
