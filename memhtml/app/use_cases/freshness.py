"""Freshness: bring the index level with the tree before a read answers (docs/decisions.md §20).

``search``, ``recall``, ``read`` and ``list`` call :func:`ensure_fresh` first, so an edit made a
moment ago (committed or not) is what the read sees. When nothing moved the update is a HEAD
read plus a status walk.
"""

from __future__ import annotations

import logging
import time

import attrs

from memhtml.ports.errors import EmbedModelMismatch, IndexStale
from memhtml.ports.indexer import Indexer

logger = logging.getLogger("memhtml")

_MS_PER_S = 1000.0


@attrs.frozen(kw_only=True)
class Freshness:
    """How current the index a read answered from was.

    Attributes:
        index_fresh: The incremental update ran; False when the index could not be brought
            up to date and the read answered from it as it stood.
        index_update_ms: Milliseconds the update (or the failed attempt) took.
    """

    index_fresh: bool
    index_update_ms: float


def ensure_fresh(indexer: Indexer, *, embed: bool) -> Freshness:
    """Run one incremental index update; never fail the read because the index is behind.

    Args:
        indexer: The store's indexer.
        embed: Embed the chunks this pass projects (the store's embedder is on).

    Returns:
        Whether the update ran, and how long it took.

    Raises:
        StorageFailure, GitFailure: The index or the repository cannot be read at all; answering
            from an index that cannot be read is not possible either.
    """
    started = time.perf_counter()
    try:
        report = indexer.update(embed=embed)
    except (IndexStale, EmbedModelMismatch) as error:
        # A read that refused here would hide every memory behind a maintenance chore; the
        # index as it stands is still the best answer, and the warning names the fix.
        logger.warning("answering from the index as it stands: %s", error)
        return Freshness(index_fresh=False, index_update_ms=_elapsed_ms(started))
    if report.model_failure is not None:
        logger.warning("indexed without some vectors: %s", report.model_failure)
    return Freshness(index_fresh=True, index_update_ms=_elapsed_ms(started))


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * _MS_PER_S, 3)
