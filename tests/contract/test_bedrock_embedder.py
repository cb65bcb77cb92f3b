"""The Bedrock embedder against botocore's Stubber: request bodies, batching, retries, failures.

No test here reaches the network except the one marked ``live``, which skips itself when no AWS
credentials are configured.
"""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# botocore ships no type information.
from botocore.exceptions import ClientError  # type: ignore[import-untyped]
from botocore.response import StreamingBody  # type: ignore[import-untyped]
from botocore.session import get_session  # type: ignore[import-untyped]
from botocore.stub import Stubber  # type: ignore[import-untyped]
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.bedrock import (
    COHERE_ENGLISH_V3,
    COHERE_MULTILINGUAL_V3,
    TITAN_V2,
    BedrockEmbedder,
    set_testing,
)
from memhtml.adapters.bedrock.backoff import (
    BACKOFF_BASE_S,
    BACKOFF_CAP_S,
    MAX_ATTEMPTS,
    backoff_delay,
    error_code,
    is_testing,
)
from memhtml.adapters.bedrock.payloads import (
    COHERE_MAX_CHARS,
    COHERE_MAX_TEXTS,
    TITAN_MAX_CHARS,
    cohere_request,
    titan_request,
    unit_vector,
)
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.ports.errors import ModelUnavailable

_JSON = "application/json"


def _stream(payload: dict[str, Any]) -> StreamingBody:
    data = json.dumps(payload).encode()
    return StreamingBody(io.BytesIO(data), len(data))


def _runtime_client() -> Any:
    """A real bedrock-runtime client with dummy keys; Stubber keeps every call local."""
    return get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


class FakeBedrockService:
    """Answers each InvokeModel through Stubber with a response computed from that request.

    A hook on ``provide-client-params`` (which botocore emits before Stubber looks at its queue)
    queues one answer per call, just in time: feature-hashed vectors of the request's texts,
    Cohere's scaled off unit length as the real service's are. Requests the real service would
    refuse (blank Titan input, too many or too long Cohere texts) get a ValidationException.
    """

    def __init__(self) -> None:
        self.client = _runtime_client()
        self.stubber = Stubber(self.client)
        self.requests: list[dict[str, Any]] = []
        self.client.meta.events.register(
            "provide-client-params.bedrock-runtime.InvokeModel", self._answer
        )
        self.stubber.activate()

    def _answer(self, params: dict[str, Any], **_: Any) -> None:
        request = json.loads(params["body"])
        self.requests.append(request)
        if params["modelId"] == TITAN_V2:
            text = request["inputText"]
            if not text or len(text) > 50_000:
                self._refuse()
                return
            vector = HashingEmbedder(request["dimensions"]).embed_query(text)
            body: dict[str, Any] = {"embedding": list(vector), "inputTextTokenCount": 3}
        else:
            texts = request["texts"]
            if len(texts) > COHERE_MAX_TEXTS or any(len(t) > COHERE_MAX_CHARS for t in texts):
                self._refuse()
                return
            side = "q:" if request["input_type"] == "search_query" else "d:"
            hashing = HashingEmbedder(1024)
            rows = [[x * (2.0 + len(t) % 7) for x in hashing.embed_query(side + t)] for t in texts]
            body = {"embeddings": rows, "id": "fake", "response_type": "embeddings_floats"}
        self.stubber.add_response("invoke_model", {"body": _stream(body), "contentType": _JSON})

    def _refuse(self) -> None:
        self.stubber.add_client_error(
            "invoke_model", service_error_code="ValidationException", http_status_code=400
        )


def stubbed_bedrock(model_id: str, dimensions: int | None = None) -> BedrockEmbedder:
    """A BedrockEmbedder whose client is answered by a FakeBedrockService."""
    return BedrockEmbedder(
        model_id=model_id, dimensions=dimensions, client=FakeBedrockService().client
    )


@pytest.fixture(autouse=True)
def no_sleeping() -> Iterator[None]:
    """Retries run for real but never wait, and the switch is restored afterwards."""
    set_testing(True)
    yield
    set_testing(False)


@pytest.fixture
def stubber_client() -> Iterator[tuple[Stubber, Any]]:
    """A client with an exact-expectation Stubber; every queued answer must be consumed."""
    client = _runtime_client()
    with Stubber(client) as stubber:
        yield stubber, client
        stubber.assert_no_pending_responses()


