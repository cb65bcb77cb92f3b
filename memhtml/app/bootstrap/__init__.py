"""The one composition root: every adapter is chosen and wired here, nowhere else.

``settings`` reads the environment once; ``components`` builds each adapter (imported lazily,
so ``import memhtml`` loads no database, git, parser or model); ``services`` wires one open
store's ports; ``warm_helper`` builds the command line's embedder behind the warm helper.
Nothing in this package runs a use case.

The names below load with their module on first use, so that importing one small module of
this package (the console script's front door reads ``warm_key``) does not load them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
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

_HOMES: Final = {
    "STORAGE_BACKENDS": "components",
    "build_embedder": "components",
    "configured_watermark": "components",
    "fake_bow_embedder": "components",
    "fixed_clock": "components",
    "memory_codec": "components",
    "open_storage": "components",
    "parse_memory_lazily": "components",
    "Services": "services",
    "indexer_over": "services",
    "retrieval_over": "services",
    "INDEX_DB": "settings",
    "STATE_DB": "settings",
    "STORE_DIR": "settings",
    "WRITE_LOCK": "settings",
    "Settings": "settings",
    "read_settings": "settings",
}

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


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
