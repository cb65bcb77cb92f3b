"""A storage port whose adapter is built, and its module imported, the first time it is used.

A store opens every storage port, but a command uses a few: a ``write`` never ranks, lists or
reads transcripts, a ``search`` never scans them or records a write. Importing every adapter
module (and the domain rules and attrs classes each imports) cost each cold command tens of
milliseconds for ports it never touched (BENCHMARKS.md, "Seventh session: cold start-up").
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

Port = TypeVar("Port")


class OnFirstUse:
    """Stands in for the adapter ``build`` returns; the first attribute asked for builds it.

    Every attribute after that is the adapter's own, so the stand-in answers exactly as the
    adapter does. Building happens once, under a lock (the MCP worker and the query prefetch
    may both reach storage).
    """

    __slots__ = ("_build", "_built", "_lock")

    def __init__(self, build: Callable[[], object]) -> None:
        self._build: Callable[[], object] | None = build
        self._built: object = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.adapter(), name)

    def adapter(self) -> object:
        """The adapter, built now if this is the first use."""
        with self._lock:
            if self._build is not None:
                self._built = self._build()
                self._build = None
            return self._built

    def __repr__(self) -> str:
        return f"OnFirstUse({self._built!r})" if self._build is None else "OnFirstUse(unbuilt)"


def on_first_use(build: Callable[[], Port]) -> Port:
    """A stand-in typed as the port ``build`` returns (ports are structural protocols)."""
    return cast(Port, OnFirstUse(build))
