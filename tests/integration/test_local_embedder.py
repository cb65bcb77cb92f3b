"""The local ONNX embedder: the real model and tokenizer, plus hand-built tiny graphs for edges."""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from tokenizers import Tokenizer

from memhtml.adapters.local import (
    MINILM_WATERMARK,
    ModelFiles,
    OnnxMiniLmEmbedder,
    bundled_model_files,
    default_thread_count,
    user_model_files,
)
from memhtml.adapters.local.batching import length_sorted_batches
from memhtml.adapters.local.model_files import (
    DIGEST_PREFIX_LEN,
    MINILM_MODEL_SHA256,
    MINILM_TOKENIZER_SHA256,
)
from memhtml.adapters.local.onnx_pipeline import (
    BATCH_SIZE,
    _open_session,
    mean_pool,
    pad_batch,
    unit_rows,
)
from memhtml.ports.errors import ModelUnavailable

# Our own paraphrase pairs: each sentence must sit nearer its partner than any other sentence.
PARAPHRASES = (
    ("the deploy failed because the disk was full", "deployment broke: no space left on device"),
    (
        "Sasha prefers tea over coffee in the morning",
        "in the mornings Sasha would rather drink tea",
    ),
    (
        "the search API allows 300 requests per minute",
        "the rate limit of the search endpoint is 300/min",
    ),
    (
        "rotate the database password every ninety days",
        "the db credentials must be changed quarterly",
    ),
)


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLmEmbedder:
    """One loaded bundled model for the module: loading takes about a second."""
    return OnnxMiniLmEmbedder()


def _dot(x: Sequence[float], y: Sequence[float]) -> float:
    return math.fsum(p * q for p, q in zip(x, y, strict=True))


def _reference_unit(row: Sequence[float]) -> list[float]:
    """Plain-Python normalisation, rescaled first so tiny and huge rows stay exact."""
    largest = max(abs(x) for x in row)
    scaled = [x / largest for x in row]
    norm = math.sqrt(math.fsum(x * x for x in scaled))
    return [x / norm for x in scaled]


