"""Search and recall latency (issue 5): warm, in-process, over generated corpora.

Memories are written straight into a file-backed index as rows: one chunk each, a 384-dim vector
from the hashing embedder, a fifth of them with an access row, a tenth archived, a twentieth
tasks, projects over 20 workspaces. Query vectors are precomputed, so embedding time is not
measured. Each (size, mode, operation) runs the query set ``--repeats`` times after a warm-up,
interleaved: every row takes its turn on each query before the next query, so a burst of load
lands on all rows alike (rows timed one after another differed by a third on this 2-core
machine). The table reports the median of the per-run p50 and p95 with the spread across runs.

A second table splits an all-arms search at each size into its parts, to show where the time
goes: the fused statement, the vector arm alone, the lexical fold alone, and polarity + MMR.
Each memory also names two entities (mid-frequency words, so queries name some) and links to
one older memory, so the opt-in entity and graph arms (issue 15) have work to do.

Run: ``.venv/bin/python -m bench.bench_search [--sizes 1000,10000,50000] [--queries 20]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final

import attrs
import sqlite_vec

from bench.machine import machine_line, percentile_ms
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.numpy import NumpyPairwiseCosine
from memhtml.adapters.sqlite.arm_sql import (
    ArmHoles,
)
from memhtml.adapters.sqlite.connection import Database, SqlValue, Write
from memhtml.adapters.sqlite.context_sql import refresh_context_writes
from memhtml.adapters.sqlite.fused_search import run_fusion
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan
from memhtml.adapters.sqlite.schema import FILE_COLUMNS, WRITE_BATCH_SIZE
from memhtml.adapters.sqlite.scope_sql import assemble_scope
from memhtml.adapters.sqlite.session_sql import REFRESH_SESSION_WRITES
from memhtml.adapters.sqlite.storage import sqlite_storage
from memhtml.adapters.sqlite.vector_preselect import VectorPreselector
from memhtml.adapters.sqlite.vectors import pack_f32
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.bootstrap import retrieval_over
from memhtml.app.retrieval import RetrievalPipeline
from memhtml.domain.fusion import DEFAULT_ARM_LIMIT, RANK_ARMS, ArmSpec
from memhtml.domain.mmr import mmr_select
from memhtml.domain.polarity import PolarityCandidate, polarity_scored
from memhtml.ports.clock import Clock
from memhtml.ports.embedder import QueryEmbedder, Vector
from memhtml.ports.retrieval import RankingOptions, RecallRequest, SearchRequest

DIM: Final = 384
EMBEDDER: Final = HashingEmbedder(dim=DIM)
MODEL: Final = EMBEDDER.watermark
VOCABULARY: Final = 3000
WORDS_PER_MEMORY: Final = 24
WORKSPACES: Final = 20
SESSION_SIZE: Final = 20
NOW: Final = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
STAMP: Final = "2026-11-01T00:00:00Z"


def vocabulary(rng: random.Random, count: int = VOCABULARY) -> list[str]:
    """``count`` pronounceable pseudo-words, sorted (the corpus draws them with Zipf weights, so
    a few are common)."""
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    words: set[str] = set()
    while len(words) < count:
        size = rng.randint(2, 4)
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(size)))
    return sorted(words)


def memory_writes(index: int, words: Sequence[str], rng: random.Random) -> list[Write]:
    """The rows of one memory: files, its one chunk and vector, maybe an access row."""
    text = " ".join(rng.choices(words, weights=ZIPF, k=WORDS_PER_MEMORY))
    para = rng.choices(("projects", "areas", "resources", "archive"), (4, 3, 2, 1))[0]
    workspace = f"ws-{rng.randrange(WORKSPACES):02d}" if para == "projects" else None
    path = f"{para}/{workspace or 'x'}/m{index:06d}.html"
    # Every other block of SESSION_SIZE memories is one conversation: episodic turns of a
    # session, so the session arm (docs/ranking.md §2.9) has documents to rank.
    in_session = (index // SESSION_SIZE) % 2 == 0
    kind = "task" if index % 20 == 7 else "episodic" if in_session else "semantic"
    day = (NOW - dt.timedelta(days=rng.randrange(730))).strftime("%Y-%m-%dT%H:%M:%SZ")
    values: dict[str, SqlValue] = dict.fromkeys(FILE_COLUMNS)
    values.update(
        path=path,
        blob_sha=f"{index:040x}",
        content_hash=f"sha256:{index:064x}",
        memory_type=kind,
        title=" ".join(text.split()[:4]),
        body_text=text,
        gist=" ".join(text.split()[:8]),
        fts_text=text,
        disclosure_text=" ".join(text.split()[:8]) + ".",
        para=para,
        workspace=workspace,
        confidence=1.0,
        importance=5,
        archived=int(para == "archive"),
        word_count=WORDS_PER_MEMORY,
        created_at=day,
        updated_at=day,
        event_at=day if rng.random() < 0.3 else None,
        reprieves=0,
        needs_revision=0,
        author="agent",
        indexed_at=STAMP,
        task_status="todo" if kind == "task" else None,
        pinned=0,
        session_id=f"chat-{index // SESSION_SIZE}" if kind == "episodic" else None,
    )
    chunk_id = f"{index:064x}"
    writes: list[Write] = [
        (INSERT_FILE, tuple(values[c] for c in FILE_COLUMNS)),
        (
            "INSERT INTO chunks VALUES (?, ?, ?, 0, ?, ?)",
            (chunk_id, path, values["content_hash"], text, len(text)),
        ),
        (
            "INSERT INTO embeddings VALUES (?, ?, ?, ?, ?)",
            (chunk_id, MODEL, DIM, pack_f32(EMBEDDER.embed_query(text)), STAMP),
        ),
    ]
    # Two entities named by mid-frequency words (what the entity arm matches a query against).
    for word in dict.fromkeys(rng.choices(words[100:1100], k=2)):
        writes += [
            (
                "INSERT INTO file_entities (path, entity_type, entity_name) VALUES (?, ?, ?)",
                (path, "topic", word),
            ),
            (
                "INSERT INTO entity_terms (path, surface, entity_key) VALUES (?, ?, ?)",
                (path, word, f"topic:{word}"),
            ),
        ]
    if rng.random() < 0.2:
        writes.append(
            (
                "INSERT INTO state.access (path, access_count, outcome_score, last_accessed_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?)",
                (path, rng.randint(1, 30), rng.choice((-1.0, 0.0, 0.3, 1.0)), day, day),
            )
        )
    return writes


INSERT_FILE: Final = (
    f"INSERT INTO files ({', '.join(FILE_COLUMNS)}) VALUES ({', '.join('?' for _ in FILE_COLUMNS)})"
)
ZIPF: Final = [1.0 / (rank + 1) for rank in range(VOCABULARY)]
LINK_RELS: Final = ("fixes", "caused_by", "supports", "relates_to", "part_of")


def build(directory: Path, size: int, words: Sequence[str]) -> Database:
    """A file-backed index and state plane holding ``size`` generated memories."""
    db = Database.open(directory / "index.db", state_path=directory / "state.db")
    rng = random.Random(size)
    pending: list[Write] = []
    paths: list[str] = []
    for index in range(size):
        writes = memory_writes(index, words, rng)
        paths.append(str(writes[0][1][0]))
        pending.extend(writes)
        if len(pending) >= WRITE_BATCH_SIZE:
            db.write_all(pending)
            pending = []
    # One authored link per memory to an older one, so the graph arm has edges to follow.
    for index in range(1, size):
        pending.append(
            (
                "INSERT OR IGNORE INTO edges (src_path, rel, dst_path, edge_class, created_at) "
                "VALUES (?, ?, ?, 'memory', ?)",
                (paths[index], rng.choice(LINK_RELS), paths[rng.randrange(index)], STAMP),
            )
        )
        if len(pending) >= WRITE_BATCH_SIZE:
            db.write_all(pending)
            pending = []
    db.write_all(pending)
    # As an indexing pass ends: the context arm's documents (tags, entity names, link titles).
    # and the session documents.
    db.write_all([(sql, ()) for sql in (*refresh_context_writes(), *REFRESH_SESSION_WRITES)])
    db.run("ANALYZE")
    return db


class PrecomputedEmbedder:
    """Answers query vectors from a table, so embedding time stays out of the timings."""

    watermark = MODEL

    def __init__(self, vectors: dict[str, Vector]) -> None:
        self._vectors = vectors

    def embed_query(self, text: str) -> Vector:
        """The vector computed for ``text`` before the clock started."""
        return self._vectors[text]


def queries(words: Sequence[str], count: int) -> list[str]:
    """Two to four mid-frequency words: common enough to match, rare enough to discriminate."""
    rng = random.Random(7)
    band = words[20:600]
    return [" ".join(rng.sample(band, rng.randint(2, 4))) for _ in range(count)]


def interleaved_runs(
    rows: Mapping[str, tuple[Callable[[str], object], Sequence[str]]], repeats: int
) -> dict[str, list[list[float]]]:
    """Seconds per query for each row, one list per run, after one warm-up pass. The rows take
    turns query by query; each row asks its own texts (same count), in order."""
    for action, texts in rows.values():
        for text in texts[:3]:
            action(text)
    samples: dict[str, list[list[float]]] = {name: [] for name in rows}
    count = min(len(texts) for _, texts in rows.values())
    for _ in range(repeats):
        run: dict[str, list[float]] = {name: [] for name in rows}
        for index in range(count):
            for name, (action, texts) in rows.items():
                started = time.perf_counter()
                action(texts[index])
                run[name].append(time.perf_counter() - started)
        for name, seconds in run.items():
            samples[name].append(seconds)
    return samples


def summary(samples: list[list[float]], pct: float) -> str:
    """Median across runs of a per-run percentile, with the runs' min–max."""
    values = [percentile_ms(run, pct) for run in samples]
    return f"{statistics.median(values):.1f} [{min(values):.1f}–{max(values):.1f}]"


