"""The loaded local model: tokenizer, ONNX session, mean pooling and L2 normalisation.

This is the only module of the package that imports numpy, onnxruntime and tokenizers; the
embedder imports it on its first call, so merely importing memhtml costs none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

# onnxruntime ships no type information; the session is used through a few calls only.
import onnxruntime as ort  # type: ignore[import-untyped]
from tokenizers import Encoding, Tokenizer

from memhtml.adapters.local.batching import length_sorted_batches
from memhtml.adapters.local.model_files import MAX_TOKENS, ModelFiles, read_verified
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import ModelUnavailable

# Texts per session.run: the measured sweet spot on 2 CPU threads (PROVENANCE.md).
BATCH_SIZE: Final = 32
# Padded tokens per session.run. Measured on 2 cores: texts of ~20 tokens run ~5× faster 32 at
# a time than one by one, texts of ~80 tokens gain nothing past a dozen per batch, and texts of
# ~300 tokens run fastest nearly alone; 1,024 keeps the first gain without the last loss.
MAX_BATCH_TOKENS: Final = 1024
PAD_ID: Final = 0
_FEEDABLE_INPUTS: Final = frozenset({"input_ids", "attention_mask", "token_type_ids"})
# onnxruntime's "error" level: its warnings would otherwise interleave with CLI output on stderr.
_ORT_LOG_ERRORS_ONLY: Final = 3
# The intra-op pool's workers sleep between operators instead of spinning. A spinning worker
# keeps a core busy for a while after every run: on a machine whose cores are shared (the agent
# beside us, other processes), it took the core the search's own SQL needed right after the
# query embedding, and on two loaded cores one short query embedded ~2.5x slower with two
# spinning threads than with one (BENCHMARKS.md, eighth session). The vectors are the same.
_NO_SPINNING: Final = (("session.intra_op.allow_spinning", "0"),)

Int64Matrix = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class MiniLmPipeline:
    """Tokenizer and session of one model, ready to embed; built by :meth:`load`."""

    def __init__(
        self,
        *,
        tokenizer: Tokenizer,
        session: ort.InferenceSession,
        input_names: frozenset[str],
        output_name: str,
    ) -> None:
        self._tokenizer = tokenizer
        self._session = session
        self._input_names = input_names
        self._output_name = output_name

    @classmethod
    def load(cls, files: ModelFiles, threads: int) -> tuple[MiniLmPipeline, int]:
        """Verify, read and open both files; returns the pipeline and its vector length.

        Raises:
            ModelUnavailable: A file is missing, unreadable, fails its pinned digest, or the
                drivers refuse it; or the graph is not a token-level encoder we can feed.
        """
        tokenizer = _load_tokenizer(files)
        session = _open_session(files, threads)
        inputs = frozenset(i.name for i in session.get_inputs())
        if not inputs <= _FEEDABLE_INPUTS or "input_ids" not in inputs:
            raise ModelUnavailable("load model: inputs are not input_ids/attention_mask/...")
        output = session.get_outputs()[0]
        if len(output.shape) != 3:
            raise ModelUnavailable("load model: output is not [batch, sequence, dim]")
        pipeline = cls(
            tokenizer=tokenizer, session=session, input_names=inputs, output_name=output.name
        )
        declared = output.shape[2]
        # A symbolic last axis (a string) is only known once the model has run.
        dim = declared if isinstance(declared, int) else len(pipeline.embed([""])[0])
        if files.dim is not None and dim != files.dim:
            raise ModelUnavailable("load model: output dimension differs from the pinned one")
        return pipeline, dim

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One unit vector per text, in input order; length-sorted batches (see batching).

        Raises:
            ModelUnavailable: Tokenising or running the model failed.
        """
        if not texts:
            return []
        try:
            encodings = self._tokenizer.encode_batch(list(texts))
        # tokenizers raises plain Exception, so nothing narrower catches its failures.
        except Exception as e:
            raise ModelUnavailable("tokenize") from e
        vectors: list[Vector] = [()] * len(texts)
        lengths = [len(e.ids) for e in encodings]
        for batch in length_sorted_batches(lengths, BATCH_SIZE, MAX_BATCH_TOKENS):
            rows = self._run([encodings[i] for i in batch])
            for position, row in zip(batch, rows.tolist(), strict=True):
                vectors[position] = tuple(row)
        return vectors

    def _run(self, encodings: Sequence[Encoding]) -> FloatArray:
        ids, mask = pad_batch([e.ids for e in encodings])
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        try:
            (hidden,) = self._session.run(
                [self._output_name], {name: feeds[name] for name in self._input_names}
            )
        # onnxruntime's errors derive from Exception directly (Fail, InvalidArgument, …).
        except Exception as e:
            raise ModelUnavailable("run model") from e
        return unit_rows(mean_pool(np.asarray(hidden, dtype=np.float32), mask))


