"""The offline local embedder (all-MiniLM-L6-v2, int8 ONNX) and its packaged tokenizer.

Importing this package loads no model and imports neither numpy nor onnxruntime.
"""

from memhtml.adapters.local.model_files import (
    MINILM_WATERMARK,
    ModelFiles,
    bundled_model_files,
    user_model_files,
)
from memhtml.adapters.local.onnx_minilm import OnnxMiniLmEmbedder, default_thread_count

__all__ = [
    "MINILM_WATERMARK",
    "ModelFiles",
    "OnnxMiniLmEmbedder",
    "bundled_model_files",
    "default_thread_count",
    "user_model_files",
]
