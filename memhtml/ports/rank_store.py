"""The rank store port: the fused ranks of one query plan, and the facts a plan is built from.

Storage answers; the retrieval pipeline (``memhtml.app.retrieval``) decides. One call runs
every firing arm and fuses them, because the SQLite adapter does both in one statement (pinned
to :func:`memhtml.domain.rrf.fuse`) and a backend without SQL runs the per-arm twins and the
same ``fuse``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import attrs

from memhtml.domain.fts_query import LexicalQuery
from memhtml.domain.fusion import DEFAULT_ARM_LIMIT, RRF_K, ArmSpec, Fused
from memhtml.domain.query_dates import DateWindow
from memhtml.domain.scope import SearchScope
from memhtml.ports.embedder import Vector


@attrs.frozen(kw_only=True)
class VectorCensus:
    """How much of the index the vector arm can see.

    Attributes:
        chunks: Every chunk in the index.
        embedded: Chunks with a vector in ``model``.
        model: The space asked about; when the caller named none, the space the index records
            (``None`` for an index never built).
    """

    chunks: int
    embedded: int
    model: str | None


@attrs.frozen(kw_only=True)
class FusionQuery:
    """One fused ranking: which arms, over what scope, with which inputs and constants.

    Attributes:
        arms: The firing arms in registry order (:func:`memhtml.domain.fusion.active_arms`).
        scope: The scope every arm filters by.
        lexical: The full-text query; required when ``fts`` fires.
        vector: The query vector; required when ``vector`` fires.
        embed_model: The space the vector arm compares in.
        now: The instant salience decays to (a UTC stamp from the clock port).
        limit: Fused candidates to return.
        arm_limit: Candidates each arm contributes before fusion.
        weights: Per-arm weight overrides in registry order.
        rrf_k: The RRF constant.
        gate_priors: Let the priors rank only the query arms' candidates, renumbered from 1.
        evidence_first: Order every candidate a query arm ranked before prior-only ones.
        vector_max_distance: The vector arm keeps only files whose nearest chunk lies within
            this cosine distance; ``None`` keeps its whole top list.
        entities: The query's entity keys (``domain/entities.entity_key``), sorted; required
            non-empty when ``entity`` fires.
        prior_bound: Priors as a bounded tie-breaker (``domain.rrf.fuse``); ``None`` adds
            them like any arm.
        windows: The day windows the query names (``domain.query_dates``); required
            non-empty when ``time`` fires.
        fts_ranked: The fts arm's list as a fusion of that arm alone ranked it, with the same
            scope, lexical query and ``arm_limit`` (the feedback word pass), best first; a
            store may read it instead of ranking the arm again, and must give the same ranks
            either way. ``None`` when no such pass ran.
    """

    arms: tuple[ArmSpec, ...]
    scope: SearchScope
    lexical: LexicalQuery | None = None
    vector: Vector | None = None
    embed_model: str = ""
    now: str
    limit: int
    arm_limit: int = DEFAULT_ARM_LIMIT
    weights: tuple[tuple[str, float], ...] = ()
    rrf_k: float = RRF_K
    gate_priors: bool = False
    evidence_first: bool = False
    vector_max_distance: float | None = None
    entities: tuple[str, ...] = ()
    prior_bound: float | None = None
    windows: tuple[DateWindow, ...] = ()
    fts_ranked: tuple[str, ...] | None = None


class RankStore(Protocol):
    """Ranks memories for a plan; knows nothing of polarity, MMR or packs."""

    @property
    def has_state(self) -> bool:
        """Whether the state plane is present (the salience arm needs it)."""
        ...

    def vector_census(self, model: str | None) -> VectorCensus:
        """Chunks, chunks embedded in ``model`` (else the recorded space), and that space.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def holds_every_term(self, lexical: LexicalQuery, scope: SearchScope) -> bool:
        """Whether some memory inside ``scope`` matches ``lexical`` (asked with every term).

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def entity_keys_named(self, surfaces: Sequence[str]) -> Mapping[str, frozenset[str]]:
        """For each listed surface the vocabulary holds (``domain/entities.surface_of``), the
        entity keys it names, over every indexed memory; unknown surfaces are absent.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def fused_ranks(self, query: FusionQuery) -> tuple[Fused, ...]:
        """The fused candidates, score descending then path, each with its per-arm ranks.

        The same result as :func:`memhtml.domain.rrf.fuse` over each arm's top
        ``arm_limit`` in scope (ties inside an arm by path), to 1e-9 in score.

        Raises:
            ValueError: A firing arm's input is missing (a caller bug).
            StorageFailure: The index cannot be read.
        """
        ...

    def chunk_vectors(self, paths: Sequence[str], model: str) -> Mapping[str, tuple[bytes, ...]]:
        """Each listed path's chunk vectors in ``model``, as float32 blobs in chunk order
        (``domain.vectors.unpack_f32``); paths without an embedded chunk are absent.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