def arms_named(*names: str) -> tuple[ArmSpec, ...]:
    """The registry entries called ``names``, in registry order."""
    return tuple(arm for arm in RANK_ARMS if arm.name in names)


def breakdown(db: Database, texts: Sequence[str], repeats: int) -> list[tuple[str, str]]:
    """Median p50 of the parts of an all-arms search."""
    scope = assemble_scope()
    vectors = {t: pack_f32(EMBEDDER.embed_query(t)) for t in texts}

    preselector = VectorPreselector(db)
    holes = ArmHoles(file_filter=scope.file_filter, gate="", embed_model=MODEL, now=STAMP)

    def fused(arms: tuple[ArmSpec, ...], *, warm: bool = False) -> Callable[[str], object]:
        # warm: the held matrix answers the vector arm, the statement re-scores and folds.
        plan = FusionPlan(arms=arms, embed_model=MODEL, now=STAMP)

        def run(t: str) -> object:
            ranked = (
                preselector.ranked(holes, scope, vector=vectors[t], arm_limit=DEFAULT_ARM_LIMIT)
                if warm
                else None
            )
            return run_fusion(
                db,
                plan,
                scope,
                match=" OR ".join(t.split()),
                vector=vectors[t],
                limit=30,
                entities=[f"topic:{word}" for word in t.split()],
                vector_ranked=ranked,
            )

        return run

    candidates = [
        PolarityCandidate(path=str(i), gist="x merges", vector=EMBEDDER.embed_query(f"c {i}"))
        for i in range(30)
    ]
    # The queries name no date, so the time arms do not fire for them (the planner offers them
    # no windows): the statement is built without them, as the pipeline builds it.
    dated = {"time", "time_words"}
    default = tuple(name for name in ARM_NAMES if name not in dated)
    every = tuple(name for name in EVERY_ARM if name not in dated)
    parts = {
        "fused statement, all arms (30 candidates)": fused(arms_named(*default)),
        "fused statement, all arms + session (opt-in)": fused(arms_named(*default, "session")),
        "session arm alone": fused(arms_named("session")),
        "fused statement, every arm (+ entity)": fused(arms_named(*every)),
        "fused statement, all arms, warm vector matrix": fused(arms_named(*default), warm=True),
        "vector arm alone": fused(arms_named("vector")),
        "vector arm alone, warm vector matrix": fused(arms_named("vector"), warm=True),
        "fts + recency + salience fold": fused(arms_named("fts", "recency", "salience")),
        "polarity + MMR over 30 candidates (384 dims)": lambda t: mmr_select(
            polarity_scored(candidates, t), limit=10
        ),
    }
    samples = interleaved_runs({name: (action, texts) for name, action in parts.items()}, repeats)
    return [(name, summary(samples[name], 50)) for name in parts]


