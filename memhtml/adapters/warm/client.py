"""``HelperEmbedder``: an ``EmbeddingModel`` that asks the warm helper, starting it when none
runs, and embeds in this process when the helper cannot answer.

What a caller sees does not depend on the helper: the vectors are the same floats the model
gives in-process (the wire carries float64), the watermark is the in-process embedder's, and a
helper that is missing, dies mid-request or serves another configuration only costs the
in-process load it was meant to spare. A model failure reported by the helper is raised as
``ModelUnavailable`` without retrying in-process: the same configuration would fail the same
way, after a second load.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Sequence
from typing import Final, Literal

from memhtml.adapters.warm.place import HelperPlace
from memhtml.adapters.warm.wire import (
    WireError,
    payload_size,
    recv_exactly,
    recv_frame,
    send_frame,
    unpack_vectors,
)
from memhtml.ports.embedder import EmbeddingModel, Vector
from memhtml.ports.errors import ModelUnavailable

logger = logging.getLogger(__name__)

Kind = Literal["query", "documents"]
# A reply may wait behind a big indexing batch another process sent; a helper silent for this
# long is treated as gone.
REPLY_TIMEOUT_S: Final = 120.0
# After a start that reported ready, how long a connect may keep being refused (another
# starter won the helper's lock and is still binding its socket).
CONNECT_GRACE_S: Final = 5.0
_CONNECT_POLL_S: Final = 0.02

Starter = Callable[[], bool]
"""Starts a helper for this configuration and returns once it serves (True) or failed (False)."""


class HelperGone(Exception):
    """No helper listens at the socket."""


class HelperBroke(Exception):
    """The helper accepted the request and then closed or went silent (killed, say)."""


class HelperRefused(Exception):
    """The helper answered but will not serve this request (another configuration, a request
    it does not understand)."""


class HelperEmbedder:
    """Embeds through the warm helper at ``place``, falling back to ``local``.

    Args:
        local: The in-process embedder of the same configuration; it names the vector space
            and embeds whenever the helper cannot (it loads only then).
        place: The helper's socket and files.
        identity: The configuration key the helper must echo.
        start: Starts a helper (see ``Starter``); called at most once per instance.
    """

    def __init__(
        self, *, local: EmbeddingModel, place: HelperPlace, identity: str, start: Starter
    ) -> None:
        self._local = local
        self._place = place
        self._identity = identity
        self._start = start
        self._started = False
        self._in_process = False

    @property
    def watermark(self) -> str:
        """The in-process embedder's vector space (the helper must serve the same)."""
        return self._local.watermark

    @property
    def dim(self) -> int:
        """The in-process embedder's vector length."""
        return self._local.dim

    @property
    def served_by_helper(self) -> bool:
        """False once a request fell back to this process (the rest of it stays here)."""
        return not self._in_process

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One unit vector per text (``Embedder.embed``), from the helper when it answers.

        Raises:
            ModelUnavailable: The model cannot load or run, here or in the helper.
        """
        if not texts:
            return ()
        return self._ask("documents", texts)

    def embed_query(self, text: str) -> Vector:
        """The query's vector (``QueryEmbedder.embed_query``), from the helper when it answers.

        Raises:
            ModelUnavailable: The model cannot load or run, here or in the helper.
        """
        return self._ask("query", [text])[0]

    def _ask(self, kind: Kind, texts: Sequence[str]) -> tuple[Vector, ...]:
        if not self._in_process:
            try:
                return self._ask_helper(kind, texts)
            except (HelperGone, HelperBroke, HelperRefused) as e:
                logger.debug("embedding in this process: %s", e)
                self._in_process = True
        if kind == "query":
            return (self._local.embed_query(texts[0]),)
        return tuple(self._local.embed(texts))

    def _ask_helper(self, kind: Kind, texts: Sequence[str]) -> tuple[Vector, ...]:
        try:
            return self._request(kind, texts)
        except (HelperGone, HelperBroke):
            # Broke covers a helper dying as we connected: a process killed with threads
            # still exiting keeps its socket accepting for a moment, then resets.
            if self._started:
                raise
        self._started = True
        if not self._start():
            raise HelperGone("the helper did not start (see its log)")
        deadline = time.monotonic() + CONNECT_GRACE_S
        while True:
            try:
                return self._request(kind, texts)
            except HelperGone:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(_CONNECT_POLL_S)

    def _request(self, kind: Kind, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One round trip.

        Raises:
            HelperGone: Nothing listens.
            HelperBroke: The helper closed or went silent mid-request.
            HelperRefused: The helper serves another configuration or refused the request.
            ModelUnavailable: The helper's model failed.
        """
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(REPLY_TIMEOUT_S)
            try:
                sock.connect(str(self._place.socket))
            except OSError as e:  # absent, refused (a dead helper's socket), not a socket
                raise HelperGone(f"no helper listens: {e.strerror or e}") from e
            request: dict[str, object] = {
                "op": "embed",
                "kind": kind,
                "identity": self._identity,
                "texts": list(texts),
            }
            try:
                send_frame(sock, request)
                reply = recv_frame(sock)
                if reply.get("ok") is not True:
                    _raise_refusal(reply)
                count, dim = reply.get("count"), reply.get("dim")
                # The identity already pins the configuration; this guards the framing.
                if not (isinstance(count, int) and isinstance(dim, int)) or (
                    count != len(texts) or dim < 1
                ):
                    raise HelperRefused(f"helper replied {count} x {dim} vectors")
                return unpack_vectors(recv_exactly(sock, payload_size(count, dim)), count, dim)
            except (OSError, WireError) as e:
                raise HelperBroke(f"helper stopped answering: {e}") from e
        finally:
            sock.close()


def _raise_refusal(reply: dict[str, object]) -> None:
    reason = str(reply.get("reason", "no reason given"))
    if reply.get("code") == "model":
        raise ModelUnavailable(reason)
    raise HelperRefused(f"helper refused: {reason}")


def ask_helper(place: HelperPlace, op: Literal["hello", "stop"]) -> dict[str, object] | None:
    """Send ``hello`` (who serves here) or ``stop`` (leave now) to the helper at ``place``;
    ``None`` when no helper answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_GRACE_S)
        sock.connect(str(place.socket))
        send_frame(sock, {"op": op})
        reply = recv_frame(sock)
    except (OSError, WireError):
        return None
    finally:
        sock.close()
    return reply if reply.get("ok") is True else None
