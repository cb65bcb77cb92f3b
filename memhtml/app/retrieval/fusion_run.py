"""Planning one fused ranking from a query, and asking the rank store for it.

The query text has four consumers and all of them are here: the full-text terms, the query
vector, the entities it names, and (after fusion) polarity. A missing input (no query terms, no
usable query vector, no state plane, no entity named) drops its arm and never fails the query
(docs/ranking.md §4).
"""

from __future__ import annotations

import logging

import attrs

from memhtml.app.retrieval.feedback_step import fused_with_feedback, word_pass
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.entities import match_entities, query_surfaces
from memhtml.domain.fts_query import LexicalQuery, fts_terms
from memhtml.domain.fusion import (
    DEFAULT_ARM_LIMIT,
    RANK_ARMS,
    ArmNeed,
    Fused,
    active_arms,
    ranks_windows,
    selected_arm_names,
)
from memhtml.domain.query_dates import DateWindow, query_windows
from memhtml.domain.scope import SearchScope, ascii_fold
from memhtml.domain.snippets import vector_coverage
from memhtml.domain.vectors import pack_f32
from memhtml.ports.clock import Clock
from memhtml.ports.embedder import QueryEmbedder, Vector
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.rank_store import FusionQuery, RankStore
from memhtml.ports.retrieval import RankingOptions

_log = logging.getLogger(__name__)


@attrs.frozen(kw_only=True)
class FusionRun:
    """One fusion run: its candidates and the facts a result reports about it.

    Attributes:
        fused: The fused candidates, best first.
        arms: The arms that fired, in registry order.
        degraded: The vector arm was wanted and did not run.
        coverage: Share of chunks with a vector in the configured space (1 with none).
        model: The space the vectors were compared in (or would have been).
        query_vector: The query's vector, when the vector arm ran.
    """

    fused: tuple[Fused, ...]
    arms: tuple[str, ...]
    degraded: bool
    coverage: float
    model: str | None
    query_vector: Vector | None


