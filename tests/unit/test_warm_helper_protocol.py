"""The warm helper's wire, settings and refusals, over a helper served from a thread."""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.warm.client import HelperEmbedder, ask_helper
from memhtml.adapters.warm.wire import (
    MAX_FRAME_BYTES,
    WireError,
    pack_vectors,
    recv_frame,
    send_frame,
    unpack_vectors,
)
from memhtml.app.bootstrap.warm_helper import (
    HelperSettings,
    command_line_embedder,
    read_helper_settings,
)
from memhtml.app.bootstrap.warm_key import (
    DEFAULT_IDLE_SECONDS,
    helper_key,
    newest_source,
    served_backend,
)
from memhtml.app.bootstrap.warm_status import helper_status
from memhtml.domain.errors import InvalidInput
from memhtml.ports.errors import ModelUnavailable
from tests.warm_thread import SpaceOnly, ThreadHelper

floats = st.floats(allow_nan=False, width=64)


@given(dim=st.integers(1, 8), data=st.data())
def test_vectors_cross_the_wire_bit_for_bit(dim: int, data: st.DataObject) -> None:
    """Any finite float64s, signed zeros and extremes included, come back exactly."""
    vectors = data.draw(st.lists(st.tuples(*[floats] * dim), max_size=6))
    back = unpack_vectors(pack_vectors(vectors), len(vectors), dim)
    assert [tuple(map(float.hex, v)) for v in back] == [tuple(map(float.hex, v)) for v in vectors]


def test_a_payload_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(WireError, match="does not hold 2 x 3"):
        unpack_vectors(pack_vectors([(1.0, 2.0, 3.0)]), 2, 3)


@given(header=st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8)))
def test_frames_round_trip(header: dict[str, object]) -> None:
    left, right = socket.socketpair()
    with left, right:
        send_frame(left, header)
        assert recv_frame(right) == header


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (struct.pack(">I", MAX_FRAME_BYTES + 1), "over the"),
        (struct.pack(">I", 3) + b"{x}", "not JSON"),
        (struct.pack(">I", 2) + b"[]", "not a JSON object"),
        (struct.pack(">I", 10) + b"{}", "peer closed after 2 of 10"),
        (b"\x00\x00", "peer closed after 2 of 4"),
    ],
)
def test_what_is_not_a_frame_is_refused(raw: bytes, message: str) -> None:
    left, right = socket.socketpair()
    with left, right:
        left.sendall(raw)
        left.shutdown(socket.SHUT_WR)
        with pytest.raises(WireError, match=message):
            recv_frame(right)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, HelperSettings()),
        ({"MEMHTML_EMBED_HELPER": "OFF"}, HelperSettings(enabled=False)),
        ({"MEMHTML_EMBED_HELPER": " on "}, HelperSettings()),
        ({"MEMHTML_EMBED_HELPER_IDLE": "30"}, HelperSettings(idle_seconds=30)),
    ],
)
def test_helper_settings(environ: dict[str, str], expected: HelperSettings) -> None:
    assert read_helper_settings(environ) == expected
    assert HelperSettings().idle_seconds == DEFAULT_IDLE_SECONDS


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"MEMHTML_EMBED_HELPER": "sometimes"}, "MEMHTML_EMBED_HELPER='sometimes'"),
        ({"MEMHTML_EMBED_HELPER_IDLE": "0"}, "MEMHTML_EMBED_HELPER_IDLE='0'"),
        ({"MEMHTML_EMBED_HELPER_IDLE": "5m"}, "MEMHTML_EMBED_HELPER_IDLE='5m'"),
        ({"MEMHTML_EMBED_HELPER_IDLE": "99999999"}, "whole number of seconds"),
    ],
)
def test_bad_helper_settings_name_the_variable(environ: dict[str, str], named: str) -> None:
    with pytest.raises(InvalidInput, match=named):
        read_helper_settings(environ)


def test_every_fact_that_decides_the_vectors_changes_the_key(tmp_path: Path) -> None:
    """Two environments that could embed differently never share a helper."""
    variants = [
        {},
        {"MEMHTML_EMBED": "e5"},
        {"MEMHTML_EMBED_THREADS": "1"},
        {"MEMHTML_EMBED_THREADS": "2"},
        {"MEMHTML_EMBED_MODEL_DIR": str(tmp_path / "a")},
        {"MEMHTML_EMBED_MODEL_DIR": str(tmp_path / "b")},
        {"MEMHTML_EMBED_MODEL": "another"},
    ]
    keys = [helper_key(v) for v in variants]
    assert len(set(keys)) == len(keys)
    assert all(len(k) == 16 and int(k, 16) >= 0 for k in keys)


def test_what_does_not_decide_the_vectors_keeps_the_key() -> None:
    """The store, the log level, the helper's idle time: one helper serves them all."""
    base = helper_key({"MEMHTML_EMBED": "local"})
    assert base == helper_key(
        {
            "MEMHTML_EMBED": " LOCAL ",
            "MEMHTML_ROOT": "/somewhere",
            "MEMHTML_LOG_LEVEL": "debug",
            "MEMHTML_EMBED_HELPER_IDLE": "5",
        }
    )
    assert base == helper_key({}) == helper_key({"MEMHTML_EMBED": "on"})


@pytest.mark.parametrize(
    ("environ", "served"),
    [
        ({}, "local"),
        ({"MEMHTML_EMBED": "e5"}, "e5"),
        ({"MEMHTML_EMBED": "bedrock"}, None),
        ({"MEMHTML_EMBED": "off"}, "off"),
        ({"MEMHTML_EMBED_HELPER": "off"}, None),
        ({"MEMHTML_EMBED": "nonsense"}, None),
    ],
)
def test_which_environments_a_helper_serves(environ: dict[str, str], served: str | None) -> None:
    assert served_backend(environ) == served


