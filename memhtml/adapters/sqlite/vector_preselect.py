"""Warm vector search: the space's chunk vectors held in memory, re-scored exactly in SQLite.

The vector arm is exact: every in-scope file, by its nearest chunk's cosine distance as
sqlite-vec computes it, ties by path. Scanning every vector inside the statement costs a
distance call per chunk per search, most of a warm search at 10k memories. A process that
searches more than once (the MCP server, an evaluation, a library caller) instead keeps the
unit vectors in one matrix, scores all of them with one product, and hands SQLite only the
nearest few chunk ids to re-score with the statement's own distance, scope and bound.

Why the answer stays exact: every chunk left out is at least ``threshold`` away by the matrix
(the nearest one left out), so at least ``threshold − MARGIN`` away by sqlite-vec (float32
rounding differs by far less than ``MARGIN``). When every file the re-scoring keeps is nearer
than that, and either it kept a full arm or the bound (``--vector-floor``) already excludes
everything left out, no chunk left out could have entered or reordered the list. Otherwise
the preselection widens (×4) twice at most, then gives way to the scan; so does one that would
cover every vector.

A process loads the matrix on its second vector search (:data:`HOLD_FROM_SEARCH`), so a CLI
command, which searches once, scans as before and never imports numpy (~0.1 s of its start).
The matrix is reloaded whenever ``embedding_generation`` (a counter every change to
``embeddings`` moves, with an epoch drawn per index file; migration 0007) differs from the
pair it was loaded at.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import attrs

from memhtml.adapters.sqlite.arm_sql import (
    FIXED_PARAMS,
    PARAM_QUERY_VECTOR,
    ArmHoles,
    vector_distances_sql,
)
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.fused_search import bound_params
from memhtml.adapters.sqlite.scope_sql import AssembledScope

PRESELECT_PER_SLOT: Final = 2
"""Chunks preselected per place of the arm's list at first. Re-scoring is most of the warm
arm's cost and grows with the chunks handed over (80 re-scored ~5x faster than 320 at 1,000
memories); a store of one-chunk memories is answered from the first 80, and a store of longer
ones widens to the next size, which costs one more small statement."""

WIDEN: Final = 4
"""How much the preselection grows when it cannot vouch for its answer."""

HOLD_FROM_SEARCH: Final = 2
"""The vector search of a process that first loads the matrix. Loading costs a few scans
(docs/vector-storage.md), so a one-shot command, which searches once, never pays it."""

ATTEMPTS: Final = 3
"""Preselections tried before the scan (2, 8 then 32 chunks per place): a scope narrow enough
to need more is one the scan, which filters by scope first, answers faster anyway."""

MARGIN: Final = 1e-4
"""How far the matrix's float32 distance may be from sqlite-vec's, with room to spare."""

_FLOAT32_BYTES: Final = 4

_GENERATION_SQL: Final = "SELECT epoch, n FROM embedding_generation WHERE id = 1"
_LOAD_SQL: Final = "SELECT chunk_id, vec FROM embeddings WHERE model = ?1 ORDER BY chunk_id"

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatMatrix = npt.NDArray[np.float32]


@attrs.frozen(kw_only=True, eq=False)
class _Held:
    """The unit vectors of one space as loaded at one generation (rows follow ``chunk_ids``)."""

    generation: tuple[str, int]
    model: str
    chunk_ids: tuple[str, ...]
    unit: FloatMatrix | None
    """``None`` when the space holds vectors of more than one size: no preselection then."""


class VectorPreselector:
    """The exact vector arm of one index, from a matrix held between searches."""

    def __init__(self, db: Database) -> None:
        """Hold ``db``'s vectors, loaded on the first search that needs them."""
        self._db = db
        self._held: _Held | None = None
        self._searches = 0

    def ranked(
        self,
        holes: ArmHoles,
        scope: AssembledScope,
        *,
        vector: bytes,
        arm_limit: int,
    ) -> list[str] | None:
        """The vector arm's list, best first, exactly as the in-statement scan would rank it.

        Args:
            holes: The arm's template inputs (scope filter, space, bound), as the statement's.
            scope: The assembled scope whose values the filter binds.
            vector: The packed float32 query vector.
            arm_limit: The arm's budget.

        Returns:
            The paths, or ``None`` when the matrix cannot help (the process's first vector
            search, sizes mixed, a zero query, or a scope too narrow to vouch for): the caller
            scans in the statement then.

        Raises:
            StorageFailure: The index cannot be read.
        """
        self._searches += 1
        if self._searches < HOLD_FROM_SEARCH:
            return None
        # Imported here: a one-shot command never gets this far, and numpy's import is ~0.1 s
        # of its start-up.
        import numpy as np

        held = self._current(holes.embed_model)
        if held.unit is None or not held.chunk_ids:
            return None
        if len(vector) != held.unit.shape[1] * _FLOAT32_BYTES:
            return None
        query = np.frombuffer(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0.0:
            return None
        # einsum, not `@`: the product runs on this thread. The BLAS behind `@` hands a matrix
        # of this size to worker threads that keep spinning after it, and on shared cores they
        # took the CPU the fused statement needed next (BENCHMARKS.md, eighth session).
        distances = 1.0 - np.einsum("ij,j->i", held.unit, query / np.float32(norm))
        total = len(held.chunk_ids)
        wanted = max(arm_limit, 1) * PRESELECT_PER_SLOT
        for _ in range(ATTEMPTS):
            if wanted >= total:
                break
            order = np.argpartition(distances, wanted)
            threshold = float(distances[order[wanted]]) - MARGIN
            chosen = [held.chunk_ids[i] for i in order[:wanted].tolist()]
            rows = self._rescored(holes, scope, vector, arm_limit, chosen)
            bound = holes.vector_max_distance
            nearer = all(distance < threshold for _, distance in rows)
            full = len(rows) >= arm_limit or (bound is not None and threshold > bound)
            if nearer and full:
                return [path for path, _ in rows]
            wanted *= WIDEN
        return None

    def _rescored(
        self,
        holes: ArmHoles,
        scope: AssembledScope,
        vector: bytes,
        arm_limit: int,
        chosen: Sequence[str],
    ) -> list[tuple[str, float]]:
        # The chunk ids follow the scope's values, as a ranked list does in the statement.
        within = FIXED_PARAMS + len(scope.params) + 1
        sql = vector_distances_sql(holes, within=within)
        prefix = (None, arm_limit, None, vector, None)
        params = bound_params(prefix, scope, PARAM_QUERY_VECTOR, (json.dumps(list(chosen)),))
        rows = self._db.all(sql, params, operation="re-score the nearest vectors")
        return [(str(path), distance) for path, distance in rows if isinstance(distance, float)]

    def _current(self, model: str) -> _Held:
        """The matrix for ``model`` at the index's present generation, reloaded if it moved."""
        row = self._db.get(_GENERATION_SQL, operation="read the vector generation")
        if row is None or not isinstance(row[1], int):
            # No counter to vouch for a held matrix: hold nothing, the statement scans.
            return _Held(generation=("", -1), model=model, chunk_ids=(), unit=None)
        generation = (str(row[0]), row[1])
        held = self._held
        if held is not None and held.generation == generation and held.model == model:
            return held
        rows = self._db.all(_LOAD_SQL, (model,), operation="load the vectors")
        chunk_ids = tuple(str(chunk_id) for chunk_id, _ in rows)
        blobs = [vec if isinstance(vec, bytes) else b"" for _, vec in rows]
        self._held = _Held(
            generation=generation, model=model, chunk_ids=chunk_ids, unit=_unit_rows(blobs)
        )
        return self._held


def _unit_rows(blobs: Sequence[bytes]) -> FloatMatrix | None:
    """The vectors as unit rows (a zero vector stays zero: distance 1, as sqlite-vec's NULL is
    read); ``None`` when they are not all one size."""
    import numpy as np

    if not blobs:
        return np.zeros((0, 0), dtype=np.float32)
    size = len(blobs[0])
    if size == 0 or size % _FLOAT32_BYTES or any(len(blob) != size for blob in blobs):
        return None
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    safe = np.where(norms == 0.0, np.float32(1.0), norms)
    unit: FloatMatrix = (matrix / safe).astype(np.float32)
    return unit
