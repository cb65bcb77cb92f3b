"""The core of the Python facade: the wired services, the ports each plane's use cases take,
and the store's lifetime (close, ``with``).

The facade's methods live by plane in ``reads.py``, ``writes.py`` and ``upkeep.py``; each is a
one-call hand-off to a use case, so the planes share only what is here.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from memhtml.app.bootstrap import Services

if TYPE_CHECKING:
    from memhtml.app.use_cases.collaborators import WriteDeps
    from memhtml.app.use_cases.read import ReadPorts


class StoreCore:
    """One open memory store's services and lifetime; :class:`~memhtml.app.store.Store` adds
    the methods."""

    def __init__(self, services: Services) -> None:
        """Wrap wired services; :func:`open_store` is the constructor callers use."""
        from memhtml.app.use_cases.known_at import PastVersionMemo

        self.services = services
        self._past_memo = PastVersionMemo()
        # A store nobody closes is closed when it is collected, or at the latest as the
        # interpreter exits, while modules still work: dulwich's own finalizers would otherwise
        # run during teardown and print "sys.meta_path is None" warnings. Runs at most once.
        self._closer = weakref.finalize(self, services.close)

    @property
    def root(self) -> Path:
        """The store's working tree."""
        return self.services.settings.root

    def write_deps(self, *, embed: bool | None = None) -> WriteDeps:
        """The ports every mutating use case takes; ``embed`` overrides the store's setting."""
        from memhtml.app.use_cases.collaborators import WriteDeps

        s = self.services
        return WriteDeps(
            git=s.git,
            writer=s.writer,
            recorder=s.storage.recorder,
            indexer=s.indexer,
            clock=s.clock,
            codec=s.codec,
            assists=s.storage.assists,
            embed=s.embeds if embed is None else embed,
            embedder=s.embedder,
            write_lock=s.write_lock,
            request_id=s.settings.request_id,
        )

    def read_ports(self) -> ReadPorts:
        """The ports the read-side use cases take."""
        from memhtml.app.use_cases.read import ReadPorts

        s = self.services
        return ReadPorts(
            git=s.git,
            indexer=s.indexer,
            retrieval=s.retrieval,
            recorder=s.storage.recorder,
            clock=s.clock,
            parse=s.parse,
            embed=s.embeds,
            links=s.storage.links,
            vector_floor=s.settings.embed.vector_coverage_floor,
            history=s.storage.history,
            fts_tokenizer=s.settings.fts_tokenizer,
            past_memo=self._past_memo,
            prefetch_query=None if s.query_embedder is None else s.query_embedder.prefetch,
        )

    def close(self) -> None:
        """Release the storage; a second call does nothing."""
        self._closer()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
