"""Embedding settings read from the environment, validated once, as one frozen value.

An empty variable counts as unset, so ``MEMHTML_EMBED= memhtml …`` means the default rather than
an error. Only the settings of the chosen backend are validated: a user who flips
``MEMHTML_EMBED`` between ``local``, ``e5`` and ``bedrock`` keeps the other backends' settings
around.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final, Literal

import attrs

from memhtml.adapters.bedrock import DEFAULT_REGION, SUPPORTED_MODELS, TITAN_V2
from memhtml.adapters.bedrock.payloads import COHERE_DIM, TITAN_DIMENSIONS
from memhtml.adapters.e5.identity import E5_MODEL_ID
from memhtml.adapters.local.model_files import MINILM_MODEL_ID
from memhtml.domain.errors import InvalidInput
from memhtml.domain.snippets import VECTOR_COVERAGE_FLOOR

EmbedBackend = Literal["local", "e5", "bedrock", "off"]

ENV_EMBED: Final = "MEMHTML_EMBED"
ENV_EMBED_MODEL: Final = "MEMHTML_EMBED_MODEL"
ENV_EMBED_MODEL_DIR: Final = "MEMHTML_EMBED_MODEL_DIR"
ENV_EMBED_DIM: Final = "MEMHTML_EMBED_DIM"
ENV_EMBED_THREADS: Final = "MEMHTML_EMBED_THREADS"
ENV_AWS_REGION: Final = "MEMHTML_AWS_REGION"
ENV_VECTOR_COVERAGE_FLOOR: Final = "MEMHTML_VECTOR_COVERAGE_FLOOR"

DEFAULT_BACKEND: Final[EmbedBackend] = "local"
# `on` is the original spelling of the default backend (docs/cli-contract.md §5), kept so old
# scripts keep working.
_BACKEND_ALIASES: Final[Mapping[str, EmbedBackend]] = {
    "local": "local",
    "on": "local",
    "e5": "e5",
    "bedrock": "bedrock",
    "off": "off",
}
_REGION: Final = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]+")
_POSITIVE_INT: Final = re.compile(r"[0-9]+")
# More threads than any CPU we run on: a larger number is a typo, not a tuning choice.
MAX_EMBED_THREADS: Final = 256


@attrs.frozen(kw_only=True)
class EmbedSettings:
    """Which embedder to build and how; ``off`` is a deliberate lexical-only store.

    ``off`` is healthy, not degraded by accident: it keeps the default watermark
    (``all-MiniLM-L6-v2-int8@384``) and writes no vectors, so switching between ``off`` and
    ``local`` needs no rebuild (docs/decisions.md §21).

    Attributes:
        backend: ``local`` (default), ``e5`` (multilingual-e5-small through the optional
            ``e5`` extra), ``bedrock`` or ``off``.
        model_id: Bedrock model id, or the local model's id (MiniLM's or e5's).
        model_dir: Local only: a directory with ``model.onnx`` and ``tokenizer.json`` that
            replaces the bundled model (watermark ``<dir name>@<dim>``).
        dimensions: Bedrock Titan only: 256, 512 or 1024; ``None`` means the model's default.
        region: Bedrock only: the AWS region.
        threads: Local and e5: inference threads (onnxruntime's, OpenMP's); ``None`` means
            ``min(2, CPU count)``.
        vector_coverage_floor: Share of chunks with vectors below which search drops the
            vector arm and doctor reports low coverage.
    """

    backend: EmbedBackend = DEFAULT_BACKEND
    model_id: str = MINILM_MODEL_ID
    model_dir: Path | None = None
    dimensions: int | None = None
    region: str = DEFAULT_REGION
    threads: int | None = None
    vector_coverage_floor: float = VECTOR_COVERAGE_FLOOR

    @property
    def writes_vectors(self) -> bool:
        """False only for ``off``, the lexical-only store."""
        return self.backend != "off"


def read_embed_settings(environ: Mapping[str, str]) -> EmbedSettings:
    """Parse the embedding variables of ``environ`` (usually ``os.environ``).

    Raises:
        InvalidInput: A variable holds a value it cannot take; the message names the
            variable and the accepted values.
    """
    env = {k: v.strip() for k, v in environ.items() if k.startswith("MEMHTML_") and v.strip()}
    backend = _backend(env.get(ENV_EMBED))
    floor = _coverage_floor(env.get(ENV_VECTOR_COVERAGE_FLOOR))
    if backend == "bedrock":
        model_id = env.get(ENV_EMBED_MODEL, TITAN_V2)
        if model_id not in SUPPORTED_MODELS:
            raise InvalidInput(
                f"{ENV_EMBED_MODEL}={model_id!r} is not a supported Bedrock embedding model; "
                f"use one of {', '.join(sorted(SUPPORTED_MODELS))}"
            )
        return EmbedSettings(
            backend=backend,
            model_id=model_id,
            dimensions=_dimensions(env.get(ENV_EMBED_DIM), model_id),
            region=_region(env.get(ENV_AWS_REGION)),
            vector_coverage_floor=floor,
        )
    if backend == "local":
        model_id = env.get(ENV_EMBED_MODEL, MINILM_MODEL_ID)
        if model_id != MINILM_MODEL_ID:
            raise InvalidInput(
                f"{ENV_EMBED_MODEL}={model_id!r}: the local backend runs {MINILM_MODEL_ID}; "
                f"point {ENV_EMBED_MODEL_DIR} at a directory to run another model"
            )
        return EmbedSettings(
            backend=backend,
            model_dir=_model_dir(env.get(ENV_EMBED_MODEL_DIR)),
            threads=_threads(env.get(ENV_EMBED_THREADS)),
            vector_coverage_floor=floor,
        )
    if backend == "e5":
        model_id = env.get(ENV_EMBED_MODEL, E5_MODEL_ID)
        if model_id != E5_MODEL_ID:
            raise InvalidInput(
                f"{ENV_EMBED_MODEL}={model_id!r}: the e5 backend runs {E5_MODEL_ID} only"
            )
        return EmbedSettings(
            backend=backend,
            model_id=model_id,
            threads=_threads(env.get(ENV_EMBED_THREADS)),
            vector_coverage_floor=floor,
        )
    return EmbedSettings(backend=backend, vector_coverage_floor=floor)


def _backend(raw: str | None) -> EmbedBackend:
    if raw is None:
        return DEFAULT_BACKEND
    backend = _BACKEND_ALIASES.get(raw.lower())
    if backend is None:
        raise InvalidInput(f"{ENV_EMBED}={raw!r}: use local, e5, bedrock or off")
    return backend


def _coverage_floor(raw: str | None) -> float:
    if raw is None:
        return VECTOR_COVERAGE_FLOOR
    try:
        floor = float(raw)
    except ValueError:
        floor = math.nan
    if not 0.0 <= floor <= 1.0:  # also refuses NaN, which compares false with everything
        raise InvalidInput(f"{ENV_VECTOR_COVERAGE_FLOOR}={raw!r}: use a number from 0 to 1")
    return floor


def _dimensions(raw: str | None, model_id: str) -> int | None:
    if raw is None:
        return None
    # The adapter's own lists, so configuration and adapter cannot disagree on a size.
    allowed = sorted(TITAN_DIMENSIONS) if model_id == TITAN_V2 else [COHERE_DIM]
    if raw not in {str(d) for d in allowed}:
        sizes = ", ".join(str(d) for d in allowed)
        raise InvalidInput(f"{ENV_EMBED_DIM}={raw!r}: {model_id} produces {sizes} dimensions")
    return int(raw)


def _region(raw: str | None) -> str:
    if raw is None:
        return DEFAULT_REGION
    if not _REGION.fullmatch(raw):
        raise InvalidInput(f"{ENV_AWS_REGION}={raw!r}: use an AWS region name like us-east-1")
    return raw


def _model_dir(raw: str | None) -> Path | None:
    if raw is None:
        return None
    path = Path(raw).expanduser()
    if not path.is_dir():
        raise InvalidInput(
            f"{ENV_EMBED_MODEL_DIR}={raw!r}: not a directory; it must hold model.onnx "
            "and tokenizer.json"
        )
    return path


def _threads(raw: str | None) -> int | None:
    if raw is None:
        return None
    if not _POSITIVE_INT.fullmatch(raw) or not 1 <= int(raw) <= MAX_EMBED_THREADS:
        raise InvalidInput(
            f"{ENV_EMBED_THREADS}={raw!r}: use a whole number from 1 to {MAX_EMBED_THREADS}"
        )
    return int(raw)
