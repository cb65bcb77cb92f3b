"""The write-time assists' questions to storage: live claims on a frame key, and the live
memories embedding-near a vector (docs/cli-contract.md §3.8).

Both are asked once per write batch, never once per written memory: a batch of N memories
asking N questions is the quadratic write cost the assists must not add.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import attrs


@attrs.frozen(kw_only=True)
class FrameMatch:
    """A live claim on a frame key.

    The gist travels with the path: two claims on one key differ in their values, and a caller
    handed paths alone would re-read each file to say what the disagreement is.
    """

    path: str
    gist: str


@attrs.frozen(kw_only=True)
class NearQuery:
    """One vector to find neighbours of.

    Attributes:
        vector: Little-endian float32 components, as stored.
        own_path: A memory never reported as its own neighbour (the written memory itself),
            or ``None``.
    """

    vector: bytes
    own_path: str | None = None


@attrs.frozen(kw_only=True)
class NearMatch:
    """A live memory whose first-chunk vector is near a query.

    ``similarity`` travels because the floor is the caller's policy: a consumer choosing
    between noting and acting needs the measured value, not only that it passed.
    """

    path: str
    gist: str
    similarity: float


class AssistLookup(Protocol):
    """The conflict and near-duplicate assists' substrate.

    A frame claim is live as the content-hash dedup means it: not archived, type not ``task``
    (a task's numbers are its plan, not a fact). A near neighbour is any memory not archived
    whose type the caller does not exclude. Every storage error surfaces as
    ``StorageFailure`` naming the operation only.
    """

    def active_frames_for(self, keys: Sequence[str]) -> Mapping[str, tuple[FrameMatch, ...]]:
        """For each key some live memory holds, those memories by path; keys nobody holds are
        absent. One query for the whole set.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def first_chunk_vectors(self, paths: Sequence[str], *, model: str) -> Mapping[str, bytes]:
        """The vector in space ``model`` of each listed memory's first chunk (ordinal 0 of its
        content); memories without one are absent.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def active_nearest_for(
        self,
        queries: Sequence[NearQuery],
        *,
        model: str,
        floor: float,
        limit: int,
        exclude_types: Sequence[str] = (),
    ) -> tuple[tuple[NearMatch, ...], ...]:
        """For each query, in query order, the live memories whose first-chunk vector in
        ``model`` has cosine similarity at or above ``floor``: most similar first, path order
        on ties, at most ``limit``. The live memories' vectors are read once for every query.

        Similarity is ``1 - vec_distance_cosine`` (sqlite-vec's float32 loop); a memory of a
        type in ``exclude_types`` (``arc``: a synthesis is no duplicate of its members) or the
        query's ``own_path`` is never reported.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