def _max_diff(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


# --- a hand-built ONNX graph, so edge cases need no second real model -------------------------
# The graph's token states are [input_id, mask] per token, so its pooled vector is predictable.
# Encoded by hand as protobuf: the onnx package is not a dependency.

_FLOAT, _INT64 = 1, 7


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _num(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _len(field: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _attr_int(name: str, value: int) -> bytes:
    return _len(1, name) + _num(20, 2) + _num(3, value)


def _attr_int64_tensor(name: str, values: Sequence[int]) -> bytes:
    tensor = _num(1, len(values)) + _num(2, _INT64) + b"".join(_num(7, v) for v in values)
    return _len(1, name) + _num(20, 4) + _len(5, tensor)


def _node(op: str, inputs: Sequence[str], outputs: Sequence[str], *attrs: bytes) -> bytes:
    return (
        b"".join(_len(1, i) for i in inputs)
        + b"".join(_len(2, o) for o in outputs)
        + _len(4, op)
        + b"".join(_len(5, a) for a in attrs)
    )


def _value_info(name: str, elem_type: int, dims: Sequence[int | str]) -> bytes:
    shape = b"".join(_len(1, _num(1, d) if isinstance(d, int) else _len(2, d)) for d in dims)
    return _len(1, name) + _len(2, _len(1, _num(1, elem_type) + _len(2, shape)))


def tiny_model(
    *,
    last_dim: int | str = 2,
    ids_type: int = _INT64,
    output: str = "hidden",
    extra_input: str | None = None,
) -> bytes:
    """A graph emitting [id, mask] per token; a string ``last_dim`` leaves the width symbolic.

    The reshape through a computed shape keeps onnxruntime from inferring the width, which is
    what a real export with a dynamic hidden size looks like from outside.
    """
    nodes = [
        _node("Cast", ["input_ids"], ["ids_f"], _attr_int("to", _FLOAT)),
        _node("Cast", ["attention_mask"], ["mask_f"], _attr_int("to", _FLOAT)),
        _node("Shape", ["input_ids"], ["shape2"]),
        _node("Constant", [], ["one"], _attr_int64_tensor("value", [1])),
        _node("Concat", ["shape2", "one"], ["shape3"], _attr_int("axis", 0)),
        _node("Reshape", ["ids_f", "shape3"], ["a"]),
        _node("Reshape", ["mask_f", "shape3"], ["b"]),
        _node("Concat", ["a", "b"], ["hidden"], _attr_int("axis", 2)),
    ]
    inputs = [
        _value_info("input_ids", ids_type, ["batch", "seq"]),
        _value_info("attention_mask", _INT64, ["batch", "seq"]),
    ]
    if extra_input is not None:
        inputs.append(_value_info(extra_input, _INT64, ["batch", "seq"]))
    out_dims: list[int | str] = (
        ["batch", "seq", last_dim] if output == "hidden" else ["batch", "seq"]
    )
    graph = (
        b"".join(_len(1, n) for n in nodes)
        + _len(2, "tiny")
        + b"".join(_len(11, i) for i in inputs)
        + _len(12, _value_info(output, _FLOAT, out_dims))
    )
    return _num(1, 7) + _len(7, graph) + _len(8, _len(1, "") + _num(2, 13))


def _model_dir(root: Path, name: str, model: bytes) -> Path:
    directory = root / name
    directory.mkdir()
    (directory / "model.onnx").write_bytes(model)
    (directory / "tokenizer.json").write_bytes(bundled_model_files().tokenizer.read_bytes())
    return directory


def _tiny_expected(text: str) -> tuple[float, ...]:
    tokenizer = Tokenizer.from_str(bundled_model_files().tokenizer.read_text(encoding="utf-8"))
    tokenizer.no_padding()
    ids = tokenizer.encode(text).ids
    mean_id = sum(ids) / len(ids)
    norm = math.hypot(mean_id, 1.0)
    return (mean_id / norm, 1.0 / norm)


# --- the bundled model --------------------------------------------------------------------------


def test_import_loads_neither_numpy_nor_onnxruntime() -> None:
    """Importing the package and building an embedder imports no numpy, onnxruntime, tokenizers."""
    code = (
        "import sys\n"
        "from memhtml.adapters.local import OnnxMiniLmEmbedder\n"
        "e = OnnxMiniLmEmbedder()\n"
        "print(e.watermark)\n"
        "print(sorted(m for m in ('numpy', 'onnxruntime', 'tokenizers') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert f"{MINILM_WATERMARK}\n[]\n" == done.stdout


def test_bundled_watermark_and_dim() -> None:
    """The default space is all-MiniLM-L6-v2-int8@384."""
    embedder = OnnxMiniLmEmbedder()
    assert ("all-MiniLM-L6-v2-int8@384", 384) == (embedder.watermark, embedder.dim)


def test_bundled_files_match_their_pins() -> None:
    """The installed weights and packaged tokenizer hash to the pinned digests."""
    files = bundled_model_files()
    actual = (
        hashlib.sha256(files.model.read_bytes()).hexdigest(),
        hashlib.sha256(files.tokenizer.read_bytes()).hexdigest(),
    )
    assert (MINILM_MODEL_SHA256, MINILM_TOKENIZER_SHA256) == actual


def test_paraphrases_are_nearest_to_each_other(minilm: OnnxMiniLmEmbedder) -> None:
    """Each sentence's nearest other sentence is its paraphrase, not an unrelated one."""
    sentences = [s for pair in PARAPHRASES for s in pair]
    vectors = minilm.embed(sentences)
    nearest = []
    for i, v in enumerate(vectors):
        others = [(j, _dot(v, w)) for j, w in enumerate(vectors) if j != i]
        nearest.append(max(others, key=lambda pair: pair[1])[0])
    assert [i ^ 1 for i in range(len(sentences))] == nearest


def test_length_sorted_batches_keep_input_order(minilm: OnnxMiniLmEmbedder) -> None:
    """Texts of mixed lengths across several batches come back in input order."""
    texts = [("alpha beta gamma " * (n % 11)) + f"item {n}" for n in range(2 * BATCH_SIZE + 5)]
    batch = minilm.embed(texts)
    alone = [minilm.embed([t])[0] for t in texts]
    assert _max_diff(batch, alone) < 1e-6


def test_truncates_at_512_tokens(minilm: OnnxMiniLmEmbedder) -> None:
    """A change at token ~300 moves the vector; a change past token 512 does not."""
    words = [f"w{i}" for i in range(300)]  # about two tokens each, so ~600 tokens in all
    early, late = list(words), list(words)
    early[140] = "elephant"
    late[290] = "elephant"
    base, moved, unmoved = minilm.embed([" ".join(words), " ".join(early), " ".join(late)])
    assert (True, True) == (_max_diff([base], [moved]) > 1e-3, _max_diff([base], [unmoved]) < 1e-6)


def test_query_shares_the_document_space(minilm: OnnxMiniLmEmbedder) -> None:
    """MiniLM has no query prefix: a query vector equals the document vector of the same text."""
    assert minilm.embed(["disk full"])[0] == minilm.embed_query("disk full")


def test_thread_count_defaults_and_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads default to min(2, CPUs), 1 when the count is unknown, and must be at least 1."""
    counts = []
    for cpus in (1, 8, None):
        monkeypatch.setattr(os, "cpu_count", lambda cpus=cpus: cpus)
        counts.append(default_thread_count())
    assert [1, 2, 1] == counts
    assert 1 == OnnxMiniLmEmbedder(threads=1).threads
    with pytest.raises(ValueError, match="threads"):
        OnnxMiniLmEmbedder(threads=0)


def test_the_session_workers_sleep_instead_of_spinning() -> None:
    """The intra-op pool does not spin after a run: a spinning worker took the core the
    search's SQL needed right after the query embedding on a shared machine."""
    session = _open_session(bundled_model_files(), 2)
    entry = session.get_session_options().get_session_config_entry(
        "session.intra_op.allow_spinning"
    )
    assert "0" == entry


def test_sha_mismatch_is_refused_naming_both_prefixes(tmp_path: Path) -> None:
    """A model file that differs from its pin is refused, naming expected and actual prefixes."""
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not the pinned model")
    files = ModelFiles(
        model=bad,
        tokenizer=bundled_model_files().tokenizer,
        model_id="x",
        model_sha256=MINILM_MODEL_SHA256,
    )
    actual = hashlib.sha256(b"not the pinned model").hexdigest()[:DIGEST_PREFIX_LEN]
    with pytest.raises(ModelUnavailable) as caught:
        OnnxMiniLmEmbedder(files=files).embed(["x"])
    message = str(caught.value)
    assert (True, True) == (MINILM_MODEL_SHA256[:DIGEST_PREFIX_LEN] in message, actual in message)


def test_missing_weights_package_is_model_unavailable() -> None:
    """Without the weights package the bundled model reports ModelUnavailable, not ImportError."""
    with pytest.raises(ModelUnavailable, match="locate model package"):
        bundled_model_files("memhtml_no_such_weights_package")


# --- a user's model directory -------------------------------------------------------------------


def test_user_dir_with_the_same_files_gives_the_same_vectors(
    tmp_path: Path, minilm: OnnxMiniLmEmbedder
) -> None:
    """A directory copy of the bundled model embeds identically under its own watermark."""
    directory = _model_dir(tmp_path, "my-minilm", bundled_model_files().model.read_bytes())
    own = OnnxMiniLmEmbedder(files=user_model_files(directory))
    text = ["the cache warms on boot"]
    assert ("my-minilm@384", minilm.embed(text)) == (own.watermark, own.embed(text))


@pytest.mark.parametrize("last_dim", [2, "width"], ids=["declared", "symbolic"])
def test_user_dim_comes_from_output_shape_or_a_first_run(
    tmp_path: Path, last_dim: int | str
) -> None:
    """The width is read from the output shape, or from running once when it is symbolic."""
    directory = _model_dir(tmp_path, "tiny", tiny_model(last_dim=last_dim))
    embedder = OnnxMiniLmEmbedder(files=user_model_files(directory))
    assert "tiny@2" == embedder.watermark


def test_user_model_feeds_only_declared_inputs_and_mean_pools(tmp_path: Path) -> None:
    """A graph without token_type_ids runs; its vector is the masked mean, L2-normalised."""
    embedder = OnnxMiniLmEmbedder(files=user_model_files(_model_dir(tmp_path, "t", tiny_model())))
    texts = ["hello world", "a much longer text than the first one, padded less", ""]
    expected = [_tiny_expected(t) for t in texts]
    assert _max_diff(expected, embedder.embed(texts)) < 1e-9


@pytest.mark.parametrize(
    ("model", "operation"),
    [
        (b"not an onnx graph", "load model"),
        (tiny_model(output="ids_f"), "output is not"),
        (tiny_model(extra_input="pixel_values"), "inputs are not"),
        (tiny_model(ids_type=_FLOAT), "run model"),
    ],
    ids=["corrupt", "pooled-output", "unknown-input", "wrong-input-type"],
)
def test_driver_failures_become_model_unavailable(
    tmp_path: Path, model: bytes, operation: str
) -> None:
    """Every onnxruntime refusal surfaces as ModelUnavailable naming the operation, not the text."""
    embedder = OnnxMiniLmEmbedder(files=user_model_files(_model_dir(tmp_path, "m", model)))
    with pytest.raises(ModelUnavailable, match=operation) as caught:
        embedder.embed(["secret memory text"])
    assert "secret" not in str(caught.value)


def test_missing_directory_and_bad_tokenizer(tmp_path: Path) -> None:
    """Unreadable files and an invalid tokenizer are ModelUnavailable with the cause chained."""
    missing = OnnxMiniLmEmbedder(files=user_model_files(tmp_path / "absent"))
    with pytest.raises(ModelUnavailable, match="read tokenizer") as unreadable:
        missing.embed(["x"])
    directory = _model_dir(tmp_path, "bad-tok", tiny_model())
    (directory / "tokenizer.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelUnavailable, match="load tokenizer") as invalid:
        OnnxMiniLmEmbedder(files=user_model_files(directory)).embed(["x"])
    assert (True, True) == (
        isinstance(unreadable.value.__cause__, OSError),
        invalid.value.__cause__ is not None,
    )


def test_a_failed_load_is_retried_on_the_next_call(tmp_path: Path) -> None:
    """A load failure is not cached: once the file is fixed, the same embedder works."""
    directory = _model_dir(tmp_path, "later", b"broken")
    embedder = OnnxMiniLmEmbedder(files=user_model_files(directory))
    with pytest.raises(ModelUnavailable):
        embedder.embed(["x"])
    (directory / "model.onnx").write_bytes(tiny_model())
    assert 1 == len(embedder.embed(["x"]))


# --- the pure pieces of the pipeline ------------------------------------------------------------


@given(st.lists(st.integers(0, 600), max_size=100), st.integers(1, 40), st.integers(1, 4096))
@example([], 1, 1)
@example([5, 1, 5, 1], 32, 2048)
def test_batch_plan_is_a_sorted_partition(lengths: list[int], size: int, budget: int) -> None:
    """Every position once, stable by length, batches within count and padded-token budgets."""
    plan = length_sorted_batches(lengths, size, budget)
    flat = [i for batch in plan for i in batch]
    assert sorted(range(len(lengths)), key=lambda i: (lengths[i], i)) == flat
    oversized = [
        b for b in plan if len(b) > size or (len(b) > 1 and len(b) * lengths[b[-1]] > budget)
    ]
    assert [] == oversized


@given(st.lists(st.integers(1, 64), min_size=1, max_size=100))
def test_batch_plan_fills_batches_greedily(lengths: list[int]) -> None:
    """A batch closes only when the next text would break a limit, so none is split early."""
    plan = length_sorted_batches(lengths, 8, 256)
    early = [
        i
        for i, (b, nxt) in enumerate(itertools.pairwise(plan))
        if len(b) < 8 and (len(b) + 1) * lengths[nxt[0]] <= 256
    ]
    assert [] == early


def test_batch_plan_refuses_size_zero() -> None:
    """A batch size below one is a programming error."""
    with pytest.raises(ValueError, match="batch size"):
        length_sorted_batches([1, 2], 0, 2048)


@given(st.lists(st.lists(st.integers(1, 30000), max_size=20), min_size=1, max_size=10))
@example([[]])
def test_pad_batch_pads_with_zero_and_masks_real_tokens(rows: list[list[int]]) -> None:
    """Ids keep each row's tokens then zeros; the mask is 1 exactly over real tokens."""
    ids, mask = pad_batch(rows)
    width = max(1, max(len(r) for r in rows))
    expected_ids = [r + [0] * (width - len(r)) for r in rows]
    expected_mask = [[1] * len(r) + [0] * (width - len(r)) for r in rows]
    assert (expected_ids, expected_mask) == (ids.tolist(), mask.tolist())


@given(
    st.lists(st.tuples(st.floats(-100, 100), st.floats(-100, 100)), min_size=1, max_size=6),
    st.integers(0, 3),
)
def test_mean_pool_averages_only_masked_tokens(
    tokens: list[tuple[float, float]], padding: int
) -> None:
    """Pooling equals the plain mean over tokens whose mask is 1; padded NaN is ignored."""
    kept = tokens
    width = len(tokens) + padding
    hidden = np.full((1, width, 2), np.nan, dtype=np.float32)
    mask = np.zeros((1, width), dtype=np.int64)
    for t, (x, y) in enumerate(kept):
        hidden[0, t] = (x, y)
        mask[0, t] = 1
    expected = [
        math.fsum(float(np.float32(x)) for x, _ in kept) / len(kept),
        math.fsum(float(np.float32(y)) for _, y in kept) / len(kept),
    ]
    assert _max_diff([expected], mean_pool(hidden, mask).tolist()) < 1e-9


@given(
    st.lists(
        st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=3, max_size=3),
        min_size=1,
        max_size=8,
    )
)
@example([[0.0, 0.0, 0.0]])
@example([[1e-300, 0.0, 0.0]])
@example([[0.0, 0.0, 1.5265042725414992e-159]])
def test_unit_rows_have_length_one_and_keep_direction(rows: list[list[float]]) -> None:
    """Every row comes out unit length along its own direction; zero rows become e0."""
    out = unit_rows(np.asarray(rows, dtype=np.float64)).tolist()
    for row, unit in zip(rows, out, strict=True):
        if all(x == 0.0 for x in row):
            assert [1.0, 0.0, 0.0] == unit
        else:
            assert _max_diff([_reference_unit(row)], [unit]) < 1e-12
        assert abs(1.0 - math.sqrt(math.fsum(x * x for x in unit))) < 1e-12


def test_unit_rows_refuse_non_finite_output() -> None:
    """A NaN from the model is a failure, never a stored vector."""
    with pytest.raises(ModelUnavailable, match="not finite"):
        unit_rows(np.asarray([[1.0, math.nan]]))
