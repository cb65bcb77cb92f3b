"""The facade's reads: one memory, its source and neighbours, a listing, search, recall, and
the salience bumps a reader reports back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memhtml.app.store.core import StoreCore

if TYPE_CHECKING:
    from memhtml.app.use_cases.listing import ListRequest, ListResult
    from memhtml.app.use_cases.memory_source import MemorySource
    from memhtml.app.use_cases.neighbors import NeighborsResult
    from memhtml.app.use_cases.read import ReadResult
    from memhtml.app.use_cases.retrieval_ops import RecallAnswer, ReinforceAnswer, SearchAnswer
    from memhtml.domain.reinforce import Signal
    from memhtml.ports.retrieval import RecallRequest, SearchRequest


class StoreReads(StoreCore):
    """Read-side methods of :class:`~memhtml.app.store.Store`."""

    def read(
        self,
        path: str,
        *,
        session_id: str | None = None,
        prompt_id: str | None = None,
        turn_uuid: str | None = None,
        known_at: str | None = None,
    ) -> ReadResult:
        """Read one memory and bump its salience (cooldown applies); with ``known_at`` (a
        normalised UTC stamp), read it as the store knew it then, from git, bumping nothing."""
        from memhtml.app.use_cases.read import read_with

        return read_with(
            self.read_ports(),
            path,
            session_id=session_id,
            prompt_id=prompt_id,
            turn_uuid=turn_uuid,
            known_at=known_at,
        )

    def source(self, path: str, *, commit: str | None = None) -> MemorySource:
        """A memory file's HTML now (or at ``commit``); no parse, no freshness pass, no bump."""
        from memhtml.app.use_cases.memory_source import memory_source

        return memory_source(self.services.git, path, commit=commit)

    def neighbors(
        self, path: str, *, depth: int = 1, relations: Sequence[str] | None = None
    ) -> NeighborsResult:
        """The links around one memory, out to ``depth`` hops; ``relations`` narrows them."""
        from memhtml.app.use_cases.neighbors import NeighborPorts, neighbors_with

        s = self.services
        ports = NeighborPorts(
            links=s.storage.links,
            candidates=s.storage.candidates,
            indexer=s.indexer,
            embed=s.embeds,
        )
        return neighbors_with(ports, path, depth=depth, relations=relations)

    def list(self, request: ListRequest | None = None) -> ListResult:
        """One path-ordered page of memories; no salience."""
        from memhtml.app.use_cases.listing import KnownAtListing, ListRequest, list_with

        s = self.services
        known = KnownAtListing(
            history=s.storage.history,
            git=s.git,
            parse=s.parse,
            tokenizer=s.settings.fts_tokenizer,
            memo=self._past_memo,
        )
        return list_with(
            s.indexer, s.storage.lister, request or ListRequest(), embed=s.embeds, known=known
        )

    def search(self, request: SearchRequest | str, *, known_at: str | None = None) -> SearchAnswer:
        """Fused search; a plain string searches with the default scope and limit. With
        ``known_at`` (a normalised UTC stamp), what the store knew then."""
        from memhtml.app.use_cases.retrieval_ops import search_with
        from memhtml.ports.retrieval import SearchRequest

        if isinstance(request, str):
            request = SearchRequest(query=request)
        return search_with(self.read_ports(), request, known_at=known_at)

    def recall(self, request: RecallRequest | str, *, known_at: str | None = None) -> RecallAnswer:
        """The recall pack; a plain string recalls with the default scope and budget. With
        ``known_at`` (a normalised UTC stamp), from what the store knew then."""
        from memhtml.app.use_cases.retrieval_ops import recall_with
        from memhtml.ports.retrieval import RecallRequest

        if isinstance(request, str):
            request = RecallRequest(query=request)
        return recall_with(self.read_ports(), request, known_at=known_at)

    def reinforce(
        self,
        paths: Sequence[str],
        signal: Signal | str = "neutral",
        *,
        session_id: str | None = None,
        prompt_id: str | None = None,
        turn_uuid: str | None = None,
    ) -> ReinforceAnswer:
        """Bump memories by path; non-neutral signals move their outcome."""
        from memhtml.app.use_cases.retrieval_ops import reinforce_with

        return reinforce_with(
            self.read_ports(),
            paths,
            signal,
            session_id=session_id,
            prompt_id=prompt_id,
            turn_uuid=turn_uuid,
        )
