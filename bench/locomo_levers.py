"""Ranking levers on LoCoMo, one at a time, against one baseline, with paired bootstraps.

The stores are built once per run (one per conversation, through the real write path and
indexer) and every variant searches the same stores, so a lever's effect is the ranking's
alone. Per question it records turn R@5/R@10/MRR and session R@5/MRR; each variant is compared
with the first by a paired bootstrap over questions (95 %, seeded). Index-time levers (the
tokenizer) are separate runs: ``--tokenizer porter``.

    .venv/bin/python -m bench.locomo_levers --mode hybrid --out bench/results/levers.json
    .venv/bin/python -m bench.locomo_levers --variants baseline,no-priors --conversations 2

``--stores DIR`` keeps the built stores in ``DIR`` and reuses them on the next run with the same
build settings (searches write nothing, so a reused store ranks as a fresh one); a run asking
for other settings than the ones recorded there is refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from bench.machine import machine_line
from memhtml.app.bootstrap import Services, Settings, build_embedder, fixed_clock
from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.app.eval.locomo.conversion import convert
from memhtml.app.eval.locomo.data_path import resolve_data_path
from memhtml.app.eval.locomo.dataset import load_dataset
from memhtml.app.eval.locomo.queries import build_queries
from memhtml.app.eval.locomo.runner import CLOCK_AFTER_LAST_SESSION, score_query
from memhtml.app.store import Store
from memhtml.domain.paired_bootstrap import paired_bootstrap
from memhtml.ports.embedder import EmbeddingModel
from memhtml.ports.retrieval import RankingOptions, SearchRequest

METRICS: Final = (
    ("turn R@5", "turn", "recall5"),
    ("turn R@10", "turn", "recall10"),
    ("turn MRR", "turn", "mrr"),
    ("session R@5", "session", "recall5"),
    ("session MRR", "session", "mrr"),
)
VARIANTS: Final[Mapping[str, Mapping[str, Any]]] = {
    "baseline": {},
    "no-priors": {"arms": ("fts", "vector")},
    "gated": {"gate_priors": True},
    "evidence-first": {"evidence_first": True},
    "evidence-first+floor0.3": {"evidence_first": True, "vector_floor": 0.3},
    "floor0.3": {"vector_floor": 0.3},
    "mmr-off": {"mmr_lambda": 1.0},
    "mmr-fused": {"mmr_relevance": "fused"},
    "mmr-fused-0.7": {"mmr_relevance": "fused", "mmr_lambda": 0.7},
    "mmr-text": {"mmr_text": True},
    "priors-0.1": {"weights": (("recency", 0.1), ("salience", 0.1))},
    "priors-0.1-gated": {"weights": (("recency", 0.1), ("salience", 0.1)), "gate_priors": True},
}


def with_context(neighbours: Mapping[str, str]) -> Any:
    """An experiment-only projection that appends each turn's neighbour text to its full-text
    document (not to what is displayed or embedded): the contextual lexical document lever."""
    from memhtml.domain.projection import project_file

    def project(*, path: str, blob_sha: str, doc: Any, indexed_at: str) -> Any:
        projection = project_file(path=path, blob_sha=blob_sha, doc=doc, indexed_at=indexed_at)
        extra = neighbours.get(path)
        if not extra:
            return projection
        row = attrs.evolve(projection.row, fts_text=f"{projection.row.fts_text} {extra}")
        return attrs.evolve(projection, row=row)

    return project


def neighbour_texts(converted: Any, parts: str) -> dict[str, str]:
    """Per turn path, its context: ``prev`` and ``next`` add the neighbouring turn's text in
    the same session, ``meta`` the tag and entity names (comma-separated parts)."""
    chosen = set(parts.split(","))
    texts: dict[str, str] = {}
    ops = list(converted.ops)
    items = list(converted.items)
    for i, item in enumerate(items):
        extra = []
        if "prev" in chosen and i > 0 and items[i - 1].session == item.session:
            extra.append(ops[i - 1].request.claim)
        if "next" in chosen and i + 1 < len(items) and items[i + 1].session == item.session:
            extra.append(ops[i + 1].request.claim)
        if "meta" in chosen:
            request = ops[i].request
            extra.extend(request.tags)
            extra.extend(entity.partition(":")[2].replace("-", " ") for entity in request.entities)
        if extra:
            texts[item.path] = " ".join(extra)
    return texts


def build_stores(
    data: str | None,
    workdir: Path,
    *,
    conversations: int | None,
    tokenizer: str,
    embedder: EmbeddingModel | None,
    context: str = "none",
    context_parts: str | None = None,
    reuse: bool = False,
) -> list[tuple[Store, Any, Any]]:
    """One store per conversation: (store, its queries, its path → item map).

    ``context`` appends neighbour text to the own full-text document (an experiment hook);
    ``context_parts`` chooses what the ``context`` arm's documents hold (comma-separated parts
    of ``domain.lexical_context.CONTEXT_PARTS``; ``None`` keeps the default).
    """
    import memhtml.app.indexing.parse_stream as rebuild_module
    import memhtml.domain.lexical_context as lexical_context

    if context_parts is not None:
        chosen_parts = frozenset(part for part in context_parts.split(",") if part)
        vars(lexical_context)["DEFAULT_CONTEXT_PARTS"] = chosen_parts

    dataset = load_dataset(resolve_data_path(data))
    chosen = dataset.conversations[: conversations or None]
    stores = []
    original = vars(rebuild_module)["project_file"]
    for conversation in chosen:
        converted = convert(conversation, "turn")
        if context != "none":
            vars(rebuild_module)["project_file"] = with_context(neighbour_texts(converted, context))
        settings = Settings(
            root=workdir / conversation.sample_id,
            embed=EmbedSettings(backend="local" if embedder else "off"),
            fts_tokenizer=tokenizer,
        )
        clock = fixed_clock(conversation.last_session_at + CLOCK_AFTER_LAST_SESSION)
        store = Store(Services(settings, clock=clock, embedder=embedder or False))
        if not reuse:
            store.initialize(databases_created=True)
            store.apply(converted.ops, embed=False)
            store.index_rebuild(embed=embedder is not None)
        vars(rebuild_module)["project_file"] = original
        stores.append((store, build_queries(conversation), converted.by_path()))
    return stores


def run_variant(
    stores: Sequence[tuple[Store, Any, Any]], options: RankingOptions, limit: int = 10
) -> list[dict[str, Any]]:
    """Per question: its ids and the five scores."""
    rows = []
    for store, query_set, by_path in stores:
        for query in query_set.queries:
            answer = store.search(SearchRequest(query=query.question, limit=limit, options=options))
            outcome = score_query(query, [hit.path for hit in answer.hits], by_path, 0.0)
            row: dict[str, Any] = {"qa": query.qa_index, "category": query.category}
            for name, level, field in METRICS:
                scores = outcome.turn if level == "turn" else outcome.session
                row[name] = getattr(scores, field) if scores is not None else 0.0
            rows.append(row)
    return rows


def compare(baseline: list[dict[str, Any]], variant: list[dict[str, Any]]) -> dict[str, Any]:
    """Per metric: the variant's mean and its paired bootstrap against the baseline."""
    report: dict[str, Any] = {}
    for name, _, _ in METRICS:
        base = [row[name] for row in baseline]
        ours = [row[name] for row in variant]
        interval = paired_bootstrap(base, ours)
        report[name] = {
            "mean": sum(ours) / len(ours),
            "delta": interval.mean,
            "low": interval.low,
            "high": interval.high,
            "supported": interval.excludes_zero,
        }
    return report