def _titan_call(text: str, dim: int = 1024) -> dict[str, Any]:
    return {
        "modelId": TITAN_V2,
        "body": titan_request(text, dim),
        "contentType": _JSON,
        "accept": _JSON,
    }


def _norm(v: tuple[float, ...]) -> float:
    return math.sqrt(math.fsum(x * x for x in v))


# --- request shapes -----------------------------------------------------------------------------


def test_titan_request_is_one_text_normalised_at_the_chosen_size(
    stubber_client: tuple[Stubber, Any],
) -> None:
    """Titan gets inputText, dimensions and normalize=true; the answer comes back unit length."""
    stubber, client = stubber_client
    stubber.add_response(
        "invoke_model",
        {"body": _stream({"embedding": [3.0, 4.0] + [0.0] * 254}), "contentType": _JSON},
        _titan_call("hello", 256),
    )
    vector = BedrockEmbedder(dimensions=256, client=client).embed(["hello"])[0]
    assert (0.6, 0.8, 256) == (vector[0], vector[1], len(vector))
    assert {"inputText": "hello", "dimensions": 256, "normalize": True} == json.loads(
        titan_request("hello", 256)
    )


def test_cohere_batches_96_texts_per_call_as_documents() -> None:
    """200 texts go out as 96 + 96 + 8, each call tagged search_document with truncate END."""
    embedder = BedrockEmbedder(
        model_id=COHERE_ENGLISH_V3, client=(service := FakeBedrockService()).client
    )
    vectors = embedder.embed([f"memory {i}" for i in range(200)])
    shapes = [(len(r["texts"]), r["input_type"], r["truncate"]) for r in service.requests]
    expected = [
        (96, "search_document", "END"),
        (96, "search_document", "END"),
        (8, "search_document", "END"),
    ]
    assert (expected, 200) == (shapes, len(vectors))


def test_cohere_query_uses_the_query_side_and_is_normalised() -> None:
    """embed_query sends search_query; Cohere's non-unit vectors come back unit length."""
    service = FakeBedrockService()
    vector = BedrockEmbedder(model_id=COHERE_MULTILINGUAL_V3, client=service.client).embed_query(
        "x"
    )
    assert (["search_query"], True) == (
        [r["input_type"] for r in service.requests],
        abs(_norm(vector) - 1.0) < 1e-12,
    )


def test_blank_texts_never_leave_the_process() -> None:
    """Empty and whitespace-only texts map to e0 without a call; the rest keep their order."""
    service = FakeBedrockService()
    embedder = BedrockEmbedder(dimensions=256, client=service.client)
    vectors = embedder.embed(["", "real text", "  \n"])
    e0 = (1.0,) + (0.0,) * 255
    assert (1, e0, e0, vectors[1]) == (
        len(service.requests),
        vectors[0],
        vectors[2],
        embedder.embed(["real text"])[0],
    )


def test_long_texts_are_cut_to_each_models_limit() -> None:
    """Titan sees at most 4,096 characters and Cohere at most 2,048 per text."""
    long_text = "é" * 60_000
    titan, cohere = FakeBedrockService(), FakeBedrockService()
    BedrockEmbedder(client=titan.client).embed([long_text])
    BedrockEmbedder(model_id=COHERE_ENGLISH_V3, client=cohere.client).embed([long_text])
    assert (TITAN_MAX_CHARS, COHERE_MAX_CHARS) == (
        len(titan.requests[0]["inputText"]),
        len(cohere.requests[0]["texts"][0]),
    )


def test_watermarks_name_model_and_size() -> None:
    """The watermark is <model-id>@<dim> for each supported model."""
    assert [
        "amazon.titan-embed-text-v2:0@1024",
        "amazon.titan-embed-text-v2:0@512",
        "cohere.embed-english-v3@1024",
    ] == [
        BedrockEmbedder().watermark,
        BedrockEmbedder(dimensions=512).watermark,
        BedrockEmbedder(model_id=COHERE_ENGLISH_V3).watermark,
    ]


