"""Embeddings from Amazon Bedrock (Titan Text Embeddings v2, Cohere Embed v3): the optional extra.

boto3 is imported on the first call, through importlib: the ``bedrock`` extra may be absent,
and neither boto3 nor botocore ships type information for a static import to use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, ParamSpec, Protocol, TypeVar

from memhtml.adapters.bedrock.backoff import call_with_backoff
from memhtml.adapters.bedrock.payloads import (
    COHERE_DIM,
    COHERE_DOCUMENT,
    COHERE_MAX_TEXTS,
    COHERE_MODELS,
    COHERE_QUERY,
    SUPPORTED_MODELS,
    TITAN_DEFAULT_DIM,
    TITAN_DIMENSIONS,
    TITAN_V2,
    cohere_request,
    cohere_vectors,
    titan_request,
    titan_vector,
)
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import ModelUnavailable

T = TypeVar("T")
P = ParamSpec("P")

DEFAULT_REGION: Final = "us-east-1"
_CONNECT_TIMEOUT_S: Final = 5
_READ_TIMEOUT_S: Final = 60
_INVOKE: Final = "invoke bedrock model"


class BedrockRuntimeClient(Protocol):
    """The one call we make on a boto3 ``bedrock-runtime`` client."""

    def invoke_model(self, **kwargs: Any) -> Mapping[str, Any]:
        """Bedrock's InvokeModel; the response's ``body`` is a stream of the model's JSON."""
        ...


class BedrockEmbedder:
    """Embeds through Bedrock; implements ``Embedder`` and ``QueryEmbedder``.

    Titan is called once per text, Cohere with up to 96 texts per call. A blank text never
    leaves the process: Titan refuses an empty input, and a text with no words has no meaning
    to place, so it maps to the first basis vector (the hashing embedder's convention).
    """

    def __init__(
        self,
        *,
        model_id: str = TITAN_V2,
        region: str = DEFAULT_REGION,
        dimensions: int | None = None,
        client: BedrockRuntimeClient | None = None,
    ) -> None:
        """Prepare, without importing boto3 or contacting AWS.

        Args:
            model_id: One of ``SUPPORTED_MODELS``.
            region: The AWS region whose Bedrock endpoint serves the model.
            dimensions: Titan only: 256, 512 or 1024 (default 1024). Cohere v3 is always 1024.
            client: A ready ``bedrock-runtime`` client; tests pass a stubbed one.

        Raises:
            ValueError: Unknown model or a dimension the model cannot produce.
        """
        if model_id not in SUPPORTED_MODELS:
            raise ValueError(f"unsupported Bedrock embedding model {model_id!r}")
        if model_id in COHERE_MODELS:
            if dimensions not in (None, COHERE_DIM):
                raise ValueError(f"{model_id} produces {COHERE_DIM} dimensions only")
            dim = COHERE_DIM
        else:
            dim = TITAN_DEFAULT_DIM if dimensions is None else dimensions
            if dim not in TITAN_DIMENSIONS:
                raise ValueError(f"{model_id} produces 256, 512 or 1024 dimensions")
        self._model_id = model_id
        self._region = region
        self._dim = dim
        self._client = client

    @property
    def dim(self) -> int:
        """Vector length."""
        return self._dim

    @property
    def watermark(self) -> str:
        """``<model-id>@<dim>``, e.g. ``amazon.titan-embed-text-v2:0@1024``."""
        return f"{self._model_id}@{self._dim}"

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One unit vector per text, in input order, as stored documents.

        Raises:
            ModelUnavailable: boto3 is missing, AWS refused or kept throttling, or the answer
                was malformed; never a partial batch.
        """
        return self._embed(texts, COHERE_DOCUMENT)

    def embed_query(self, text: str) -> Vector:
        """One unit vector for a search query (Cohere's ``search_query`` side of the space).

        Raises:
            ModelUnavailable: As for :meth:`embed`.
        """
        return self._embed([text], COHERE_QUERY)[0]

    def _embed(self, texts: Sequence[str], input_type: str) -> tuple[Vector, ...]:
        blank: Vector = (1.0,) + (0.0,) * (self._dim - 1)
        out: list[Vector] = [blank] * len(texts)
        pending = [i for i, t in enumerate(texts) if t.strip()]
        if self._model_id in COHERE_MODELS:
            for start in range(0, len(pending), COHERE_MAX_TEXTS):
                group = pending[start : start + COHERE_MAX_TEXTS]
                body = cohere_request([texts[i] for i in group], input_type)
                payload = self._invoke(body)
                vectors = _parsed(cohere_vectors, payload, len(group), self._dim)
                for i, vector in zip(group, vectors, strict=True):
                    out[i] = vector
        else:
            for i in pending:
                payload = self._invoke(titan_request(texts[i], self._dim))
                out[i] = _parsed(titan_vector, payload, self._dim)
        return tuple(out)

    def _invoke(self, body: str) -> bytes:
        client = self._runtime_client()
        errors = _driver_errors()

        def call() -> bytes:
            response = client.invoke_model(
                modelId=self._model_id,
                body=body,
                contentType="application/json",
                accept="application/json",
            )
            data = response["body"].read()
            return bytes(data)

        return call_with_backoff(call, operation=_INVOKE, driver_errors=errors)

    def _runtime_client(self) -> BedrockRuntimeClient:
        if self._client is None:
            try:
                boto3 = importlib.import_module("boto3")
                config = importlib.import_module("botocore.config").Config(
                    # One attempt per call: call_with_backoff owns retrying, and two nested
                    # retry loops would multiply the worst-case wait.
                    retries={"total_max_attempts": 1, "mode": "standard"},
                    connect_timeout=_CONNECT_TIMEOUT_S,
                    read_timeout=_READ_TIMEOUT_S,
                )
            except ModuleNotFoundError as e:
                raise ModelUnavailable("import boto3: install memhtml[bedrock]") from e
            try:
                self._client = boto3.client(
                    "bedrock-runtime", region_name=self._region, config=config
                )
            except _driver_errors() as e:
                raise ModelUnavailable("create bedrock client") from e
        return self._client


def _driver_errors() -> tuple[type[BaseException], ...]:
    """botocore's two exception roots: service answers and client-side failures."""
    exceptions = importlib.import_module("botocore.exceptions")
    return (exceptions.ClientError, exceptions.BotoCoreError)


def _parsed(parse: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a payload parser, turning a malformed answer into the port's error."""
    try:
        return parse(*args, **kwargs)
    except ValueError as e:
        raise ModelUnavailable("parse bedrock response") from e
