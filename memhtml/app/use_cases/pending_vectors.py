"""Vectors a search owes: embed a bounded share of the pending chunks, and say why a result
ran without the vector arm.

The command line writes without loading the model (a write costs a commit and a lexical
index pass); its chunks wait for a vector. A search with an embedder loads the model anyway
for the query, so it embeds up to ``SEARCH_EMBED_LIMIT`` pending chunks first. What is still
missing is reported (``pendingVectors``), and when coverage falls under the floor the vector
arm is dropped with a reason (``degradedReason``) instead of ranking over stale vectors.
"""

from __future__ import annotations

import logging
from typing import Final

from memhtml.ports.errors import EmbedModelMismatch, IndexStale
from memhtml.ports.indexer import Indexer

logger = logging.getLogger("memhtml")

SEARCH_EMBED_LIMIT: Final = 256
"""Pending chunks one search embeds before it ranks: on 2 busy cores about a second of
MiniLM, a few hundred writes' worth (one chunk per memory). A large batch is left to
``memhtml index embed`` instead of stalling one search for minutes."""

REASON_NO_EMBEDDER: Final = "no embedder is configured (MEMHTML_EMBED=off): lexical and priors only"
REASON_QUERY: Final = "the query could not be embedded (the warning on stderr says why)"


def settle_pending(indexer: Indexer, *, embed: bool, limit: int = SEARCH_EMBED_LIMIT) -> int:
    """Embed up to ``limit`` pending chunks when the store embeds; return how many still wait.

    A store that does not embed owes nothing: its chunks are lexical by configuration. A
    store whose recorded vector space differs (or whose rebuild died) embeds nothing here; the
    freshness warning already names the fix.
    """
    if not embed:
        return 0
    try:
        census = indexer.vector_coverage()
        if census.embeddings < census.chunks and indexer.embedder_bound:
            indexer.embed_missing(limit=limit)
            census = indexer.vector_coverage()
    except (IndexStale, EmbedModelMismatch) as error:
        logger.debug("pending vectors left alone: %s", error)
        return 0
    return max(census.chunks - census.embeddings, 0)


def degraded_reason(
    *, degraded: bool, embed: bool, coverage: float, floor: float, pending: int
) -> str | None:
    """Why the vector arm did not run, for a person; ``None`` when it ran (or was not asked)."""
    if not degraded:
        return None
    if not embed:
        return REASON_NO_EMBEDDER
    if coverage < floor:
        return (
            f"{pending:,} chunks have no vector yet (coverage {coverage:.2f}, under the floor "
            f"{floor:.2f}); run memhtml index embed"
        )
    return REASON_QUERY