@pytest.mark.parametrize(
    ("model_id", "dimensions"),
    [("amazon.titan-embed-text-v1", None), (TITAN_V2, 384), (COHERE_ENGLISH_V3, 512)],
)
def test_unknown_model_or_size_is_refused(model_id: str, dimensions: int | None) -> None:
    """A model we do not speak, or a size it cannot produce, fails at construction."""
    with pytest.raises(ValueError, match=r"dimensions|unsupported"):
        BedrockEmbedder(model_id=model_id, dimensions=dimensions)


# --- retries and failures -----------------------------------------------------------------------


def test_throttling_is_retried_until_an_answer(stubber_client: tuple[Stubber, Any]) -> None:
    """Two throttles then an answer: the caller just gets the vector."""
    stubber, client = stubber_client
    for code in ("ThrottlingException", "ServiceUnavailableException"):
        stubber.add_client_error("invoke_model", service_error_code=code, http_status_code=429)
    stubber.add_response(
        "invoke_model",
        {"body": _stream({"embedding": [1.0] + [0.0] * 255}), "contentType": _JSON},
        _titan_call("x", 256),
    )
    assert 1.0 == BedrockEmbedder(dimensions=256, client=client).embed(["x"])[0][0]


def test_backoff_sleeps_jittered_delays_unless_testing(
    stubber_client: tuple[Stubber, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the switch off, each retry sleeps within its exponential ceiling."""
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", slept.append)
    set_testing(False)
    stubber, client = stubber_client
    for _ in range(3):
        stubber.add_client_error("invoke_model", service_error_code="ThrottlingException")
    stubber.add_response(
        "invoke_model",
        {"body": _stream({"embedding": [1.0] * 256}), "contentType": _JSON},
        _titan_call("x", 256),
    )
    BedrockEmbedder(dimensions=256, client=client).embed(["x"])
    ceilings = [BACKOFF_BASE_S * 2**a for a in range(3)]
    assert (3, True) == (len(slept), all(0 <= s <= c for s, c in zip(slept, ceilings, strict=True)))


def test_testing_switch_turns_sleeping_off(
    stubber_client: tuple[Stubber, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the switch on, throttling is retried without a single sleep."""
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", slept.append)
    stubber, client = stubber_client
    stubber.add_client_error("invoke_model", service_error_code="ThrottlingException")
    stubber.add_response(
        "invoke_model",
        {"body": _stream({"embedding": [1.0] * 256}), "contentType": _JSON},
        _titan_call("x", 256),
    )
    BedrockEmbedder(dimensions=256, client=client).embed(["x"])
    assert (True, []) == (is_testing(), slept)


def test_endless_throttling_becomes_model_unavailable(stubber_client: tuple[Stubber, Any]) -> None:
    """After MAX_ATTEMPTS throttles the caller gets ModelUnavailable, chained to ClientError."""
    stubber, client = stubber_client
    for _ in range(MAX_ATTEMPTS):
        stubber.add_client_error("invoke_model", service_error_code="ThrottlingException")
    with pytest.raises(ModelUnavailable, match=f"ThrottlingException after {MAX_ATTEMPTS}") as e:
        BedrockEmbedder(client=client).embed(["secret memory"])
    assert (True, False) == (isinstance(e.value.__cause__, ClientError), "secret" in str(e.value))


def test_other_service_errors_fail_at_once(stubber_client: tuple[Stubber, Any]) -> None:
    """AccessDenied is not retried: one call, then ModelUnavailable naming the code."""
    stubber, client = stubber_client
    stubber.add_client_error(
        "invoke_model", service_error_code="AccessDeniedException", http_status_code=403
    )
    with pytest.raises(ModelUnavailable, match="invoke bedrock model: AccessDeniedException"):
        BedrockEmbedder(client=client).embed(["x"])


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[1, 2]", b'{"embedding": [1.0, 2.0]}', b'{"embedding": ["a", 1.0]}'],
    ids=["not-json", "not-object", "wrong-size", "non-number"],
)
def test_malformed_answers_become_model_unavailable(
    stubber_client: tuple[Stubber, Any], body: bytes
) -> None:
    """A body that is not the documented JSON is a failure, never a stored vector."""
    stubber, client = stubber_client
    stubber.add_response(
        "invoke_model", {"body": StreamingBody(io.BytesIO(body), len(body)), "contentType": _JSON}
    )
    with pytest.raises(ModelUnavailable, match="parse bedrock response"):
        BedrockEmbedder(dimensions=256, client=client).embed(["x"])


def test_client_is_built_lazily_without_botocore_retries() -> None:
    """The client is made on first use, in the configured region, with one attempt per call."""
    embedder = BedrockEmbedder(region="eu-west-1")
    client: Any = embedder._runtime_client()
    retries = client.meta.config.retries
    assert ("eu-west-1", 1) == (client.meta.region_name, retries["total_max_attempts"])


def test_importing_the_adapter_does_not_import_boto3() -> None:
    """boto3 and botocore load on first use only, so the extra stays optional."""
    code = (
        "import sys\n"
        "from memhtml.adapters.bedrock import BedrockEmbedder\n"
        "BedrockEmbedder()\n"
        "print(sorted(m for m in ('boto3', 'botocore') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert "[]\n" == done.stdout


# --- pure pieces --------------------------------------------------------------------------------


@given(st.integers(0, 200), st.floats(0, 1))
@example(0, 1.0)
@example(200, 1.0)
def test_backoff_stays_under_its_exponential_ceiling(attempt: int, draw: float) -> None:
    """A delay is the draw's share of min(cap, base·2^attempt), never negative."""
    ceiling = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0**attempt)
    assert abs(draw * ceiling - backoff_delay(attempt, draw)) < 1e-12


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=16))
@example([0.0, 0.0])
@example([1e-200, 0.0])
@example([3.272221124497428e40, 8.083460216050959e-284])
@example([1e300, -1e300])
def test_unit_vector_has_length_one_and_keeps_direction(values: list[float]) -> None:
    """Output is unit length along the input's direction; an all-zero input becomes e0."""
    out = unit_vector(values)
    if all(v == 0.0 for v in values):
        assert (1.0,) + (0.0,) * (len(values) - 1) == out
    else:
        largest = max(abs(v) for v in values)
        scaled = [v / largest for v in values]
        norm = math.sqrt(math.fsum(v * v for v in scaled))
        assert [] == [
            i for i, (v, o) in enumerate(zip(scaled, out, strict=True)) if abs(v / norm - o) > 1e-12
        ]
    assert abs(1.0 - _norm(out)) < 1e-12


