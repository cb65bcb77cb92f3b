"""The helper's wire format over a Unix stream socket, one request per connection.

A frame is a 4-byte big-endian length and a UTF-8 JSON object; a reply that carries vectors is
followed by ``count * dim`` native float64 values, so the client rebuilds exactly the floats
the model produced (both ends run on one machine). Only the standard library is used: the
client side must not import numpy, which is what the helper exists to spare it.
"""

from __future__ import annotations

import json
import socket
import struct
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from memhtml.ports.embedder import Vector

_LENGTH: Final = struct.Struct(">I")
# A request holds at most one search's pending chunks or one indexing slice; a frame larger
# than this is a corrupt or hostile length, not a batch.
MAX_FRAME_BYTES: Final = 64 * 1024 * 1024
_FLOAT: Final = "d"


class WireError(Exception):
    """The other end closed early or sent something that is not a frame."""


def send_frame(sock: socket.socket, header: dict[str, object], payload: bytes = b"") -> None:
    """Write one frame and its optional payload."""
    body = json.dumps(header, separators=(",", ":")).encode("utf-8")
    sock.sendall(_LENGTH.pack(len(body)) + body + payload)


def recv_frame(sock: socket.socket) -> dict[str, object]:
    """Read one frame's JSON object.

    Raises:
        WireError: The peer closed before a whole frame, or the frame is not a JSON object.
    """
    (length,) = _LENGTH.unpack(recv_exactly(sock, _LENGTH.size))
    if length > MAX_FRAME_BYTES:
        raise WireError(f"frame of {length:,} bytes is over the {MAX_FRAME_BYTES:,}-byte limit")
    try:
        header = json.loads(recv_exactly(sock, length))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise WireError("frame is not JSON") from e
    if not isinstance(header, dict):
        raise WireError("frame is not a JSON object")
    return header


def recv_exactly(sock: socket.socket, size: int) -> bytes:
    """Exactly ``size`` bytes.

    Raises:
        WireError: The peer closed first.
    """
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(min(size - len(chunks), 1 << 20))
        if not chunk:
            raise WireError(f"peer closed after {len(chunks)} of {size} bytes")
        chunks += chunk
    return bytes(chunks)


def pack_vectors(vectors: Sequence[Vector]) -> bytes:
    """The payload that follows a reply: every vector's floats, in order."""
    flat = array(_FLOAT)
    for vector in vectors:
        flat.extend(vector)
    return flat.tobytes()


def unpack_vectors(raw: bytes, count: int, dim: int) -> tuple[Vector, ...]:
    """``count`` vectors of ``dim`` floats from a reply's payload.

    Raises:
        WireError: The payload does not hold exactly that many floats.
    """
    flat = array(_FLOAT)
    if len(raw) != count * dim * flat.itemsize:
        raise WireError(f"payload of {len(raw)} bytes does not hold {count} x {dim} floats")
    flat.frombytes(raw)
    values = flat.tolist()
    return tuple(tuple(values[i * dim : (i + 1) * dim]) for i in range(count))


def payload_size(count: int, dim: int) -> int:
    """Bytes of the payload that carries ``count`` vectors of ``dim`` floats."""
    return count * dim * array(_FLOAT).itemsize
