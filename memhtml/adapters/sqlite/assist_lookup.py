"""``SqliteAssistLookup``: the write-time assists' questions over ``index.db``, one statement per
batch each."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.ports.assist_lookup import FrameMatch, NearMatch, NearQuery
from memhtml.ports.errors import StorageFailure

KEYS_PER_STATEMENT: Final = 500
"""Keys or paths bound per ``IN (…)``; a batch of up to this many memories is one statement."""
QUERIES_PER_STATEMENT: Final = 1000
"""Query vectors per nearest-neighbour statement (three values bound each)."""

# The predicate of files_frame_key_active (0001), so SQLite answers from that partial index.
_FRAMES_SQL: Final = (
    "SELECT frame_key, path, gist FROM files "
    "WHERE archived = 0 AND memory_type <> 'task' AND frame_key IN ({marks}) "
    "ORDER BY frame_key, path"
)
# The first chunk of a file's content, whichever path owns the shared chunk row
# (chunks_hash_ord: one row per content hash and ordinal).
_FIRST_VECTOR_JOIN: Final = (
    "JOIN chunks c ON c.content_hash = f.content_hash AND c.ordinal = 0 "
    "JOIN embeddings e ON e.chunk_id = c.chunk_id AND e.model = ?"
)
_VECTORS_SQL: Final = (
    f"SELECT f.path, e.vec FROM files f {_FIRST_VECTOR_JOIN} WHERE f.path IN ({{marks}})"
)
# The live first-chunk vectors are the outer loop, so each blob is read once for every query.
_NEAREST_SQL: Final = (
    "WITH q(i, v, own) AS (VALUES {rows}), "
    "live AS (SELECT f.path, f.gist, e.vec FROM files f "
    f"{_FIRST_VECTOR_JOIN} "
    "WHERE f.archived = 0 AND f.memory_type NOT IN ({excluded})), "
    "scored AS (SELECT q.i, live.path, live.gist, 1.0 - vec_distance_cosine(live.vec, q.v) AS sim "
    "FROM live CROSS JOIN q WHERE live.path IS NOT q.own), "
    "ranked AS (SELECT i, path, gist, sim, "
    "row_number() OVER (PARTITION BY i ORDER BY sim DESC, path) AS r FROM scored WHERE sim >= ?) "
    "SELECT i, path, gist, sim FROM ranked WHERE r <= ? ORDER BY i, r"
)


class SqliteAssistLookup:
    """The :class:`memhtml.ports.assist_lookup.AssistLookup` port over one index."""

    def __init__(self, db: Database) -> None:
        """Ask ``db``."""
        self._db = db

    def active_frames_for(self, keys: Sequence[str]) -> Mapping[str, tuple[FrameMatch, ...]]:
        """See ``AssistLookup.active_frames_for``."""
        found: dict[str, list[FrameMatch]] = {}
        for part in _slices(list(dict.fromkeys(keys)), KEYS_PER_STATEMENT):
            rows = self._db.all(
                _FRAMES_SQL.format(marks=_marks(len(part))), part, operation="find frame claims"
            )
            for key, path, gist in rows:
                found.setdefault(str(key), []).append(FrameMatch(path=str(path), gist=str(gist)))
        return {key: tuple(matches) for key, matches in found.items()}

    def first_chunk_vectors(self, paths: Sequence[str], *, model: str) -> Mapping[str, bytes]:
        """See ``AssistLookup.first_chunk_vectors``."""
        vectors: dict[str, bytes] = {}
        for part in _slices(list(dict.fromkeys(paths)), KEYS_PER_STATEMENT):
            rows = self._db.all(
                _VECTORS_SQL.format(marks=_marks(len(part))),
                (model, *part),
                operation="read first-chunk vectors",
            )
            for path, vec in rows:
                vectors[str(path)] = _blob(vec)
        return vectors

    def active_nearest_for(
        self,
        queries: Sequence[NearQuery],
        *,
        model: str,
        floor: float,
        limit: int,
        exclude_types: Sequence[str] = (),
    ) -> tuple[tuple[NearMatch, ...], ...]:
        """See ``AssistLookup.active_nearest_for``."""
        found: list[list[NearMatch]] = [[] for _ in queries]
        if limit < 1:
            return tuple(() for _ in queries)
        excluded = tuple(dict.fromkeys(exclude_types)) or ("",)
        for start in range(0, len(queries), QUERIES_PER_STATEMENT):
            part = queries[start : start + QUERIES_PER_STATEMENT]
            params: list[SqlValue] = []
            for offset, query in enumerate(part):
                params.extend((start + offset, query.vector, query.own_path))
            params.append(model)
            params.extend(excluded)
            params.extend((floor, limit))
            sql = _NEAREST_SQL.format(
                rows=", ".join("(?, ?, ?)" for _ in part), excluded=_marks(len(excluded))
            )
            for i, path, gist, sim in self._db.all(sql, params, operation="find near memories"):
                if not isinstance(i, int) or not isinstance(sim, float):
                    raise StorageFailure("find near memories")
                found[i].append(NearMatch(path=str(path), gist=str(gist), similarity=sim))
        return tuple(tuple(matches) for matches in found)


def _slices(values: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _marks(count: int) -> str:
    return ", ".join("?" for _ in range(count))


def _blob(value: SqlValue) -> bytes:
    if isinstance(value, bytes):
        return value
    raise StorageFailure("read first-chunk vectors")
