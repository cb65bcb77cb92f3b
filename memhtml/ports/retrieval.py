"""The retrieval port: fused search, the recall pack, reinforcement and archived lookups.

The app drives one ``Retrieval``; the values below are what crosses it. Field names follow the
CLI's result objects (docs/cli-contract.md §3.3) in snake case; the CLI edge renames them to
camel case.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, Protocol

import attrs

from memhtml.domain.disclosure import DisclosureFold
from memhtml.domain.errors import InvalidInput
from memhtml.domain.feedback import (
    FEEDBACK_DEPTH_DEFAULT,
    FEEDBACK_PICK_DEFAULT,
    FEEDBACK_PICKS,
    FEEDBACK_SOURCE_DEFAULT,
    FEEDBACK_SOURCES,
    FEEDBACK_WEIGHT_DEFAULT,
    MAX_FEEDBACK_DEPTH,
)
from memhtml.domain.fusion import DEFAULT_SEARCH_LIMIT, PRIOR_BOUND, RANK_ARMS, RRF_K, arm_named
from memhtml.domain.graph import GraphVia
from memhtml.domain.mmr import MMR_LAMBDA, MMR_RELEVANCE_DEFAULT
from memhtml.domain.query_bounds import checked_query
from memhtml.domain.reinforce import ReinforceResult, Signal
from memhtml.domain.scope import SearchScope
from memhtml.ports.archive_lookup import ArchivedLookup, ArchivedMatch

__all__ = [
    "MAX_SEARCH_LIMIT",
    "ArchivedLookup",
    "ArchivedMatch",
    "GraphVia",
    "RankingOptions",
    "RecallRequest",
    "RecallResult",
    "ReinforceResult",
    "Retrieval",
    "SearchHit",
    "SearchRequest",
    "SearchResult",
]

MMR_RELEVANCE: Final = ("rank", "fused")
"""How MMR reads relevance: ``1 − i/n`` of the post-polarity order, or the fused score."""

MAX_SEARCH_LIMIT: Final = 200
"""The largest ``limit`` a search accepts (docs/cli-contract.md §3.3: 1–200); the fused pool is
three times it."""


def _arm_selection(value: Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    names = tuple(dict.fromkeys(value))
    for name in names:
        arm_named(name)  # a typo in --arms is refused, never silently run without that arm
    return names


def _weights(
    value: Mapping[str, float] | Iterable[tuple[str, float]],
) -> tuple[tuple[str, float], ...]:
    """Overrides in registry order, so equal settings always inline the same SQL text."""
    given = dict(value.items() if isinstance(value, Mapping) else value)
    for name, weight in given.items():
        arm_named(name)
        if not (math.isfinite(weight) and weight >= 0):
            raise InvalidInput(f"weight of arm {name!r} must be finite and >= 0, got {weight!r}")
    return tuple((arm.name, float(given[arm.name])) for arm in RANK_ARMS if arm.name in given)


def _mmr_lambda(value: float) -> float:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InvalidInput(f"MMR lambda must lie in 0–1, got {value!r}")
    return float(value)


def _floor(value: float | None) -> float | None:
    if value is None:
        return None
    if not (math.isfinite(value) and -1.0 <= value <= 1.0):
        raise InvalidInput(f"the vector floor must lie in -1–1, got {value!r}")
    return float(value)


def _check_non_negative(value: float, what: str) -> None:
    if not (math.isfinite(value) and value >= 0):
        raise InvalidInput(f"{what} must be a finite number >= 0, got {value!r}")


def _prior_bound(value: float | None) -> float | None:
    if value is None:
        return None
    _check_non_negative(value, "the prior bound")
    return float(value)


def _mmr_relevance(value: str) -> str:
    if value not in MMR_RELEVANCE:
        raise InvalidInput(f"MMR relevance must be one of {', '.join(MMR_RELEVANCE)}")
    return value


def _rrf_k(value: float) -> float:
    _check_non_negative(value, "the RRF constant")
    return value


def _prf_depth(value: int) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not 0 <= value <= MAX_FEEDBACK_DEPTH
    ):
        raise InvalidInput(f"the feedback depth must be an integer in 0–{MAX_FEEDBACK_DEPTH}")
    return value


def _prf_weight(value: float) -> float:
    _check_non_negative(value, "the feedback weight")
    return float(value)


def _prf_source(value: str) -> str:
    if value not in FEEDBACK_SOURCES:
        raise InvalidInput(f"the feedback source must be one of {', '.join(FEEDBACK_SOURCES)}")
    return value


def _prf_pick(value: str) -> str:
    if value not in FEEDBACK_PICKS:
        raise InvalidInput(f"the feedback pick must be one of {', '.join(FEEDBACK_PICKS)}")
    return value


@attrs.frozen(kw_only=True)
class RankingOptions:
    """The ablation switches every search path accepts (docs/decisions.md §12).

    Defaults: the original tool's ungated fold over every arm, with the constants our LoCoMo runs
    chose over the original tool's (k = 20, vector weight 0.5 in the registry, stopwords dropped;
    see ``memhtml.domain.fusion.RRF_K``).

    Attributes:
        arms: Arm names to run (``--arms``), or None for every arm whose input exists. An arm
            selected here still drops out when its input is missing.
        gate_priors: Restrict the query-blind priors (recency, salience) to the query arms'
            candidates, inside the one statement.
        rrf_k: The RRF constant (``--rrf-k``).
        weights: Per-arm weight overrides in registry order; unnamed arms keep the registry's.
        fts_stopwords: Drop English function words from the lexical query.
        evidence_first: Rank every memory a query arm found above every memory only a prior
            found (``--evidence-first``).
        vector_floor: The least cosine similarity a memory needs for the vector arm to rank it
            (``--vector-floor``); ``None`` ranks the nearest 40 whatever their similarity.
        mmr_lambda: MMR's relevance weight (``--mmr-lambda``); 1 turns diversification off.
        mmr_relevance: ``rank`` (``1 − i/n``) or ``fused`` (the fused score over the best).
        mmr_text: Compare candidates without a vector by their words (``--mmr-text``), so they
            are penalised for redundancy like the others.
        authority: Move each fused score by the memory's bounded authority (kind, importance,
            confidence, pin, tags; ``--authority``) before polarity and MMR.
        prior_bound: Recency and salience as a bounded tie-breaker (``--prior-bound``): the
            query arms' score times at most ``1 + prior_bound``; ``None`` adds them as arms.
        prf_depth: Dense pseudo-relevance feedback (``--prf-depth``): move the query vector
            toward the vectors of the top ``prf_depth`` memories of ``prf_source`` (3 by
            default); 0 leaves it where it is.
        prf_source: Whose top memories feedback reads (``--prf-source``): ``words``, the
            own-text arm's, before the one fusion; or ``fused``, a first fusion's, then fuse
            again.
        prf_weight: β of that move (``--prf-weight``; ``domain.feedback.rocchio``).
        prf_pick: Which vector a memory gives (``--prf-pick``): its chunk ``nearest`` the
            query, or the ``mean`` of its chunks.
    """

    arms: tuple[str, ...] | None = attrs.field(default=None, converter=_arm_selection)
    gate_priors: bool = False
    rrf_k: float = attrs.field(default=RRF_K, converter=_rrf_k)
    weights: tuple[tuple[str, float], ...] = attrs.field(default=(), converter=_weights)
    fts_stopwords: bool = True
    evidence_first: bool = False
    vector_floor: float | None = attrs.field(default=None, converter=_floor)
    mmr_lambda: float = attrs.field(default=MMR_LAMBDA, converter=_mmr_lambda)
    mmr_relevance: str = attrs.field(default=MMR_RELEVANCE_DEFAULT, converter=_mmr_relevance)
    mmr_text: bool = False
    authority: bool = False
    prior_bound: float | None = attrs.field(default=PRIOR_BOUND, converter=_prior_bound)
    prf_depth: int = attrs.field(default=FEEDBACK_DEPTH_DEFAULT, converter=_prf_depth)
    prf_weight: float = attrs.field(default=FEEDBACK_WEIGHT_DEFAULT, converter=_prf_weight)
    prf_pick: str = attrs.field(default=FEEDBACK_PICK_DEFAULT, converter=_prf_pick)
    prf_source: str = attrs.field(default=FEEDBACK_SOURCE_DEFAULT, converter=_prf_source)

    def wants_vector(self) -> bool:
        """Whether the vector arm is selected (it still drops out when its input is missing)."""
        return self.arms is None or "vector" in self.arms

    def weight_map(self) -> dict[str, float]:
        """The overrides as the mapping :func:`memhtml.domain.rrf.fuse` takes."""
        return dict(self.weights)


def _search_limit(value: int) -> int:
    if not 1 <= value <= MAX_SEARCH_LIMIT:
        raise InvalidInput(f"limit must lie in 1–{MAX_SEARCH_LIMIT}, got {value!r}")
    return value


def _budget(value: int | None) -> int | None:
    if value is not None and value < 0:
        raise InvalidInput(f"budget must be >= 0, got {value!r}")
    return value


@attrs.frozen(kw_only=True)
class SearchRequest:
    """One search: the query text, its scope, how many hits, and the ranking switches.

    ``query`` is bounded as it is set (``checked_query``, docs/ranking.md §11), so every edge
    that builds a request refuses the same over-long text and no arm meets a lone surrogate.
    """

    query: str = attrs.field(converter=checked_query)
    scope: SearchScope = attrs.field(factory=SearchScope)
    limit: int = attrs.field(default=DEFAULT_SEARCH_LIMIT, converter=_search_limit)
    options: RankingOptions = attrs.field(factory=RankingOptions)


@attrs.frozen(kw_only=True)
class SearchHit:
    """One ranked hit.

    Attributes:
        path: Repository path.
        title: The memory's title.
        gist: Its claim.
        memory_type: Its memory type.
        score: ``1 / position`` after the polarity step (a demoted twin scores lower);
            comparable within one result only, while hits come in MMR order (docs/decisions.md §7).
        confidence: ``files.confidence``.
        updated_at: ``files.updated_at``.
        snippet: The chunk nearest the query vector, else chunk 0, at most 700 UTF-16 units
            with ``…`` when cut; ``""`` only for a memory without chunks.
        entities: Every ``type:name`` reference it carries, sorted; usable verbatim as the next
            search's entity scope.
        superseded_by: The memory that superseded it (an archived hit only), else None.
        ranks: ``(arm, rank)`` for every arm that ranked it before fusion, in registry order.
        via: When the graph arm ranked it, the link it was reached by (seed, relation,
            direction); else None.
        authority: The share authority moved its fused score by (``+0.05``), or None when it
            did not move it.
    """

    path: str
    title: str
    gist: str
    memory_type: str
    score: float
    confidence: float
    updated_at: str
    snippet: str
    entities: tuple[str, ...]
    superseded_by: str | None
    ranks: tuple[tuple[str, int], ...]
    via: GraphVia | None = None
    authority: float | None = None


@attrs.frozen(kw_only=True)
class SearchResult:
    """A search's outcome.

    Attributes:
        hits: The hits in MMR order.
        vector_coverage: Share of chunks with a vector in the configured space (1 with none).
        arms: The arms that ran, in registry order.
        degraded: The vector arm was wanted but could not run (no embedder, embedder failure,
            or coverage below the floor).
        entity_scope: The entity reference the search was scoped to, or None.
        scope_empty: A narrowing scope was named and no memory at all lies inside it.
        archived_matches: When ``scope_empty`` (and no ``as_of``), how many archived memories
            the same scope matches; else 0.
        archived: Up to ``limit`` of those, sorted by path; else empty.
    """

    hits: tuple[SearchHit, ...]
    vector_coverage: float
    arms: tuple[str, ...]
    degraded: bool
    entity_scope: str | None
    scope_empty: bool
    archived_matches: int
    archived: tuple[ArchivedMatch, ...]


@attrs.frozen(kw_only=True)
class RecallRequest:
    """One recall: the query, its scope, the memories' character budget, the switches.

    ``budget_chars`` bounds quoted ordinary memories (None: 16,000 UTF-16 units); arcs always
    fold under their own 9,000. ``query`` is bounded as in :class:`SearchRequest`.
    """

    query: str = attrs.field(converter=checked_query)
    scope: SearchScope = attrs.field(factory=SearchScope)
    budget_chars: int | None = attrs.field(default=None, converter=_budget)
    options: RankingOptions = attrs.field(factory=RankingOptions)


@attrs.frozen(kw_only=True)
class RecallResult:
    """The recall pack plus the facts of the run that produced it.

    Attributes:
        arcs: The arcs' fold, under their own envelope.
        memories: Every other candidate's fold, under the caller's budget.
        spent_chars: Both folds' quoted UTF-16 units.
        truncated: Whether either fold left a candidate as an index line.
        degraded: As in :class:`SearchResult`.
        vector_coverage: As in :class:`SearchResult`.
        arms: The arms that ran.
    """

    arcs: DisclosureFold
    memories: DisclosureFold
    spent_chars: int
    truncated: bool
    degraded: bool
    vector_coverage: float
    arms: tuple[str, ...]


class Retrieval(Protocol):
    """Fused retrieval over the index and the state plane."""

    def search(self, request: SearchRequest) -> SearchResult:
        """Rank memories for a query: fusion, then polarity, then MMR.

        Fused order is score descending, ties by path (plain string order); hits come in MMR
        order over three times ``limit`` fused candidates. A missing input drops its arm and
        never fails the query; no arm at all gives no hits.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def recall(self, request: RecallRequest) -> RecallResult:
        """Fold the top 30 post-polarity fused candidates (no MMR) into a recall pack.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def reinforce(self, paths: Sequence[str], signal: Signal) -> ReinforceResult:
        """Bump every path past its cooldown; a repeated path counts once.

        ``bumped`` and ``cooled_down`` list the paths in call order. Without a state plane
        nothing is bumped and both are empty.

        Raises:
            NotFound: A path is not in the index; nothing is bumped.
            StorageFailure: The state plane cannot be written.
        """
        ...

    def archived_in_scope(self, scope: SearchScope, limit: int) -> ArchivedLookup:
        """The same scope over archived memories only: a scope match, not a ranked one.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
