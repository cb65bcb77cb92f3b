"""The link graph port: the stored edges around a set of memories (``neighbors``, ``read``).

Edges are the index's ``edges`` rows: authored links from memory heads and edges mined by sleep.
Targets may dangle (an edge is its source's assertion), so a link can name a path the index
does not hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import attrs


@attrs.frozen(kw_only=True, order=True)
class StoredLink:
    """One stored edge, ``src --rel--> dst``.

    Attributes:
        src: The memory whose head states it (or sleep's source).
        rel: The relation (docs/format.md §3).
        dst: The target path, possibly dangling.
        edge_class: ``memory``, ``task``, ``person`` or ``provenance``.
        derived: Mined by sleep rather than authored.
    """

    src: str
    rel: str
    dst: str
    edge_class: str
    derived: bool = False


class LinkGraph(Protocol):
    """Read-only questions about stored edges."""

    def links_touching(self, paths: Sequence[str]) -> tuple[StoredLink, ...]:
        """Every edge whose source or target is one of ``paths``, sorted by (src, rel, dst),
        each once.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
