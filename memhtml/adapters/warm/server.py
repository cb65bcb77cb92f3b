"""The helper's side: hold the lock, listen, keep the model loaded, leave when idle.

One helper serves one configuration (``identity``). It holds an exclusive ``flock`` on its lock
file for its whole life, so a second helper started at the same moment sees it and leaves; the
kernel drops the lock when the process dies, even by ``kill -9``. A socket left behind by a
killed helper refuses connections, so clients start a new helper, which replaces it.

Each connection is one request, answered on its own thread: onnxruntime runs sessions from
several threads at once, and a client killed mid-request only ends its own thread.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Final

from memhtml.adapters.warm.commands import CommandRequest, CommandResult
from memhtml.adapters.warm.place import HelperPlace
from memhtml.adapters.warm.wire import WireError, pack_vectors, recv_frame, send_frame
from memhtml.ports.embedder import EmbeddingModel
from memhtml.ports.errors import ModelUnavailable

logger = logging.getLogger(__name__)

_ACCEPT_POLL_S: Final = 0.5
# A client that connects and then says nothing is dropped after this long.
_REQUEST_READ_TIMEOUT_S: Final = 30.0


CommandRunner = Callable[[CommandRequest], CommandResult]
"""Runs one forwarded command in the helper's process (the composition root's)."""


class AlreadyServed(Exception):
    """Another live helper holds this configuration's lock."""


@contextlib.contextmanager
def helper_lock(place: HelperPlace) -> Iterator[None]:
    """Hold the configuration's lock for the block, the pid written in it.

    Raises:
        AlreadyServed: Another helper holds it.
    """
    fd = os.open(place.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AlreadyServed(str(place.lock)) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)


def listen(place: HelperPlace) -> socket.socket:
    """The listening socket at ``place.socket``, replacing what a dead helper left there.

    Call with the lock held: only the lock holder may remove the old socket.
    """
    with contextlib.suppress(FileNotFoundError):
        place.socket.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        sock.bind(str(place.socket))
    finally:
        os.umask(old_mask)
    sock.listen(64)
    sock.settimeout(_ACCEPT_POLL_S)
    return sock


class _Activity:
    """Requests in flight and when the last one ended, for the idle rule."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._busy = 0
        self._last = time.monotonic()
        self.stop_asked = False

    def begin(self) -> None:
        with self._changed:
            self._busy += 1

    def end(self) -> None:
        with self._changed:
            self._busy -= 1
            self._last = time.monotonic()
            self._changed.notify_all()

    def idle_for(self) -> float:
        with self._changed:
            return 0.0 if self._busy else time.monotonic() - self._last

    def wait_until_done(self) -> None:
        """Block until no request is in flight (a forwarded command may be mid-write to its
        index: the process must not end under it)."""
        with self._changed:
            self._changed.wait_for(lambda: self._busy == 0)


def serve(
    listener: socket.socket,
    embedder: EmbeddingModel | None,
    *,
    identity: str,
    idle_seconds: float,
    on_stop: Callable[[], None],
    commands: CommandRunner | None = None,
) -> None:
    """Answer requests until ``idle_seconds`` pass with none in flight, or one asks to stop;
    return once the requests in flight are answered.

    ``on_stop`` runs before the listener closes (it removes the socket path, so a client
    arriving during shutdown starts a new helper instead of queueing on a dying one).
    ``commands`` runs forwarded commands; without it they are refused. Without an
    ``embedder`` (a lexical-only configuration) embedding requests are refused.
    """
    activity = _Activity()
    try:
        while not activity.stop_asked and activity.idle_for() < idle_seconds:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            activity.begin()
            threading.Thread(
                target=_answer,
                args=(conn, embedder, identity, activity, commands),
                name="memhtml-helper-request",
                daemon=True,
            ).start()
    finally:
        on_stop()
        listener.close()
        activity.wait_until_done()


def _answer(
    conn: socket.socket,
    embedder: EmbeddingModel | None,
    identity: str,
    activity: _Activity,
    commands: CommandRunner | None,
) -> None:
    try:
        conn.settimeout(_REQUEST_READ_TIMEOUT_S)
        request = recv_frame(conn)
        conn.settimeout(None)
        if request.get("op") == "command" and request.get("identity") == identity:
            _run_command(conn, request, commands)
            return
        _reply(conn, request, embedder, identity, activity)
    except (OSError, WireError) as e:
        logger.info("request dropped: %s", e)
    finally:
        conn.close()
        activity.end()


def _reply(
    conn: socket.socket,
    request: dict[str, object],
    embedder: EmbeddingModel | None,
    identity: str,
    activity: _Activity,
) -> None:
    op = request.get("op")
    if op == "hello":
        send_frame(
            conn,
            {
                "ok": True,
                "identity": identity,
                "pid": os.getpid(),
                "watermark": None if embedder is None else embedder.watermark,
            },
        )
        return
    if op == "stop":
        activity.stop_asked = True
        send_frame(conn, {"ok": True, "pid": os.getpid()})
        return
    if request.get("identity") != identity:
        send_frame(conn, {"ok": False, "code": "identity", "reason": "another configuration"})
        return
    texts, kind = request.get("texts"), request.get("kind")
    if (
        embedder is None
        or op != "embed"
        or kind not in ("query", "documents")
        or not isinstance(texts, list)
        or not texts
        or not all(isinstance(t, str) for t in texts)
        or (kind == "query" and len(texts) != 1)
    ):
        send_frame(conn, {"ok": False, "code": "request", "reason": "malformed request"})
        return
    try:
        vectors = (
            (embedder.embed_query(texts[0]),) if kind == "query" else tuple(embedder.embed(texts))
        )
    except ModelUnavailable as e:
        send_frame(conn, {"ok": False, "code": "model", "reason": e.reason})
        return
    dim = len(vectors[0])
    send_frame(conn, {"ok": True, "count": len(vectors), "dim": dim}, pack_vectors(vectors))


def _run_command(
    conn: socket.socket, request: dict[str, object], commands: CommandRunner | None
) -> None:
    argv, env, cwd = request.get("argv"), request.get("env"), request.get("cwd")
    if (
        commands is None
        or not isinstance(argv, list)
        or not all(isinstance(a, str) for a in argv)
        or not isinstance(env, dict)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        or not isinstance(cwd, str)
    ):
        send_frame(conn, {"ok": False, "code": "request", "reason": "malformed request"})
        return
    result = commands(
        CommandRequest(
            argv=argv,
            environ=env,
            cwd=cwd,
            stdout_tty=request.get("stdoutTty") is True,
            stderr_tty=request.get("stderrTty") is True,
        )
    )
    send_frame(
        conn,
        {
            "ok": True,
            "exit": result.status,
            "stdout": len(result.stdout),
            "stderr": len(result.stderr),
        },
        result.stdout + result.stderr,
    )
