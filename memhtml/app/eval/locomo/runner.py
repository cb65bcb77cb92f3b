"""Running the LoCoMo benchmark: one fresh store per conversation, then one search per query.

Each store goes through the real paths, in a temporary folder: ``init``, ONE ``apply`` batch
(the write path: render, commit, index pass), a full ``index rebuild`` (with the local model in
hybrid mode), then one in-process ``Store.search`` per question, freshness check included.

The batch is applied without an embedder and the rebuild embeds: embedding inside the apply
pass and again in the rebuild would pay for the model twice. ``off`` and ``local`` share one
watermark (docs/decisions.md §21), so the rebuild needs no model switch. Ingest time is therefore
the write path alone and index time includes every vector.
"""

from __future__ import annotations

import datetime as dt
import logging
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

import attrs

from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.app.eval.locomo.conversion import Granularity, StoredItem, convert
from memhtml.app.eval.locomo.dataset import Conversation, Dataset, LocomoDataInvalid
from memhtml.app.eval.locomo.metrics import RankingScores, first_occurrences, score_ranking
from memhtml.app.eval.locomo.queries import FixedItem, Query, build_queries
from memhtml.domain.errors import InvalidInput
from memhtml.ports.errors import ModelUnavailable, VectorCoverageLow
from memhtml.ports.retrieval import RankingOptions

if TYPE_CHECKING:
    from memhtml.app.store import Store
    from memhtml.app.use_cases.apply import ApplyResult
    from memhtml.app.use_cases.retrieval_ops import SearchAnswer
    from memhtml.ports.embedder import EmbeddingModel

Mode = Literal["lexical", "hybrid"]

CLOCK_AFTER_LAST_SESSION: Final = dt.timedelta(days=1)
FULL_COVERAGE: Final = 1.0
SCRATCH_PREFIX: Final = "memhtml-locomo-"

logger = logging.getLogger(__name__)


class LocomoConversionFailed(LocomoDataInvalid):
    """The batch built from a conversation did not land as one file per op: an op was refused,
    or one deduped onto another (two turns with the same words at the same second), so a turn
    would have no file of its own to be found by. The data decides this, hence a data error."""


@attrs.frozen(kw_only=True)
class RunConfig:
    """One benchmark run's settings (the CLI echoes them under ``config``).

    Attributes:
        mode: ``hybrid`` (local model, all four arms) or ``lexical`` (no vectors).
        granularity: One memory per turn, or per session.
        limit: Hits per search.
        conversations: Only the first N conversations, or those with these ids, in file
            order; None for all.
        options: The ablation switches (docs/decisions.md §12).
        fts_tokenizer: ``unicode61`` or ``porter``, applied when each store is built.
        embed: The embed settings the stores are opened with (their backend matches ``mode``).
    """

    mode: Mode = "hybrid"
    granularity: Granularity = "turn"
    limit: int = 10
    conversations: int | tuple[str, ...] | None = None
    options: RankingOptions = attrs.field(factory=RankingOptions)
    fts_tokenizer: str = "unicode61"
    embed: EmbedSettings = attrs.field(factory=EmbedSettings)


@attrs.frozen(kw_only=True)
class QueryOutcome:
    """One searched question's scores (``turn`` is None in a session store) and latency."""

    qa_index: int
    category: int
    turn: RankingScores | None
    session: RankingScores
    latency_ms: float
    conversation: str = ""
    ranked_turns: tuple[str, ...] = ()
    ranked_sessions: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class ConversationRun:
    """One conversation's store, timings and per-query outcomes.

    Attributes:
        sample_id: The conversation's id (``conv-26``).
        sessions, turns: What the conversation holds (sessions with turns only).
        files: Memories written: one per turn, or one per session.
        ingest_s: The ``apply`` batch, end to end (render, commit, lexical index pass).
        index_s: The full ``index rebuild``, vectors included in hybrid mode.
        outcomes: One per searched question, in file order.
        excluded_no_gold: QA indexes left out because their evidence normalised to nothing.
        fixed: QA items whose evidence the normaliser changed.
        arms: The arms that ran in any of the searches, in first-seen order.
        root: The store's folder; it lives only as long as the caller's scratch folder.
    """

    sample_id: str
    sessions: int
    turns: int
    files: int
    ingest_s: float
    index_s: float
    outcomes: tuple[QueryOutcome, ...]
    excluded_no_gold: tuple[int, ...]
    fixed: tuple[FixedItem, ...]
    arms: tuple[str, ...]
    root: str


