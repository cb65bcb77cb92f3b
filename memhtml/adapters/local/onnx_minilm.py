"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on the CPU, offline, loaded on first use."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from memhtml.adapters.local.model_files import ModelFiles, bundled_model_files
from memhtml.ports.embedder import Vector

if TYPE_CHECKING:
    from memhtml.adapters.local.onnx_pipeline import MiniLmPipeline

# Two threads is where the int8 model stops getting faster on small batches, and leaves the
# rest of a bigger machine to the agent that called us.
MAX_DEFAULT_THREADS: Final = 2


def default_thread_count() -> int:
    """``min(2, CPU count)``: the thread count when configuration names none."""
    return max(1, min(MAX_DEFAULT_THREADS, os.cpu_count() or 1))


class OnnxMiniLmEmbedder:
    """Embeds with a local ONNX sentence encoder; implements ``Embedder`` and ``QueryEmbedder``.

    Construction touches no file: the tokenizer and session load on the first call that needs
    them, so a command that never embeds never pays the load or imports numpy. A load failure
    is not cached, so a later call retries (a reinstalled package starts working).
    """

    def __init__(self, *, threads: int | None = None, files: ModelFiles | None = None) -> None:
        """Prepare, without loading.

        Args:
            threads: Intra-op threads for onnxruntime; ``None`` means ``default_thread_count()``.
            files: The model to run; ``None`` means the bundled MiniLM (resolved lazily too).
        """
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        self._threads = threads if threads is not None else default_thread_count()
        self._files = files
        self._loaded: tuple[MiniLmPipeline, int] | None = None
        # Two threads embedding at once must not load the 23 MB model twice.
        self._lock = threading.Lock()

    @property
    def threads(self) -> int:
        """The onnxruntime intra-op thread count this embedder uses."""
        return self._threads

    @property
    def dim(self) -> int:
        """Vector length; loads a user model whose graph does not declare it.

        Raises:
            ModelUnavailable: The weights package is missing, or a model that had to load to
                report its width could not.
        """
        declared = self._resolved_files().dim
        return declared if declared is not None else self._load()[1]

    @property
    def watermark(self) -> str:
        """``<model-id>@<dim>``: ``all-MiniLM-L6-v2-int8@384`` for the bundled model.

        Raises:
            ModelUnavailable: As for :attr:`dim`.
        """
        return f"{self._resolved_files().model_id}@{self.dim}"

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One unit vector per text, in input order (see ``Embedder.embed``).

        Raises:
            ModelUnavailable: The model cannot load or run; never a partial batch.
        """
        if not texts:
            return ()
        return tuple(self._load()[0].embed(texts))

    def embed_query(self, text: str) -> Vector:
        """The document mapping: MiniLM uses no query prefix, so both share one space."""
        return self._load()[0].embed([text])[0]

    def _resolved_files(self) -> ModelFiles:
        if self._files is None:
            self._files = bundled_model_files()
        return self._files

    def _load(self) -> tuple[MiniLmPipeline, int]:
        """The pipeline and its vector length, loading both on first use."""
        with self._lock:
            if self._loaded is None:
                # Imported here, not at the top: this import is what pulls in numpy,
                # onnxruntime and tokenizers, and only a real embed should pay for it.
                from memhtml.adapters.local.onnx_pipeline import MiniLmPipeline

                self._loaded = MiniLmPipeline.load(self._resolved_files(), self._threads)
            return self._loaded