def main(argv: Sequence[str] | None = None) -> None:
    """Build the stores, run every variant, print the lever table and write the details."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data")
    parser.add_argument("--mode", choices=("hybrid", "lexical"), default="hybrid")
    parser.add_argument("--tokenizer", choices=("unicode61", "porter"), default="unicode61")
    parser.add_argument("--conversations", type=int)
    parser.add_argument(
        "--context", default="none", help="none, or comma-separated parts: prev, next, meta"
    )
    parser.add_argument(
        "--context-parts",
        default=None,
        help="what the context arm's documents hold: comma-separated meta, links, prev ('' none)",
    )
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--set", action="append", default=[], help="name:json-kwargs variant")
    parser.add_argument("--out")
    parser.add_argument("--stores", help="keep the stores here and reuse them on the next run")
    args = parser.parse_args(argv)
    chosen = {name: VARIANTS[name] for name in args.variants.split(",") if name}
    for spec in args.set:
        name, _, kwargs = spec.partition(":")
        chosen[name] = json.loads(kwargs)
    embedder = build_embedder(EmbedSettings(backend="local")) if args.mode == "hybrid" else None
    started = time.perf_counter()
    results: dict[str, Any] = {}
    build = {
        "mode": args.mode,
        "tokenizer": args.tokenizer,
        "context": args.context,
        "contextParts": args.context_parts,
        "conversations": args.conversations,
        "data": str(resolve_data_path(args.data)),
    }
    with _store_folder(args.stores) as folder:
        reuse = _reusable(folder, build)
        stores = build_stores(
            args.data,
            folder,
            reuse=reuse,
            conversations=args.conversations,
            tokenizer=args.tokenizer,
            embedder=embedder,
            context=args.context,
            context_parts=args.context_parts,
        )
        if not reuse:
            (folder / _BUILD_RECORD).write_text(json.dumps(build), encoding="utf-8")
        built = time.perf_counter() - started
        rows = {}
        for name, kwargs in chosen.items():
            options = RankingOptions(**_tupled(kwargs))
            rows[name] = run_variant(stores, options)
        for store, _, _ in stores:
            store.close()
    first = next(iter(rows))
    print(
        f"{machine_line()} · {args.mode} · {args.tokenizer} · context {args.context} · "
        f"built in {built:.0f} s"
    )
    header = "| variant | " + " | ".join(name for name, _, _ in METRICS) + " |"
    print(header)
    print("|---|" + "---:|" * len(METRICS))
    for name, variant_rows in rows.items():
        report = compare(rows[first], variant_rows)
        results[name] = {"options": chosen[name], "metrics": report, "questions": variant_rows}
        cells = []
        for metric, _, _ in METRICS:
            entry = report[metric]
            mark = "*" if entry["supported"] else ""
            cells.append(f"{entry['mean']:.3f} ({entry['delta']:+.3f}{mark})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1), encoding="utf-8")


_BUILD_RECORD: Final = "build.json"


@contextlib.contextmanager
def _store_folder(kept: str | None) -> Iterator[Path]:
    if kept is not None:
        Path(kept).mkdir(parents=True, exist_ok=True)
        yield Path(kept)
        return
    with tempfile.TemporaryDirectory(prefix="memhtml-levers-") as folder:
        yield Path(folder)


def _reusable(folder: Path, build: Mapping[str, Any]) -> bool:
    """Whether ``folder`` holds stores built with ``build``; other stores there are an error."""
    record = folder / _BUILD_RECORD
    if not record.exists():
        if any(folder.iterdir()):
            raise SystemExit(f"{folder} holds files but no {_BUILD_RECORD}: choose an empty folder")
        return False
    held = json.loads(record.read_text(encoding="utf-8"))
    if held != build:
        raise SystemExit(f"{folder} holds stores built with {held}, not {dict(build)}")
    return True


def _tupled(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {
        k: tuple(tuple(v) if isinstance(v, list) else v for v in value)
        if isinstance(value, list)
        else value
        for k, value in kwargs.items()
    }


if __name__ == "__main__":
    main()