def scratch_root() -> tempfile.TemporaryDirectory[str]:
    """A temporary folder for one run's stores, removed when closed."""
    return tempfile.TemporaryDirectory(prefix=SCRATCH_PREFIX)


def select_conversations(
    dataset: Dataset, chosen: int | Sequence[str] | None
) -> tuple[Conversation, ...]:
    """The first ``chosen`` conversations, or those with the ids ``chosen`` names (in file
    order); all of them for None.

    Raises:
        InvalidInput: An id names no conversation of the file.
    """
    if chosen is None:
        return dataset.conversations
    if isinstance(chosen, int):
        return dataset.conversations[:chosen]
    known = {conversation.sample_id for conversation in dataset.conversations}
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise InvalidInput(f"no conversation {', '.join(unknown)} in the data file")
    wanted = set(chosen)
    return tuple(c for c in dataset.conversations if c.sample_id in wanted)


def run_conversation(
    conversation: Conversation,
    config: RunConfig,
    *,
    workdir: Path,
    embedder: EmbeddingModel | None,
) -> ConversationRun:
    """Build ``conversation``'s store under ``workdir`` and search every question in it.

    Args:
        conversation: The conversation to load.
        config: Mode, granularity, limit and ranking switches.
        workdir: Where the store's folder is created (and left for the caller to remove).
        embedder: The model in hybrid mode (loaded on first use, shared across stores); None
            in lexical mode.

    Raises:
        LocomoConversionFailed: An op was refused or deduped.
        ModelUnavailable: Hybrid mode, and the model failed or a query came back without the
            vector arm.
        VectorCoverageLow: Hybrid mode, and the rebuild left a chunk without a vector.
    """
    from memhtml.app.bootstrap import Services, Settings, fixed_clock
    from memhtml.app.store import Store

    converted = convert(conversation, config.granularity)
    query_set = build_queries(conversation)
    root = workdir / conversation.sample_id
    settings = Settings(root=root, embed=config.embed, fts_tokenizer=config.fts_tokenizer)
    clock = fixed_clock(conversation.last_session_at + CLOCK_AFTER_LAST_SESSION)
    with Store(Services(settings, clock=clock, embedder=embedder or False)) as store:
        store.initialize(databases_created=True)
        started = time.perf_counter()
        applied = store.apply(converted.ops, embed=False)
        ingest_s = time.perf_counter() - started
        _check_applied(conversation.sample_id, applied, len(converted.ops))
        started = time.perf_counter()
        rebuilt = store.index_rebuild(embed=embedder is not None)
        index_s = time.perf_counter() - started
        if embedder is not None:
            _check_vectors(store, rebuilt.model_failure)
        by_path = converted.by_path()
        outcomes: list[QueryOutcome] = []
        arms: dict[str, None] = {}
        for query in query_set.queries:
            answer, latency_ms = _timed_search(store, query.question, config)
            if embedder is not None and answer.degraded:
                raise ModelUnavailable(
                    f"{conversation.sample_id} qa #{query.qa_index} ran without the vector arm"
                )
            arms.update(dict.fromkeys(answer.arms))
            paths = tuple(hit.path for hit in answer.hits)
            outcome = score_query(query, paths, by_path, latency_ms)
            outcomes.append(attrs.evolve(outcome, conversation=conversation.sample_id))
    return ConversationRun(
        sample_id=conversation.sample_id,
        sessions=len(conversation.sessions),
        turns=len(conversation.turns),
        files=len(converted.ops),
        ingest_s=ingest_s,
        index_s=index_s,
        outcomes=tuple(outcomes),
        excluded_no_gold=query_set.excluded_no_gold,
        fixed=query_set.fixed,
        arms=tuple(arms),
        root=str(root),
    )


