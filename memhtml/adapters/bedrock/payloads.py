"""The request and response bodies of the Bedrock embedding models we support, as pure functions.

Titan Text Embeddings v2 takes one text per call; Cohere Embed v3 takes up to 96. Both bodies
are JSON; nothing here touches the network, so every rule below is testable on its own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Final

from memhtml.ports.embedder import Vector

TITAN_V2: Final = "amazon.titan-embed-text-v2:0"
COHERE_ENGLISH_V3: Final = "cohere.embed-english-v3"
COHERE_MULTILINGUAL_V3: Final = "cohere.embed-multilingual-v3"
COHERE_MODELS: Final = frozenset({COHERE_ENGLISH_V3, COHERE_MULTILINGUAL_V3})
SUPPORTED_MODELS: Final = frozenset({TITAN_V2}) | COHERE_MODELS

TITAN_DIMENSIONS: Final = frozenset({256, 512, 1024})
TITAN_DEFAULT_DIM: Final = 1024
COHERE_DIM: Final = 1024
COHERE_MAX_TEXTS: Final = 96
# Cohere refuses a text over 2,048 characters outright; its `truncate: END` only covers the
# token limit, so the character cut has to happen here.
COHERE_MAX_CHARS: Final = 2048
# Titan accepts 8,192 tokens. Our chunks stay under 1,800 UTF-16 units, so this cut only
# touches callers outside the chunker; at 4,096 characters even a script that costs two tokens
# per character stays under the limit instead of failing the whole batch.
TITAN_MAX_CHARS: Final = 4096
COHERE_DOCUMENT: Final = "search_document"
COHERE_QUERY: Final = "search_query"


def titan_request(text: str, dimensions: int) -> str:
    """The InvokeModel body for one Titan v2 embedding, with server-side normalisation on."""
    return json.dumps(
        {"inputText": text[:TITAN_MAX_CHARS], "dimensions": dimensions, "normalize": True},
        ensure_ascii=False,
    )


def cohere_request(texts: Sequence[str], input_type: str) -> str:
    """The InvokeModel body for up to ``COHERE_MAX_TEXTS`` Cohere v3 embeddings.

    ``input_type`` is ``search_document`` for stored chunks and ``search_query`` for queries:
    Cohere v3 places the two in one space only when each side says which it is.
    """
    if len(texts) > COHERE_MAX_TEXTS:
        raise ValueError(f"Cohere takes at most {COHERE_MAX_TEXTS} texts per call")
    return json.dumps(
        {
            "texts": [t[:COHERE_MAX_CHARS] for t in texts],
            "input_type": input_type,
            "truncate": "END",
        },
        ensure_ascii=False,
    )


def titan_vector(payload: bytes, dim: int) -> Vector:
    """The unit vector in a Titan v2 response body.

    Raises:
        ValueError: The body is not JSON with an ``embedding`` of ``dim`` finite numbers.
    """
    body = json.loads(payload)
    if not isinstance(body, dict):
        raise ValueError("response is not a JSON object")
    return unit_vector(_numbers(body.get("embedding"), dim))


def cohere_vectors(payload: bytes, count: int, dim: int) -> tuple[Vector, ...]:
    """The ``count`` unit vectors in a Cohere v3 float response body, in request order.

    Cohere's vectors are not unit length; they are normalised here like every other.

    Raises:
        ValueError: The body does not hold ``count`` embeddings of ``dim`` finite numbers.
    """
    body = json.loads(payload)
    rows = body.get("embeddings") if isinstance(body, dict) else None
    if not isinstance(rows, list) or len(rows) != count:
        raise ValueError("response does not hold one embedding per text")
    return tuple(unit_vector(_numbers(row, dim)) for row in rows)


def unit_vector(values: Sequence[float]) -> Vector:
    """``values`` scaled to length 1; an all-zero vector becomes the first basis vector.

    Re-normalising Titan's already-normalised output too keeps the port's unit-norm promise
    exact after the round trip through JSON text.

    Raises:
        ValueError: Empty, or holding NaN or infinity.
    """
    if not values or not all(math.isfinite(x) for x in values):
        raise ValueError("embedding is empty or not finite")
    # Dividing by the largest magnitude first keeps x * x from overflowing (or underflowing)
    # for extreme components, which would otherwise return zeros instead of a unit vector.
    largest = max(abs(x) for x in values)
    if largest == 0.0:
        return (1.0,) + (0.0,) * (len(values) - 1)
    scaled = [x / largest for x in values]
    norm = math.sqrt(math.fsum(x * x for x in scaled))
    return tuple(x / norm for x in scaled)


def _numbers(row: object, dim: int) -> list[float]:
    if not isinstance(row, list) or len(row) != dim:
        raise ValueError("embedding has the wrong shape")
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in row):
        raise ValueError("embedding holds a non-number")
    return [float(x) for x in row]
