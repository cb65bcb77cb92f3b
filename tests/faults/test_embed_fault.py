"""``index embed`` killed right after a slice of vectors was stored, with the real local model:
the vectors that landed stay, the next ``index embed`` fills the rest, and the store recovers."""

from __future__ import annotations

import json
from pathlib import Path

from tests.faults.harness import assert_recovered, build_base, invoke, run_killed_at

LOCAL: dict[str, str | None] = {"MEMHTML_EMBED": "local"}


def embed_report(root: Path) -> dict[str, int]:
    """``index embed`` with the local model, in-process."""
    result = invoke(["--repo", str(root), "index", "embed"], env=LOCAL)
    assert 0 == result.exit_code, result.stdout + result.stderr
    data: dict[str, int] = json.loads(result.stdout)["data"]
    return data


def test_embed_killed_after_a_slice_keeps_what_landed(tmp_path: Path) -> None:
    """Killed after its slice was stored: the vectors are there, nothing remains to embed,
    and doctor --fix finds the store whole."""
    store = build_base(tmp_path / "store", memories=6)
    run_killed_at(store.root, "embed.slice", ["index", "embed"], MEMHTML_EMBED="local")
    after = embed_report(store.root)
    assert (0, 0) == (after["embeddingsWritten"], after["embeddingsRemaining"])
    assert after["chunks"] == after["embeddings"] > 0
    assert_recovered(store.root)