def run_benchmark(
    conversations: Sequence[Conversation],
    config: RunConfig,
    *,
    workdir: Path,
    embedder: EmbeddingModel | None,
    after_each: Callable[[ConversationRun], None] | None = None,
) -> tuple[ConversationRun, ...]:
    """Every conversation in turn, logging one progress line each to stderr.

    Args:
        conversations: What to load, in order.
        config: The run's settings.
        workdir: Where each conversation's store folder goes.
        embedder: As for :func:`run_conversation`.
        after_each: Called with each finished run while its store still exists (the CLI
            latency probe uses the first).
    """
    runs: list[ConversationRun] = []
    for number, conversation in enumerate(conversations, start=1):
        run = run_conversation(conversation, config, workdir=workdir, embedder=embedder)
        runs.append(run)
        logger.info(
            "locomo %s (%d/%d): %d files, %d queries, ingest %.1f s, index %.1f s, search %.0f ms",
            run.sample_id,
            number,
            len(conversations),
            run.files,
            len(run.outcomes),
            run.ingest_s,
            run.index_s,
            sum(outcome.latency_ms for outcome in run.outcomes),
        )
        if after_each is not None:
            after_each(run)
    return tuple(runs)


def score_query(
    query: Query, paths: Sequence[str], by_path: Mapping[str, StoredItem], latency_ms: float
) -> QueryOutcome:
    """One query's turn and session scores from its hit paths.

    Paths the store did not write (none are expected) are skipped. A turn store ranks sessions
    by their best turn; a session store ranks them directly and has no turn scores.
    """
    items = [by_path[path] for path in paths if path in by_path]
    turns = tuple(item.dia_id for item in items if item.dia_id is not None)
    sessions = first_occurrences(item.session for item in items)
    turn_store = any(item.dia_id is not None for item in by_path.values())
    return QueryOutcome(
        qa_index=query.qa_index,
        category=query.category,
        turn=score_ranking(turns, query.gold_turns) if turn_store else None,
        session=score_ranking(sessions, query.gold_sessions),
        latency_ms=latency_ms,
        ranked_turns=turns,
        ranked_sessions=sessions,
    )


def _timed_search(store: Store, question: str, config: RunConfig) -> tuple[SearchAnswer, float]:
    from memhtml.ports.retrieval import SearchRequest

    request = SearchRequest(query=question, limit=config.limit, options=config.options)
    started = time.perf_counter()
    answer = store.search(request)
    return answer, (time.perf_counter() - started) * 1000


def _check_applied(sample_id: str, applied: ApplyResult, expected: int) -> None:
    summary = applied.summary
    if applied.aborted or summary.failed:
        refused = next((r for r in applied.results if r.code is not None), None)
        detail = "" if refused is None else f": op {refused.index} {refused.code} {refused.error}"
        raise LocomoConversionFailed(f"{sample_id}: the batch was refused{detail}")
    if summary.deduped or summary.written != expected:
        raise LocomoConversionFailed(
            f"{sample_id}: {summary.written} of {expected} ops wrote a file and "
            f"{summary.deduped} deduped; every turn needs a file of its own"
        )


def _check_vectors(store: Store, model_failure: str | None) -> None:
    if model_failure is not None:
        raise ModelUnavailable(model_failure)
    status = store.index_status()
    if status.vector_coverage < FULL_COVERAGE:
        raise VectorCoverageLow(
            status.vector_coverage, FULL_COVERAGE, "the rebuild left chunks without a vector"
        )
