"""A warm helper served from a thread of the test process: the real socket, wire and server
loop over any embedder, without a model load per process. For the contract suite and the
protocol's tests; tests/integration/test_embed_helper.py runs the real helper process."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from memhtml.adapters.warm.client import HelperEmbedder
from memhtml.adapters.warm.place import HelperPlace, helper_place
from memhtml.adapters.warm.server import listen, serve
from memhtml.ports.embedder import EmbeddingModel


class ThreadHelper:
    """``serve`` on a daemon thread, listening in a private folder of its own."""

    def __init__(
        self, embedder: EmbeddingModel | None, *, identity: str = "0123456789abcdef"
    ) -> None:
        self.embedder = embedder
        self.identity = identity
        runtime = Path(tempfile.mkdtemp(prefix="mh-"))
        self.place: HelperPlace = helper_place(identity, {"XDG_RUNTIME_DIR": str(runtime)})
        self._listener = listen(self.place)
        self._thread = threading.Thread(
            target=serve,
            args=(self._listener, embedder),
            kwargs={"identity": identity, "idle_seconds": 3600.0, "on_stop": lambda: None},
            daemon=True,
        )
        self._thread.start()

    def serving(self) -> bool:
        """Whether ``serve`` has not returned yet."""
        return self._thread.is_alive()

    def wait_stopped(self, timeout: float) -> None:
        """Wait for ``serve`` to return."""
        self._thread.join(timeout)

    def client(
        self, *, local: EmbeddingModel | None = None, identity: str | None = None
    ) -> HelperEmbedder:
        """A client of this helper; it never starts another (``start`` reports failure)."""
        chosen = local or self.embedder
        assert chosen is not None, "a helper without a model needs the client's own"
        return HelperEmbedder(
            local=chosen,
            place=self.place,
            identity=identity or self.identity,
            start=lambda: False,
        )


class SpaceOnly:
    """An in-process stand-in that names ``model``'s space and refuses to embed: a client
    built on it can only answer through the helper, so a broken wire cannot pass unseen."""

    def __init__(self, model: EmbeddingModel) -> None:
        self._model = model

    @property
    def watermark(self) -> str:
        return self._model.watermark

    @property
    def dim(self) -> int:
        return self._model.dim

    def embed(self, texts: object) -> tuple[tuple[float, ...], ...]:
        raise AssertionError("embedded in process: the helper did not answer")

    def embed_query(self, text: str) -> tuple[float, ...]:
        raise AssertionError("embedded in process: the helper did not answer")