@attrs.frozen(kw_only=True)
class FusionPlanner:
    """What planning a fused ranking needs.

    Attributes:
        ranks: The rank store.
        clock: Salience's ``now`` (docs/decisions.md §3).
        embedder: Embeds queries for the vector arm; ``None`` runs lexical and priors only.
        embed_model: The configured vector space; ``None`` falls back to the recorded one. A
            query vector from another space never meets the stored vectors.
        coverage_floor: Below this share of embedded chunks the vector arm is dropped.
    """

    ranks: RankStore
    clock: Clock
    embedder: QueryEmbedder | None
    embed_model: str | None
    coverage_floor: float

    def run(self, query: str, scope: SearchScope, options: RankingOptions, limit: int) -> FusionRun:
        """Plan the arms for ``query`` and fetch the top ``limit`` fused candidates."""
        census = self.ranks.vector_census(self.embed_model)
        coverage = vector_coverage(census.embedded, census.chunks)
        model = census.model
        terms = fts_terms(query, drop_stopwords=options.fts_stopwords)
        # Everything that does not need the query vector comes first: a warm process has been
        # embedding the query since the read began (query_prefetch), so this work runs while
        # the model does, instead of after it.
        entities = self._query_entities(query, scope, options)
        windows = self._query_windows(query, options)
        lexical = self._lexical_query(terms, scope, options)
        wants_vector = options.wants_vector()
        embeds = wants_vector and coverage >= self.coverage_floor
        now = utc_stamp(self.clock.now())
        words = (
            word_pass(
                self.ranks,
                options,
                lexical=lexical,
                scope=scope,
                now=now,
                arm_limit=DEFAULT_ARM_LIMIT,
            )
            if embeds and self._embeds_in(model)
            else None
        )
        vector = self._query_vector(query, model) if embeds else None
        available = {ArmNeed.QUERY_TERMS} if terms else set()
        if vector is not None:
            available.add(ArmNeed.QUERY_VECTOR)
        if entities:
            available.add(ArmNeed.QUERY_ENTITIES)
        if windows and (vector is not None or terms):
            # The time arm ranks inside the windows by the vector, else by the terms;
            # time_words needs both (domain.fusion.RANK_ARMS).
            available.add(ArmNeed.QUERY_WINDOWS)
        if self.ranks.has_state:
            available.add(ArmNeed.STATE)
        arms = active_arms(available, selection=options.arms)
        if not any(arm.needs & {ArmNeed.QUERY_TERMS} for arm in arms):
            lexical = None
        fused = fused_with_feedback(
            self.ranks,
            options,
            FusionQuery(
                arms=arms,
                scope=scope,
                lexical=lexical,
                vector=vector,
                embed_model=model or "",
                now=now,
                limit=limit,
                weights=options.weights,
                rrf_k=options.rrf_k,
                gate_priors=options.gate_priors,
                evidence_first=options.evidence_first,
                prior_bound=options.prior_bound,
                vector_max_distance=None
                if options.vector_floor is None
                else 1.0 - options.vector_floor,
                entities=entities if any(arm.name == "entity" for arm in arms) else (),
                windows=windows if ranks_windows(arms) else (),
                fts_ranked=words if any(arm.name == "fts" for arm in arms) else None,
            ),
            word_paths=words or (),
        )
        names = tuple(arm.name for arm in arms)
        return FusionRun(
            fused=fused,
            arms=names,
            degraded=wants_vector and "vector" not in names,
            coverage=coverage,
            model=model,
            query_vector=vector,
        )

    def _lexical_query(
        self, terms: tuple[str, ...], scope: SearchScope, options: RankingOptions
    ) -> LexicalQuery | None:
        """The full-text form the term arms run, when the query has terms and one is selected.

        The all-terms form when some in-scope memory holds every term: under the any-term form
        the arm hands fusion 40 near-equal candidates. A term arm needs nothing but the terms,
        so it fires exactly when this returns a query and it is selected.
        """
        selected = selected_arm_names(options.arms)
        if not terms or not any(
            arm.name in selected and ArmNeed.QUERY_TERMS in arm.needs for arm in RANK_ARMS
        ):
            return None
        every = LexicalQuery(terms=terms, every=True)
        if len(terms) > 1 and self.ranks.holds_every_term(every, scope):
            return every
        return LexicalQuery(terms=terms)

    def _query_entities(
        self, query: str, scope: SearchScope, options: RankingOptions
    ) -> tuple[str, ...]:
        """The entity keys the query names: the scope's ``--entity`` and every known name, tag or
        alias in its text (longest first); none when the entity arm is not selected."""
        if "entity" not in selected_arm_names(options.arms):
            return ()
        surfaces = query_surfaces(query)
        known = self.ranks.entity_keys_named(surfaces) if surfaces else {}
        keys = set(match_entities(query, known))
        if scope.entity is not None:
            keys.add(ascii_fold(scope.entity))
        return tuple(sorted(keys))

    def _query_windows(self, query: str, options: RankingOptions) -> tuple[DateWindow, ...]:
        """The day windows the query names (``domain.query_dates``), read against the clock's
        today; none when no time arm is selected."""
        selected = selected_arm_names(options.arms)
        if not ranks_windows([arm for arm in RANK_ARMS if arm.name in selected]):
            return ()
        return query_windows(query, today=self.clock.now().date())

    def _embeds_in(self, model: str | None) -> bool:
        """Whether the embedder writes query vectors in ``model``, the space stored vectors use."""
        return self.embedder is not None and model is not None and self.embedder.watermark == model

    def _query_vector(self, query: str, model: str | None) -> Vector | None:
        embedder = self.embedder
        if embedder is None or not self._embeds_in(model):
            return None
        try:
            vector = embedder.embed_query(query)
            pack_f32(vector)  # a non-finite component would make every distance NaN
        except (ModelUnavailable, ValueError) as error:
            # Retrieval keeps answering while the embedding provider is down; `degraded` says so.
            _log.warning("query embedding failed, the vector arm is dropped: %s", error)
            return None
        return vector
