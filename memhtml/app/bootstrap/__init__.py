"""The one composition root: every adapter is chosen and wired here, nowhere else.

``settings`` reads the environment once; ``components`` builds each adapter (imported lazily,
so ``import memhtml`` loads no database, git, parser or model); ``services`` wires one open
store's ports. Nothing in this package runs a use case.
"""

from memhtml.app.bootstrap.components import (
    STORAGE_BACKENDS,
    build_embedder,
    configured_watermark,
    fake_bow_embedder,
    fixed_clock,
    memory_codec,
    open_storage,
    parse_memory_lazily,
)
from memhtml.app.bootstrap.services import Services, indexer_over, retrieval_over
from memhtml.app.bootstrap.settings import (
    INDEX_DB,
    STATE_DB,
    STORE_DIR,
    WRITE_LOCK,
    Settings,
    read_settings,
)

__all__ = [
    "INDEX_DB",
    "STATE_DB",
    "STORAGE_BACKENDS",
    "STORE_DIR",
    "WRITE_LOCK",
    "Services",
    "Settings",
    "build_embedder",
    "configured_watermark",
    "fake_bow_embedder",
    "fixed_clock",
    "indexer_over",
    "memory_codec",
    "open_storage",
    "parse_memory_lazily",
    "read_settings",
    "retrieval_over",
]