def pad_batch(token_ids: Sequence[Sequence[int]]) -> tuple[Int64Matrix, Int64Matrix]:
    """Right-pad with ``PAD_ID`` to the longest row; returns ids and the attention mask.

    The width is at least 1: a tokenizer without special tokens turns "" into no ids, and a
    zero-width tensor is an error in some graphs, while one masked pad is pooled to nothing.
    """
    width = max(1, max((len(row) for row in token_ids), default=0))
    ids = np.full((len(token_ids), width), PAD_ID, dtype=np.int64)
    mask = np.zeros((len(token_ids), width), dtype=np.int64)
    for r, row in enumerate(token_ids):
        ids[r, : len(row)] = row
        mask[r, : len(row)] = 1
    return ids, mask


def mean_pool(hidden: npt.NDArray[np.float32], mask: Int64Matrix) -> FloatArray:
    """Average of each row's token states over its attention mask, in float64.

    Selecting with ``where`` instead of multiplying by the mask keeps a NaN or inf that a
    graph leaves at a padded position out of the sum (``nan * 0`` is still NaN).
    """
    keep = mask[:, :, None] > 0
    summed = np.where(keep, hidden, np.float32(0.0)).astype(np.float64).sum(axis=1)
    counts = np.maximum(mask.sum(axis=1, keepdims=True), 1).astype(np.float64)
    return np.asarray(summed / counts, dtype=np.float64)


def unit_rows(matrix: FloatArray) -> FloatArray:
    """Each row scaled to length 1; an all-zero row becomes the first basis vector.

    The basis-vector convention matches the hashing embedder: the port promises a unit vector
    for every text, and a zero vector would make every cosine with it undefined. Rows are first
    divided by their largest magnitude so squaring cannot underflow or overflow.

    Raises:
        ModelUnavailable: A row holds NaN or infinity, which would poison every comparison.
    """
    if not np.isfinite(matrix).all():
        raise ModelUnavailable("run model: output is not finite")
    largest = np.max(np.abs(matrix), axis=1, keepdims=True)
    zero = largest[:, 0] == 0.0
    scaled = matrix / np.where(largest == 0.0, 1.0, largest)
    out = scaled / np.where(zero[:, None], 1.0, np.linalg.norm(scaled, axis=1, keepdims=True))
    out[zero, 0] = 1.0
    return np.asarray(out, dtype=np.float64)


def _load_tokenizer(files: ModelFiles) -> Tokenizer:
    data = read_verified(files.tokenizer, files.tokenizer_sha256, "tokenizer")
    try:
        tokenizer = Tokenizer.from_str(data.decode("utf-8"))
        own = tokenizer.truncation
        limit = files.max_tokens or min(MAX_TOKENS, own["max_length"] if own else MAX_TOKENS)
        # Padding happens per batch in pad_batch; the file's fixed padding would pad to 128.
        tokenizer.no_padding()
        tokenizer.enable_truncation(limit)
    except Exception as e:
        raise ModelUnavailable("load tokenizer") from e
    return tokenizer


def _open_session(files: ModelFiles, threads: int) -> ort.InferenceSession:
    data = read_verified(files.model, files.model_sha256, "model")
    options = ort.SessionOptions()
    # One operator at a time, each on `threads` cores: inter-op parallelism only adds
    # contention on a 2-core machine and makes timings noisy.
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = _ORT_LOG_ERRORS_ONLY
    for key, value in _NO_SPINNING:
        options.add_session_config_entry(key, value)
    try:
        return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as e:
        raise ModelUnavailable("load model") from e
