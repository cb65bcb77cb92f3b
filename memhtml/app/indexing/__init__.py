"""The indexing lifecycle: read git, parse, project, embed and persist through storage ports.

``StoreIndexer`` implements the ``Indexer`` service; the passes (``rebuild``, ``update``,
``embedding``) orchestrate, the domain decides (projection, update plan, content claims), and
storage persists (``IndexStore``, ``VectorStore``). Parallel parsing lives in ``parse_pool``.
"""

from memhtml.app.indexing.embedding import EMBED_PERSIST_SLICE
from memhtml.app.indexing.indexer import StoreIndexer
from memhtml.app.indexing.parse_pool import ParseSettings

__all__ = ["EMBED_PERSIST_SLICE", "ParseSettings", "StoreIndexer"]