def test_a_helper_of_another_configuration_is_not_used() -> None:
    """The identity differs: the client embeds in its own process and says so."""
    helper = ThreadHelper(HashingEmbedder(16))
    local = HashingEmbedder(16)
    client = helper.client(local=local, identity="fedcba9876543210")
    assert client.embed_query("q") == local.embed_query("q")
    assert not client.served_by_helper


def test_without_a_helper_the_client_embeds_in_process() -> None:
    """Nothing listens and the start fails: the same vectors, from this process."""
    helper = ThreadHelper(HashingEmbedder(16))
    local = HashingEmbedder(16)
    client = HelperEmbedder(
        local=local,
        place=helper.place.__class__(
            socket=helper.place.socket.with_name("nobody.sock"),
            lock=helper.place.lock,
            log=helper.place.log,
        ),
        identity=helper.identity,
        start=lambda: False,
    )
    assert client.embed(["a", "b"]) == local.embed(["a", "b"])
    assert not client.served_by_helper


class _Failing(HashingEmbedder):
    def embed(self, texts: object) -> tuple[tuple[float, ...], ...]:
        raise ModelUnavailable("run model")


def test_a_model_failure_in_the_helper_is_the_callers_model_failure() -> None:
    """Not retried in process: the same configuration would fail the same way, later."""
    helper = ThreadHelper(_Failing(16))
    client = helper.client(local=SpaceOnly(HashingEmbedder(16)))
    with pytest.raises(ModelUnavailable, match="run model"):
        client.embed(["a"])


@pytest.mark.parametrize(
    "request_",
    [
        {"op": "embed", "kind": "query", "texts": ["a", "b"]},
        {"op": "embed", "kind": "documents", "texts": []},
        {"op": "embed", "kind": "documents", "texts": [1]},
        {"op": "embed", "kind": "sideways", "texts": ["a"]},
        {"op": "dance"},
    ],
)
def test_malformed_requests_are_refused_and_the_helper_keeps_serving(
    request_: dict[str, object],
) -> None:
    helper = ThreadHelper(HashingEmbedder(16))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(helper.place.socket))
        send_frame(sock, {**request_, "identity": helper.identity})
        assert recv_frame(sock) == {"ok": False, "code": "request", "reason": "malformed request"}
    client = helper.client(local=SpaceOnly(HashingEmbedder(16)))
    assert client.embed_query("still") == HashingEmbedder(16).embed_query("still")
    hello = ask_helper(helper.place, "hello")
    assert hello is not None
    assert hello["identity"] == helper.identity


class _Slow(HashingEmbedder):
    """Takes a while to answer, so a stop can arrive while it works."""

    def embed(self, texts: object) -> tuple[tuple[float, ...], ...]:
        time.sleep(1.5)
        return super().embed(texts)  # type: ignore[arg-type]


def test_a_stop_lets_the_request_in_flight_finish_first() -> None:
    """helper stop ends the loop, but the helper leaves only once nothing is in flight: a
    forwarded command may be writing its index."""
    helper = ThreadHelper(_Slow(16))
    client = helper.client(local=SpaceOnly(HashingEmbedder(16)))
    got: list[object] = []
    worker = threading.Thread(target=lambda: got.append(client.embed(["slow"])))
    worker.start()
    time.sleep(0.2)
    assert ask_helper(helper.place, "stop") is not None
    time.sleep(0.7)  # the loop sees the stop within one accept poll (0.5 s)
    assert helper.serving(), "the loop returned with a request in flight"
    worker.join(timeout=10)
    assert got == [HashingEmbedder(16).embed(["slow"])]
    helper.wait_stopped(timeout=10)
    assert not helper.serving()


def test_the_newest_source_decides_the_code_stamp(tmp_path: Path) -> None:
    """Only .py files count, __pycache__ never; the newest one wins."""
    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    for name, stamp in (
        ("a.py", 10),
        ("sub/b.py", 30),
        ("sub/notes.txt", 90),
        ("sub/__pycache__/b.cpython-311.py", 80),
    ):
        (package / name).write_text("x")
        os.utime(package / name, ns=(stamp, stamp))
    assert newest_source(package) == 30
    (tmp_path / "empty").mkdir()
    assert newest_source(tmp_path / "empty") == 0


def test_an_edited_program_gets_another_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout edited or pulled under a running helper: its commands go to a new one."""
    before = helper_key({})
    monkeypatch.setattr("memhtml.app.bootstrap.warm_key.code_stamp", lambda: 1)
    assert helper_key({}) != before


def test_a_helper_without_a_model_refuses_to_embed() -> None:
    """A lexical-only store's helper runs commands only: a vector is embedded here."""
    helper = ThreadHelper(None)
    local = HashingEmbedder(16)
    client = helper.client(local=local)
    assert client.embed_query("q") == local.embed_query("q")
    assert not client.served_by_helper
    hello = ask_helper(helper.place, "hello")
    assert hello is not None
    assert hello["watermark"] is None


def test_without_posix_no_helper_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """No Unix sockets or fork: every command runs in its own process."""
    monkeypatch.setattr("memhtml.app.bootstrap.warm_key.SUPPORTED", False)
    assert served_backend({}) is None
    local = command_line_embedder({"MEMHTML_EMBED": "local"})
    assert local is not None
    assert not isinstance(local, HelperEmbedder)


def test_status_without_posix_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memhtml.app.bootstrap.warm_key.SUPPORTED", False)
    found = helper_status({})
    assert (found.enabled, found.running, found.socket) == (False, False, None)
    assert found.reason is not None
    assert "POSIX" in found.reason
