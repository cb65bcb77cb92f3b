"""Feature-hashing embedder: deterministic, offline, dependency-free.

It gives the index and retrieval real vectors to store and compare without a model, so tests
and the ``--mode fake`` evaluation exercise every vector path. Texts sharing words land close;
it knows nothing of paraphrase, which is what the local model is for.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections.abc import Sequence
from typing import Final

from memhtml.ports.embedder import Vector

HASHING_MODEL_ID: Final = "memhtml-hashing-v1"
DEFAULT_HASHING_DIM: Final = 256
_TOKEN = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Signed feature hashing of lowercased word tokens and their bigrams, L2-normalised.

    Uses blake2b rather than ``hash()`` so vectors are identical across processes (Python
    salts ``hash`` of strings per run). An empty text maps to the first basis vector, so every
    output has unit norm.
    """

    def __init__(self, dim: int = DEFAULT_HASHING_DIM) -> None:
        if dim < 2:
            raise ValueError("dim must be at least 2")
        self._dim = dim

    @property
    def dim(self) -> int:
        """Vector length."""
        return self._dim

    @property
    def watermark(self) -> str:
        """``memhtml-hashing-v1@<dim>``."""
        return f"{HASHING_MODEL_ID}@{self._dim}"

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One vector per text, in order."""
        return tuple(self._one(text) for text in texts)

    def embed_query(self, text: str) -> Vector:
        """The same mapping as documents: queries and documents share one space."""
        return self._one(text)

    def _one(self, text: str) -> Vector:
        words = [w.lower() for w in _TOKEN.findall(text)]
        features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
        acc = [0.0] * self._dim
        for feature in features:
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self._dim
            acc[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in acc))
        if norm == 0.0:
            return (1.0,) + (0.0,) * (self._dim - 1)
        return tuple(x / norm for x in acc)
