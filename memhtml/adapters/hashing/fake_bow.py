"""``fake-bow@1024``: the bag-of-words embedder the discrimination gate's fake mode runs on.

docs/evaluation.md §A.2 fixes it exactly (each lowercased token adds +1.0 and +0.5 to two
sha256-chosen slots of 1024, then L2-normalise), so fake-mode numbers mean the same thing in every
build. No bigrams and no signs, unlike :class:`HashingEmbedder`: a single inserted word moves a
vector by a small, predictable amount, which is what the gate's controls are about.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from memhtml.ports.embedder import Vector

FAKE_BOW_MODEL_ID: Final = "fake-bow"
FAKE_BOW_DIM: Final = 1024
FIRST_SLOT_WEIGHT: Final = 1.0
SECOND_SLOT_WEIGHT: Final = 0.5
# Letters and digits in any script (`[\p{L}\p{N}]+` without the `regex` package).
_TOKEN: Final = re.compile(r"[^\W_]+")
_SLOT_BYTES: Final = 4


@lru_cache(maxsize=65_536)
def token_slots(token: str) -> tuple[int, int]:
    """The two slots a token feeds: the first two 32-bit words of its sha256, mod 1024."""
    digest = hashlib.sha256(token.encode("utf-8")).digest()
    first = int.from_bytes(digest[:_SLOT_BYTES], "big") % FAKE_BOW_DIM
    second = int.from_bytes(digest[_SLOT_BYTES : 2 * _SLOT_BYTES], "big") % FAKE_BOW_DIM
    return first, second


class FakeBowEmbedder:
    """Bag-of-words feature hashing into 1024 slots; deterministic, offline, no model.

    An empty text (no token) maps to the first basis vector, so every output has unit norm.
    """

    @property
    def dim(self) -> int:
        """Vector length: 1024."""
        return FAKE_BOW_DIM

    @property
    def watermark(self) -> str:
        """``fake-bow@1024``."""
        return f"{FAKE_BOW_MODEL_ID}@{FAKE_BOW_DIM}"

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One vector per text, in order."""
        return tuple(self._one(text) for text in texts)

    def embed_query(self, text: str) -> Vector:
        """The same mapping as documents: queries and documents share one space."""
        return self._one(text)

    def _one(self, text: str) -> Vector:
        acc = [0.0] * FAKE_BOW_DIM
        for token in _TOKEN.findall(text.lower()):
            first, second = token_slots(token)
            acc[first] += FIRST_SLOT_WEIGHT
            acc[second] += SECOND_SLOT_WEIGHT
        norm = math.sqrt(math.fsum(x * x for x in acc))
        if norm == 0.0:
            return (1.0,) + (0.0,) * (FAKE_BOW_DIM - 1)
        return tuple(x / norm for x in acc)
