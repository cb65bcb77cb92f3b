"""memhtml: long-term memory for AI agents, kept as a git repository of semantic HTML files.

Importing this package loads nothing heavy: no database driver, no model, no numpy. Each
adapter is imported by the composition root only when a command needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from memhtml.app.store import Store

__version__ = "0.1.0"


def open(root: str | Path, **kw: Any) -> Store:
    """Open the memory store at ``root``; see :func:`memhtml.app.store.open_store`.

    Shadows the builtin only inside this package's namespace, where ``memhtml.open`` reads as
    what it does. The import happens here, not at the top, so ``import memhtml`` stays cheap.
    """
    from memhtml.app.store import open_store

    return open_store(root, **kw)
