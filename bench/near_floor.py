"""Where the near-duplicate floor goes: first-chunk cosines on the discrimination gate's fixture.

The gate's generator plants, beside its base memories, an archived earlier copy of every sixth
procedural memory (the claim reworded, the rest of the article the same: a restatement, the
thing the near-duplicate assist exists to catch) and three near-twin controls per probe target
(negated, renumbered, qualified: other facts, worded almost alike). For each model this prints
the cosine distribution of

- restatements: a live memory and its earlier copy;
- each control family against its target;
- background: each base memory against its nearest other base memory that is neither its
  restatement nor its control (what a floor must stay above to keep quiet on ordinary writes).

Vectors are each file's first chunk, embedded by the model, compared as the assist compares
them (``1 - vec_distance_cosine``'s float32 loop). Run:
``.venv/bin/python -m bench.near_floor [--seeds N] [--models fake,local]``.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence

from bench.machine import machine_line
from memhtml.app.bootstrap import build_embedder, fake_bow_embedder, memory_codec
from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.app.eval.discrimination.generator import build_fixture
from memhtml.app.eval.discrimination.rendering import render_files
from memhtml.domain.chunking import chunk_text
from memhtml.domain.vectors import f32_cosine_distance, pack_f32
from memhtml.ports.embedder import Embedder

SIZE = 200
PROBES = 36
FIRST_SEED = 20260802


def first_chunks(seed: int) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """Each file's first chunk by path, and the labelled pairs ``(kind, a, b)``."""
    fixture = build_fixture(seed, SIZE, PROBES, None)
    codec = memory_codec()
    texts: dict[str, str] = {}
    for path, data in render_files(fixture, codec).items():
        doc = codec.parse(data)
        chunks = chunk_text(doc.content_hash, doc.body_text)
        if chunks:
            texts[path] = chunks[0].text
    pairs: list[tuple[str, str, str]] = []
    for file in fixture.files:
        if file.role == "archived" and file.superseded_by is not None:
            pairs.append(("restatement", file.superseded_by, file.path))
    for probe in fixture.probes:
        for control in probe.controls:
            pairs.append((str(control.family), probe.target_path, control.path))
    return texts, pairs


def similarity(a: bytes, b: bytes) -> float:
    distance = f32_cosine_distance(a, b)
    return 0.0 if distance is None else 1.0 - distance


def summary(values: Sequence[float]) -> str:
    ordered = sorted(values)

    def pct(p: float) -> float:
        return ordered[max(0, min(len(ordered) - 1, round(p / 100 * len(ordered)) - 1))]

    return (
        f"{len(ordered):>4} | {ordered[0]:.3f} | {pct(5):.3f} | {statistics.median(ordered):.3f}"
        f" | {pct(95):.3f} | {pct(99):.3f} | {ordered[-1]:.3f}"
    )


def measure(embedder: Embedder, seeds: Sequence[int]) -> dict[str, list[float]]:
    """Cosines per kind over every seed's fixture."""
    found: dict[str, list[float]] = {}
    for seed in seeds:
        texts, pairs = first_chunks(seed)
        paths = sorted(texts)
        vectors = dict(
            zip(
                paths, (pack_f32(v) for v in embedder.embed([texts[p] for p in paths])), strict=True
            )
        )
        related: dict[str, set[str]] = {}
        for kind, a, b in pairs:
            found.setdefault(kind, []).append(similarity(vectors[a], vectors[b]))
            related.setdefault(a, set()).add(b)
            related.setdefault(b, set()).add(a)
        bases = [
            p
            for p in paths
            if not p.startswith("archive/")
            and "alternate-figure" not in p
            and "disputed-reading" not in p
            and "edition-note" not in p
        ]
        found.setdefault("background (nearest)", []).extend(
            _nearest_background(bases, vectors, related)
        )
    return found


def _nearest_background(
    bases: Sequence[str], vectors: dict[str, bytes], related: dict[str, set[str]]
) -> list[float]:
    """Each base memory's highest cosine to another unrelated base memory.

    A float32 matrix product (the pairwise loop in Python took minutes per seed); it agrees
    with the stored-vector loop to about 1e-6, far below the resolution a floor needs.
    """
    import numpy as np

    matrix = np.stack([np.frombuffer(vectors[p], dtype="<f4") for p in bases])
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0, 1, norms)
    sims = unit @ unit.T
    index = {p: i for i, p in enumerate(bases)}
    for i, path in enumerate(bases):
        sims[i, i] = -np.inf
        for other in related.get(path, set()):
            if other in index:
                sims[i, index[other]] = -np.inf
    return [float(v) for v in sims.max(axis=1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--models", default="fake,local")
    args = parser.parse_args()
    seeds = [FIRST_SEED + i for i in range(args.seeds)]
    print(f"`{machine_line()}`\n")
    print(f"Gate fixture, size {SIZE}, {PROBES} probes, seeds {seeds[0]}…{seeds[-1]}.\n")
    for name in args.models.split(","):
        embedder = fake_bow_embedder() if name == "fake" else build_embedder(EmbedSettings())
        assert embedder is not None
        print(f"**{embedder.watermark}**\n")
        print("| pairs | n | min | p5 | median | p95 | p99 | max |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for kind, values in sorted(measure(embedder, seeds).items()):
            print(f"| {kind} | {summary(values)} |")
        print()


if __name__ == "__main__":
    main()
