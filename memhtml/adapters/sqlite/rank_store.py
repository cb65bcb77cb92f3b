"""``SqliteRankStore``: the rank store port over the one fused statement (``retrieval_sql``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from memhtml.adapters.sqlite.arm_sql import ArmHoles
from memhtml.adapters.sqlite.candidate_store import text_or_none
from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.adapters.sqlite.fused_search import bound_params, run_fusion
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan, fts_probe_sql
from memhtml.adapters.sqlite.scope_sql import assemble_scope
from memhtml.domain.fts_query import LexicalQuery
from memhtml.domain.fusion import Fused
from memhtml.domain.scope import SearchScope
from memhtml.domain.vectors import pack_f32
from memhtml.ports.rank_store import FusionQuery, VectorCensus

if TYPE_CHECKING:
    from memhtml.adapters.sqlite.vector_preselect import VectorPreselector

# One statement: the chunk count, the vectors in the space, and the space itself, which falls
# back to the stored watermark when none is configured.
_COVERAGE_SQL: Final = (
    "SELECT (SELECT count(*) FROM chunks), "
    "(SELECT count(*) FROM embeddings WHERE model = space.model), space.model FROM "
    "(SELECT coalesce(?1, (SELECT embed_model FROM index_state WHERE id = 1)) AS model) space"
)

# What this connection changed, and whether another connection committed to the index file,
# since the last census: while neither moved, no row of chunks, embeddings or index_state did
# (every change to them is an INSERT, UPDATE or DELETE on some connection), so the census
# stands. Counting 10,000 chunks and their vectors took ~0.9 ms of every search.
_CHANGES_SQL: Final = "SELECT total_changes(), data_version FROM main.pragma_data_version"

# Every embedded chunk of the listed paths in one space, in chunk order.
_CHUNK_VECTORS_SQL: Final = (
    "SELECT c.path, e.vec FROM chunks c JOIN embeddings e ON e.chunk_id = c.chunk_id "
    "WHERE e.model = ?1 AND c.path IN (SELECT value FROM json_each(?2)) "
    "ORDER BY c.path, c.ordinal"
)


class SqliteRankStore:
    """The :class:`memhtml.ports.rank_store.RankStore` port over one SQLite index."""

    def __init__(self, db: Database) -> None:
        """Answer from ``db``; salience runs when its state plane is attached."""
        self._db = db
        # Built on the first vector search: numpy is imported only by a process that embeds.
        self._vectors: VectorPreselector | None = None
        self._census: tuple[tuple[SqlValue, ...], VectorCensus] | None = None

    @property
    def has_state(self) -> bool:
        """See ``RankStore.has_state``."""
        return self._db.has_state

    def vector_census(self, model: str | None) -> VectorCensus:
        """See ``RankStore.vector_census``."""
        changes = self._db.get(_CHANGES_SQL, operation="read vector coverage")
        key = (model, *(changes or ()))
        held = self._census
        if held is not None and held[0] == key:
            return held[1]
        row = self._db.get(_COVERAGE_SQL, (model,), operation="read vector coverage")
        if row is None:  # pragma: no cover - a scalar SELECT always yields a row
            return VectorCensus(chunks=0, embedded=0, model=model)
        census = VectorCensus(
            chunks=_int(row[0]), embedded=_int(row[1]), model=text_or_none(row[2])
        )
        self._census = (key, census)
        return census

    def holds_every_term(self, lexical: LexicalQuery, scope: SearchScope) -> bool:
        """See ``RankStore.holds_every_term``."""
        assembled = assemble_scope(scope)
        row = self._db.get(
            fts_probe_sql(assembled),
            bound_params((lexical.match_text,), assembled, used=1),
            operation="probe full-text terms",
        )
        return row is not None and bool(row[0])

    def fused_ranks(self, query: FusionQuery) -> tuple[Fused, ...]:
        """See ``RankStore.fused_ranks``."""
        plan = FusionPlan(
            arms=query.arms,
            weights=query.weights,
            rrf_k=query.rrf_k,
            gate_priors=query.gate_priors,
            embed_model=query.embed_model,
            now=query.now,
            evidence_first=query.evidence_first,
            vector_max_distance=query.vector_max_distance,
            prior_bound=query.prior_bound,
        )
        scope = assemble_scope(query.scope)
        vector = None if query.vector is None else pack_f32(query.vector)
        ranked = None
        if vector is not None and any(arm.name == "vector" for arm in query.arms):
            holes = ArmHoles(
                file_filter=scope.file_filter,
                gate="",
                embed_model=query.embed_model,
                now=query.now,
                vector_max_distance=query.vector_max_distance,
            )
            if self._vectors is None:
                from memhtml.adapters.sqlite.vector_preselect import VectorPreselector

                self._vectors = VectorPreselector(self._db)
            ranked = self._vectors.ranked(holes, scope, vector=vector, arm_limit=query.arm_limit)
        return run_fusion(
            self._db,
            plan,
            scope,
            match=None if query.lexical is None else query.lexical.match_text,
            vector=vector,
            limit=query.limit,
            arm_limit=query.arm_limit,
            entities=query.entities,
            vector_ranked=ranked,
            fts_ranked=query.fts_ranked,
            windows=tuple(window.as_text() for window in query.windows),
        )

    def entity_keys_named(self, surfaces: Sequence[str]) -> Mapping[str, frozenset[str]]:
        """See ``RankStore.entity_keys_named``."""
        if not surfaces:
            return {}
        rows = self._db.all(
            "SELECT DISTINCT surface, entity_key FROM entity_terms "
            "WHERE surface IN (SELECT value FROM json_each(?1))",
            (json.dumps(list(surfaces)),),
            operation="match entity names",
        )
        found: dict[str, set[str]] = {}
        for surface, key in rows:
            found.setdefault(str(surface), set()).add(str(key))
        return {surface: frozenset(keys) for surface, keys in found.items()}

    def chunk_vectors(self, paths: Sequence[str], model: str) -> Mapping[str, tuple[bytes, ...]]:
        """See ``RankStore.chunk_vectors``."""
        if not paths:
            return {}
        rows = self._db.all(
            _CHUNK_VECTORS_SQL, (model, json.dumps(list(paths))), operation="read chunk vectors"
        )
        found: dict[str, list[bytes]] = {}
        for path, blob in rows:
            if isinstance(blob, bytes):
                found.setdefault(str(path), []).append(blob)
        return {path: tuple(blobs) for path, blobs in found.items()}


def _int(value: SqlValue) -> int:
    return value if isinstance(value, int) else 0
