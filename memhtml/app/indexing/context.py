"""What every indexing pass needs: storage ports, git, the parser, the vector space, a clock."""

from __future__ import annotations

import attrs

from memhtml.app.indexing.parse_pool import ParseSettings
from memhtml.domain.datetimes import utc_stamp
from memhtml.ports.clock import Clock
from memhtml.ports.embedder import Embedder
from memhtml.ports.git import GitPort
from memhtml.ports.index_store import IndexStore
from memhtml.ports.memory_parser import MemoryParser
from memhtml.ports.vector_store import VectorStore


@attrs.frozen(kw_only=True)
class IndexContext:
    """The indexer's collaborators and settings, handed to each pass as one value.

    Attributes:
        store: Where projections and the watermark are persisted.
        vectors: Where vectors are persisted.
        git: The repository.
        parser: Bytes of one memory file to a ``MemoryDoc``.
        clock: Stamps ``indexed_at`` and the watermark's times.
        model: The configured vector space, ``<model-id>@<dim>``.
        dim: Its dimension.
        embedder: The document embedder, or ``None`` for a lexical-only store.
        persist_slice: Pending chunks embedded and stored per step.
        parse: How parsing spreads over processes.
    """

    store: IndexStore
    vectors: VectorStore
    git: GitPort
    parser: MemoryParser
    clock: Clock
    model: str
    dim: int
    embedder: Embedder | None
    persist_slice: int
    parse: ParseSettings

    def now(self) -> str:
        """The current instant as the UTC stamp memhtml writes."""
        return utc_stamp(self.clock.now())