@pytest.mark.parametrize("values", [[], [math.nan, 1.0], [math.inf]])
def test_unit_vector_refuses_empty_and_non_finite(values: list[float]) -> None:
    """No vector is made from nothing, NaN or infinity."""
    with pytest.raises(ValueError, match="empty or not finite"):
        unit_vector(values)


@given(st.lists(st.text(max_size=3000), max_size=COHERE_MAX_TEXTS))
@example(["x" * 3000, "", "é" * 2049])
def test_cohere_request_cuts_each_text_and_keeps_order(texts: list[str]) -> None:
    """Each text is its own first 2,048 characters, in order; more than 96 texts is refused."""
    body = json.loads(cohere_request(texts, "search_document"))
    assert [t[:COHERE_MAX_CHARS] for t in texts] == body["texts"]
    with pytest.raises(ValueError, match="at most"):
        cohere_request([*texts, *["x"] * (COHERE_MAX_TEXTS + 1 - len(texts))], "search_query")


def test_error_code_reads_client_errors_and_names_others() -> None:
    """A ClientError yields its service code; anything else its class name."""
    error = ClientError({"Error": {"Code": "ThrottlingException"}}, "InvokeModel")
    assert ["ThrottlingException", "TimeoutError"] == [
        error_code(error),
        error_code(TimeoutError()),
    ]


# --- live ---------------------------------------------------------------------------------------


def _aws_credentials_configured() -> bool:
    """Credentials from the environment or the shared file only: no metadata-service probe."""
    env = ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK")
    shared = Path(os.environ.get("AWS_SHARED_CREDENTIALS_FILE", "~/.aws/credentials"))
    return any(os.environ.get(name) for name in env) or shared.expanduser().is_file()


@pytest.mark.live
@pytest.mark.skipif(not _aws_credentials_configured(), reason="no AWS credentials configured")
def test_live_titan_embeds_a_text() -> None:
    """Against real Bedrock: a 256-dim Titan vector of unit length."""
    region = os.environ.get("MEMHTML_AWS_REGION", "us-east-1")
    vector = BedrockEmbedder(dimensions=256, region=region).embed(["the deploy failed"])[0]
    assert (256, True) == (len(vector), abs(_norm(vector) - 1.0) < 1e-9)