ARM_NAMES: Final = tuple(arm.name for arm in RANK_ARMS if arm.default)
EVERY_ARM: Final = tuple(arm.name for arm in RANK_ARMS)
GATED: Final = RankingOptions(gate_priors=True)
WITH_SESSION: Final = RankingOptions(arms=(*ARM_NAMES, "session"))
EVERY: Final = RankingOptions(arms=EVERY_ARM)
FOUR: Final = RankingOptions(arms=("fts", "vector", "recency", "salience"))
"""The original tool's four arms: the base of issue 15's "all arms ≤ 1.3 × four arms"."""


def sqlite_retrieval(
    db: Database,
    *,
    clock: Clock,
    embedder: QueryEmbedder | None = None,
    embed_model: str | None = None,
) -> RetrievalPipeline:
    """The production pipeline over SQLite storage on ``db``."""
    return retrieval_over(
        sqlite_storage(db),
        clock=clock,
        embedder=embedder,
        embed_model=embed_model,
        similarity=NumpyPairwiseCosine(),
    )


def searcher(retrieval: RetrievalPipeline, options: RankingOptions) -> Callable[[str], object]:
    """One search per query text with the mode's switches."""
    return lambda text: retrieval.search(SearchRequest(query=text, options=options))


def recaller(retrieval: RetrievalPipeline, options: RankingOptions) -> Callable[[str], object]:
    """One recall per query text with the mode's switches."""
    return lambda text: retrieval.recall(RecallRequest(query=text, options=options))


