"""A search that has no use for the cosine table never imports numpy (~0.12 s per command)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

# Twelve memories that all match the query; with vectors each carries a 16-wide one in the
# fixture's space, so polarity and MMR have pairs to compare, but far too few to pay for numpy.
SEARCH_SCRIPT = """
import datetime as dt, json, sys
from memhtml.adapters.sqlite.connection import Database
from tests.support import sqlite_retrieval
from memhtml.adapters.system.clock import FixedClock
from memhtml.ports.retrieval import SearchRequest
from tests.fakes.retrieval_rows import TEST_SPACE, ChunkRow, MemoryRow, load_rows

with_vectors = sys.argv[2] == "vectors"
db = Database.open(sys.argv[1])
rows = [
    MemoryRow(
        path=f"resources/notes/note-{i}.html",
        gist=f"the cache warms on boot, step {i}",
        body_text=f"the cache warms on boot, step {i}",
        chunks=(
            ChunkRow(
                text=f"the cache warms on boot, step {i}",
                vector=tuple(float((i * k) % 5) for k in range(16)) if with_vectors else None,
            ),
        ),
    )
    for i in range(12)
]
load_rows(db, rows)
clock = FixedClock(dt.datetime(2026, 10, 1, tzinfo=dt.UTC))
retrieval = sqlite_retrieval(db, clock=clock, embed_model=TEST_SPACE)
hits = retrieval.search(SearchRequest(query="cache warms on boot", limit=10)).hits
print(json.dumps([len(hits), "numpy" in sys.modules]))
"""


@pytest.mark.parametrize("vectors", ["vectors", "no-vectors"])
def test_a_small_or_lexical_search_leaves_numpy_unimported(tmp_path: Path, vectors: str) -> None:
    """Ten hits from a 12-memory pool, with or without vectors, in a fresh interpreter: no numpy."""
    done = subprocess.run(
        [sys.executable, "-c", SEARCH_SCRIPT, str(tmp_path / "index.db"), vectors],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    assert [10, False] == json.loads(done.stdout)
