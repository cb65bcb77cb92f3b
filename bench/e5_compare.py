"""MiniLM against e5 on LoCoMo, in one interleaved session: indexing cost and turn recall.

For each of the first N conversations both embedders build a store through the real write path
and indexer (``apply`` without vectors, then a timed ``index rebuild`` that embeds every chunk),
in alternating order so load bursts on the shared machine hit both alike. Every store then
answers every question three times: with the vector arm alone (``--arms vector``), with the
default hybrid fold, and with the hybrid fold without MMR (``--mmr-lambda 1``). e5 is
compared with MiniLM by a paired bootstrap over questions (95 %, seeded,
``domain/paired_bootstrap``), over categories 1–4 as ``eval locomo`` scores them. Retrieval
is deterministic, so only the timings depend on the machine; the load average is printed
before and after.

    .venv/bin/python -m bench.e5_compare --conversations 3 --out bench/results/e5-locomo.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from bench.locomo_levers import METRICS, compare, run_variant
from bench.machine import machine_line
from memhtml.app.bootstrap import Services, Settings, build_embedder, fixed_clock
from memhtml.app.bootstrap.config import EmbedBackend, EmbedSettings
from memhtml.app.eval.compare import SCORED_CATEGORIES
from memhtml.app.eval.locomo.conversion import convert
from memhtml.app.eval.locomo.data_path import resolve_data_path
from memhtml.app.eval.locomo.dataset import Conversation, load_dataset
from memhtml.app.eval.locomo.queries import build_queries
from memhtml.app.eval.locomo.runner import CLOCK_AFTER_LAST_SESSION
from memhtml.app.store import Store
from memhtml.ports.embedder import EmbeddingModel
from memhtml.ports.retrieval import RankingOptions

BACKENDS: Final[tuple[EmbedBackend, ...]] = ("local", "e5")
VARIANTS: Final = {
    "vector only": RankingOptions(arms=("vector",)),
    "hybrid": RankingOptions(),
    "hybrid, MMR off": RankingOptions(mmr_lambda=1.0),
}


@attrs.frozen(kw_only=True)
class Built:
    """One conversation's store for one embedder, and what its rebuild cost."""

    store: Store
    queries: Any
    by_path: Any
    chunks: int
    wall_s: float
    cpu_s: float


def loadavg() -> str:
    """The 1/5/15-minute load averages, as /proc/loadavg has them."""
    return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])


def build(
    conversation: Conversation, backend: EmbedBackend, embedder: EmbeddingModel, workdir: Path
) -> Built:
    """Apply the conversation without vectors, then time the rebuild that embeds every chunk."""
    converted = convert(conversation, "turn")
    settings = Settings(
        root=workdir / f"{conversation.sample_id}-{backend}",
        embed=EmbedSettings(backend=backend),
    )
    clock = fixed_clock(conversation.last_session_at + CLOCK_AFTER_LAST_SESSION)
    store = Store(Services(settings, clock=clock, embedder=embedder))
    store.initialize(databases_created=True)
    store.apply(converted.ops, embed=False)
    wall, cpu = time.perf_counter(), time.process_time()
    report = store.index_rebuild(embed=True)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if report.model_failure is not None or report.embeddings_written != report.chunks_indexed:
        raise RuntimeError(f"{conversation.sample_id} {backend}: {report.model_failure}")
    return Built(
        store=store,
        queries=build_queries(conversation),
        by_path=converted.by_path(),
        chunks=report.chunks_indexed,
        wall_s=wall,
        cpu_s=cpu,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Build both embedders' stores interleaved, score both variants, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data")
    parser.add_argument("--conversations", type=int, default=3)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    before = loadavg()
    embedders: dict[EmbedBackend, EmbeddingModel] = {}
    for backend in BACKENDS:
        embedder = build_embedder(EmbedSettings(backend=backend))
        if embedder is None:
            raise RuntimeError(f"{backend} built no embedder")
        embedder.embed_query("load the model before anything is timed")
        embedders[backend] = embedder
    chosen = load_dataset(resolve_data_path(args.data)).conversations[: args.conversations]
    built: dict[EmbedBackend, list[Built]] = {backend: [] for backend in BACKENDS}
    with tempfile.TemporaryDirectory(prefix="memhtml-e5-") as folder:
        for index, conversation in enumerate(chosen):
            order = BACKENDS if index % 2 == 0 else BACKENDS[::-1]
            for backend in order:
                built[backend].append(
                    build(conversation, backend, embedders[backend], Path(folder))
                )
        rows = {
            (backend, variant): [
                row
                for row in run_variant(
                    [(b.store, b.queries, b.by_path) for b in built[backend]], options
                )
                if row["category"] in SCORED_CATEGORIES
            ]
            for variant, options in VARIANTS.items()
            for backend in BACKENDS
        }
        for stores in built.values():
            for each in stores:
                each.store.close()
    after = loadavg()
    results = report(built, rows, before=before, after=after, conversations=len(chosen))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1), encoding="utf-8")


def report(
    built: dict[EmbedBackend, list[Built]],
    rows: dict[tuple[EmbedBackend, str], list[dict[str, Any]]],
    *,
    before: str,
    after: str,
    conversations: int,
) -> dict[str, Any]:
    """Print the indexing and recall tables; return everything as JSON-ready data."""
    print(f"{machine_line()} · load average {before} before, {after} after")
    print(f"\nLoCoMo, first {conversations} conversations, turn granularity\n")
    print("| embedder | chunks | rebuild wall s | chunks/s (wall) | rebuild CPU s | chunks/CPU s |")
    print("|---|---:|---:|---:|---:|---:|")
    indexing: dict[str, Any] = {}
    for backend, stores in built.items():
        chunks = sum(b.chunks for b in stores)
        wall = sum(b.wall_s for b in stores)
        cpu = sum(b.cpu_s for b in stores)
        watermark = stores[0].store.services.watermark
        indexing[backend] = {"watermark": watermark, "chunks": chunks, "wall_s": wall, "cpu_s": cpu}
        print(
            f"| {watermark} | {chunks} | {wall:.1f} | {chunks / wall:.1f} | {cpu:.1f} | "
            f"{chunks / cpu:.1f} |"
        )
    print("\n| variant | embedder | " + " | ".join(name for name, _, _ in METRICS) + " |")
    print("|---|---|" + "---:|" * len(METRICS))
    recall: dict[str, Any] = {}
    for variant in VARIANTS:
        base = rows[("local", variant)]
        for backend in BACKENDS:
            ours = rows[(backend, variant)]
            metrics = compare(base, ours)
            recall[f"{variant} / {backend}"] = {"metrics": metrics, "questions": ours}
            cells = []
            for name, _, _ in METRICS:
                entry = metrics[name]
                if backend == "local":
                    cells.append(f"{entry['mean']:.3f}")
                else:
                    mark = "*" if entry["supported"] else ""
                    cells.append(
                        f"{entry['mean']:.3f} ({entry['delta']:+.3f}{mark}, "
                        f"{entry['low']:+.3f}…{entry['high']:+.3f})"
                    )
            print(f"| {variant} | {backend} | " + " | ".join(cells) + " |")
    return {"loadavg": {"before": before, "after": after}, "indexing": indexing, "recall": recall}


if __name__ == "__main__":
    main()