def main(argv: Sequence[str] | None = None) -> None:
    """Build each corpus, time search and recall in both modes, print the markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    words = vocabulary(random.Random(1))
    texts = queries(words, args.queries)
    # The same queries naming a month of the corpus's two years: the time arm fires for these.
    month = NOW - dt.timedelta(days=40)
    dated = [f"{t} in {month:%B %Y}" for t in texts]
    precomputed = PrecomputedEmbedder({t: EMBEDDER.embed_query(t) for t in (*texts, *dated)})
    clock = FixedClock(NOW)
    rows: list[str] = []
    parts: list[str] = []
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as directory:
            started = time.perf_counter()
            db = build(Path(directory), size, words)
            built_s = time.perf_counter() - started
            # The configured space without an embedder (MEMHTML_EMBED=off, or a provider down):
            # no vector arm, but polarity and MMR still read the stored vectors.
            lexical = sqlite_retrieval(db, clock=clock, embed_model=MODEL)
            hybrid = sqlite_retrieval(db, clock=clock, embedder=precomputed)
            modes = {
                "lexical, defaults": (lexical, RankingOptions()),
                "lexical, priors gated": (lexical, GATED),
                "four arms (fts, vector, recency, salience)": (hybrid, FOUR),
                "all arms": (hybrid, RankingOptions()),
                "all arms + session (opt-in)": (hybrid, WITH_SESSION),
                "all arms, priors gated": (hybrid, GATED),
                "every arm (defaults + entity)": (hybrid, EVERY),
                "every arm + authority": (hybrid, attrs.evolve(EVERY, authority=True)),
            }
            modes["all arms, the query names a month (time arm)"] = (hybrid, RankingOptions())
            timed: dict[str, tuple[Callable[[str], object], Sequence[str]]] = {}
            for mode, (retrieval, options) in modes.items():
                asked = dated if "names a month" in mode else texts
                timed[f"{mode} | search"] = (searcher(retrieval, options), asked)
                timed[f"{mode} | recall"] = (recaller(retrieval, options), asked)
            for name, samples in interleaved_runs(timed, args.repeats).items():
                rows.append(
                    f"| {size:,} | {name} | {summary(samples, 50)} | {summary(samples, 95)} |"
                )
            parts += [f"| {size:,} | {name} | {p50} |" for name, p50 in breakdown(db, texts, 3)]
            db.close()
            print(f"built {size:,} memories in {built_s:.1f} s", flush=True)
    version = sqlite_vec.__version__ if hasattr(sqlite_vec, "__version__") else "?"
    print(f"\n`{machine_line()} · sqlite-vec {version}`\n")
    print(
        f"{args.queries} queries × {args.repeats} runs per row; ms as median of the runs "
        "[min–max].\n"
    )
    print("| memories | mode | operation | p50 ms | p95 ms |\n|---:|---|---|---:|---:|")
    print("\n".join(rows))
    print("\n| memories | part of an all-arms search | p50 ms |\n|---:|---|---:|")
    print("\n".join(parts))


if __name__ == "__main__":
    main()
