"""A store nobody closes: released when collected, and quiet at interpreter exit."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

from dulwich.repo import Repo

import memhtml
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.app.store import init_store_at
from memhtml.domain.write_requests import WriteRequest

NOTE = WriteRequest(title="Left open", memory_type="semantic", claim="Nobody closes this store.")


def _held_index_files() -> list[str]:
    """The index and state databases this process holds open, by their descriptors."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.endswith(("index.db", "state.db")):
            held.append(target)
    return held


def _seeded(root: Path) -> None:
    """A store with one memory, its objects packed as a long-lived repository's are."""
    init_store_at(root, environ={})
    with memhtml.open(root, environ={}, embedder=HashingEmbedder()) as store:
        store.write(NOTE)
    with Repo(str(root)) as repo:
        repo.object_store.pack_loose_objects()


def test_a_dropped_store_releases_its_databases_and_packs(tmp_path: Path) -> None:
    """Collected unclosed, the store closes its repository: dulwich warns of no open pack."""
    root = tmp_path / "store"
    _seeded(root)
    before = _held_index_files()
    store = memhtml.open(root, environ={}, embedder=HashingEmbedder())
    store.search("closes")
    store.read(store.search("closes").hits[0].path)
    assert len(_held_index_files()) > len(before)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del store
        gc.collect()
    assert before == _held_index_files()
    assert [] == [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


def test_closing_twice_is_harmless(tmp_path: Path) -> None:
    root = tmp_path / "store"
    _seeded(root)
    store = memhtml.open(root, environ={}, embedder=HashingEmbedder())
    store.close()
    store.close()
    assert [] == [path for path in _held_index_files() if path.startswith(str(root))]


def test_a_script_that_never_closes_exits_without_warnings(tmp_path: Path) -> None:
    """Open, search, exit: nothing on stderr (dulwich's finalizers used to run in teardown)."""
    root = tmp_path / "store"
    _seeded(root)
    script = textwrap.dedent(
        f"""
        import memhtml
        from memhtml.adapters.hashing.embedder import HashingEmbedder
        store = memhtml.open({str(root)!r}, environ={{}}, embedder=HashingEmbedder())
        for n in range(3):
            store.search(f"closes {{n}}")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120
    )
    assert (0, "") == (done.returncode, done.stderr)
