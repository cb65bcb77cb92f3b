"""``MemoryAssistLookup``: the write-time assists' questions in memory, on the pure twins.

The similarity is ``1 - f32_cosine_distance`` (sqlite-vec's float32 loop, to the bit), so both
backends report the same neighbours with the same values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memhtml.adapters.memory.tables import MemoryTables
from memhtml.domain.chunking import chunk_id_for
from memhtml.domain.near_duplicates import ranked_near
from memhtml.domain.vectors import f32_cosine_distance
from memhtml.domain.vocabulary import TASK_TYPE
from memhtml.ports.assist_lookup import FrameMatch, NearMatch, NearQuery


class MemoryAssistLookup:
    """The :class:`memhtml.ports.assist_lookup.AssistLookup` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Ask ``tables``."""
        self._t = tables

    def active_frames_for(self, keys: Sequence[str]) -> Mapping[str, tuple[FrameMatch, ...]]:
        """See ``AssistLookup.active_frames_for``."""
        wanted = set(keys)
        found: dict[str, list[FrameMatch]] = {}
        for path, row in sorted(self._t.files.items()):
            key = row.frame_key
            if key in wanted and not row.archived and row.memory_type != TASK_TYPE:
                found.setdefault(key, []).append(FrameMatch(path=path, gist=row.gist))
        return {key: tuple(found[key]) for key in sorted(found)}

    def first_chunk_vectors(self, paths: Sequence[str], *, model: str) -> Mapping[str, bytes]:
        """See ``AssistLookup.first_chunk_vectors``."""
        vectors: dict[str, bytes] = {}
        for path in dict.fromkeys(paths):
            row = self._t.files.get(path)
            blob = None if row is None else self._first_vector(row.content_hash, model)
            if blob is not None:
                vectors[path] = blob
        return vectors

    def active_nearest_for(
        self,
        queries: Sequence[NearQuery],
        *,
        model: str,
        floor: float,
        limit: int,
        exclude_types: Sequence[str] = (),
    ) -> tuple[tuple[NearMatch, ...], ...]:
        """See ``AssistLookup.active_nearest_for``."""
        excluded = set(exclude_types)
        live = []
        for path, row in self._t.files.items():
            if row.archived or row.memory_type in excluded:
                continue
            blob = self._first_vector(row.content_hash, model)
            if blob is not None:
                live.append((path, row.gist, blob))
        answers = []
        for query in queries:
            scored = []
            for path, gist, blob in live:
                distance = f32_cosine_distance(blob, query.vector)
                if distance is not None:
                    scored.append(NearMatch(path=path, gist=gist, similarity=1.0 - distance))
            own = () if query.own_path is None else (query.own_path,)
            answers.append(ranked_near(scored, floor=floor, limit=limit, excluded=own))
        return tuple(answers)

    def _first_vector(self, content_hash: str, model: str) -> bytes | None:
        chunk_id = chunk_id_for(content_hash, 0)
        vector = self._t.vectors.get(chunk_id) if chunk_id in self._t.chunks else None
        return vector.blob if vector is not None and vector.model == model else None
