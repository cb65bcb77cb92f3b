"""A warm embedding helper: one long-lived local process keeps the model loaded so that short
command-line processes embed a query in milliseconds instead of loading the model each time.

``HelperEmbedder`` is the client side (an ``EmbeddingModel``); ``serve`` is the helper's loop.
Neither knows how the model is built: the composition root passes the in-process embedder and
the command that starts a helper.
"""

from memhtml.adapters.warm.client import HelperEmbedder, ask_helper
from memhtml.adapters.warm.place import HelperPlace, helper_place

__all__ = ["HelperEmbedder", "HelperPlace", "ask_helper", "helper_place"]
