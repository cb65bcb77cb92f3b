"""What a long query costs (issue 14): the query length limit and the full-text term cap.

Over bench_search's generated 10,000-memory index (file-backed SQLite, state plane attached),
three tables:

1. A warm search, lexical and all arms (query vectors precomputed), for a short query, a
   paragraph, and a query at the length limit (4,096 characters of the corpus's words).
2. The full-text arm's two statements (the every-term probe, then the fused statement) for
   k distinct terms, k from 4 up past the cap, through the ``RankStore`` port: what each term
   costs, and what an uncapped long query used to cost.
3. The bundled local model embedding a short query and one at the limit (``--no-model``
   skips it): the part of a long query's cost the term cap cannot touch.

Run: ``.venv/bin/python -m bench.bench_long_query [--size 10000] [--runs 7]``.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from bench.bench_search import (
    EMBEDDER,
    MODEL,
    NOW,
    STAMP,
    PrecomputedEmbedder,
    arms_named,
    build,
    sqlite_retrieval,
    vocabulary,
)
from bench.machine import machine_line
from memhtml.adapters.sqlite.storage import sqlite_storage
from memhtml.adapters.system.clock import FixedClock
from memhtml.domain.fts_query import MAX_FTS_TERMS, LexicalQuery, fts_terms
from memhtml.domain.query_bounds import MAX_QUERY_CHARS
from memhtml.domain.scope import SearchScope
from memhtml.ports.rank_store import FusionQuery, RankStore
from memhtml.ports.retrieval import SearchRequest

TERM_COUNTS: Final = (4, 8, 16, 32, 64, 128, 256, 512)


def text_of(words: Sequence[str], chars: int, seed: int) -> str:
    """Words of the corpus drawn uniformly (so most are distinct), cut to ``chars``."""
    rng = random.Random(seed)
    out: list[str] = []
    length = 0
    while length < chars:
        word = rng.choice(words)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)[:chars].rstrip()


def median_ms(action: Callable[[], object], runs: int) -> float:
    """Median wall time of ``runs`` calls after one warm-up, in milliseconds."""
    action()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000.0


def lexical_arm(ranks: RankStore, terms: tuple[str, ...]) -> Callable[[], object]:
    """The planner's full-text work for ``terms``: the every-term probe, then the fusion."""
    scope = SearchScope()
    every = LexicalQuery(terms=terms, every=True)
    arms = arms_named("fts")

    def run() -> object:
        lexical = every if ranks.holds_every_term(every, scope) else LexicalQuery(terms=terms)
        return ranks.fused_ranks(
            FusionQuery(arms=arms, scope=scope, lexical=lexical, now=STAMP, limit=40)
        )

    return run


def main(argv: Sequence[str] | None = None) -> None:
    """Build the store, time the three tables, print them as markdown."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-model", action="store_true", help="skip the local model table")
    args = parser.parse_args(argv)
    words = vocabulary(random.Random(1))
    queries = {
        "short (3 words)": " ".join(words[100:103]),
        "paragraph (400 chars)": text_of(words[20:600], 400, 2),
        f"at the limit ({MAX_QUERY_CHARS:,} chars)": text_of(words, MAX_QUERY_CHARS, 3),
    }
    precomputed = PrecomputedEmbedder({q: EMBEDDER.embed_query(q) for q in queries.values()})
    clock = FixedClock(NOW)
    with tempfile.TemporaryDirectory() as directory:
        db = build(Path(directory), args.size, words)
        lexical = sqlite_retrieval(db, clock=clock, embed_model=MODEL)
        hybrid = sqlite_retrieval(db, clock=clock, embedder=precomputed)
        search_rows = []
        for name, query in queries.items():
            request = SearchRequest(query=query)
            search_rows.append(
                f"| {name} | {len(fts_terms(query, drop_stopwords=True))} "
                f"| {median_ms(functools.partial(lexical.search, request), args.runs):.1f} "
                f"| {median_ms(functools.partial(hybrid.search, request), args.runs):.1f} |"
            )
        ranks = sqlite_storage(db).ranks
        pool = fts_terms(text_of(words, 40_000, 4), max_terms=max(TERM_COUNTS))
        term_rows = [
            f"| {k} | {median_ms(lexical_arm(ranks, pool[:k]), args.runs):.1f} |"
            for k in TERM_COUNTS
        ]
        db.close()
    print(f"`{machine_line()}`\n")
    print(
        f"{args.size:,} memories; median of {args.runs} warm runs (ms). Full-text cap "
        f"{MAX_FTS_TERMS} terms, query limit {MAX_QUERY_CHARS:,} characters.\n"
    )
    print("| query | fts terms | lexical search | all-arms search |\n|---|---:|---:|---:|")
    print("\n".join(search_rows))
    print("\n| distinct terms | full-text arm (probe + fused) |\n|---:|---:|")
    print("\n".join(term_rows))
    if not args.no_model:
        print("\n| local model, embed_query | ms |\n|---|---:|")
        print("\n".join(model_rows(queries, args.runs)))


def model_rows(queries: dict[str, str], runs: int) -> list[str]:
    """The bundled MiniLM embedding each query (it truncates at 512 tokens)."""
    from memhtml.adapters.local import OnnxMiniLmEmbedder

    model = OnnxMiniLmEmbedder()
    return [
        f"| {name} | {median_ms(functools.partial(model.embed_query, query), runs):.1f} |"
        for name, query in queries.items()
    ]


if __name__ == "__main__":
    main()
