"""Local embedder benchmark (issue 6): cold load, throughput, pipeline overhead, paraphrase sanity.

Measures the bundled all-MiniLM-L6-v2 int8 model as ``OnnxMiniLmEmbedder`` runs it:

- cold load: a fresh interpreter importing memhtml and embedding one text (imports included);
- texts/s at batch 1 and 32, on 1 and 2 onnxruntime threads, over generated memory-like texts
  of 60–300 words (our own sentences, fixed seed);
- our whole pipeline (tokenise, pad, run, pool, normalise, convert) against raw
  ``session.run`` on the same pre-tokenised, pre-padded batches: target ≥ 90 % of raw;
- paraphrase top-1: for each of our own paraphrase pairs, is the partner the nearest of all
  candidates?

Run: ``.venv/bin/python bench/bench_embed.py [--texts 32] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
import numpy as np

# onnxruntime ships no type information.
import onnxruntime as ort  # type: ignore[import-untyped]
from tokenizers import Tokenizer

# Run as a script (`python bench/bench_embed.py`), the project root is not on sys.path, and
# `bench.machine` would not import; as a module (`-m bench.bench_embed`) this is a no-op.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import machine_line
from memhtml.adapters.local import (
    MINILM_WATERMARK,
    OnnxMiniLmEmbedder,
    bundled_model_files,
)
from memhtml.adapters.local.batching import length_sorted_batches
from memhtml.adapters.local.model_files import MAX_TOKENS
from memhtml.adapters.local.onnx_pipeline import (
    BATCH_SIZE,
    MAX_BATCH_TOKENS,
    pad_batch,
)

SEED: Final = 6
MIN_WORDS: Final = 60
MAX_WORDS: Final = 300

_SUBJECTS: Final = (
    "the checkout service",
    "Sasha",
    "the nightly backup job",
    "our staging cluster",
    "the billing team",
    "the search index",
    "Priya from platform",
    "the mobile release",
    "the on-call engineer",
    "the customer import script",
)
_VERBS: Final = (
    "failed after",
    "was rolled back during",
    "recovered quickly from",
    "started logging warnings about",
    "was paused because of",
    "needs a review of",
    "agreed to own",
    "keeps timing out on",
    "was migrated ahead of",
    "quietly depends on",
)
_OBJECTS: Final = (
    "the disk filling up on the primary database host",
    "a certificate that expired over the weekend",
    "the rate limit of three hundred requests per minute",
    "the new retry policy with exponential backoff",
    "a schema change that dropped an index",
    "the quarterly password rotation",
    "a memory leak in the image resizer",
    "the feature flag for the redesigned settings page",
    "duplicate rows in the invoices table",
    "the vendor's undocumented API change",
)
_TAILS: Final = (
    "so we wrote a runbook entry for it.",
    "and nobody noticed until Monday morning.",
    "which is why the alert threshold is now lower.",
    "although the dashboard still showed green.",
    "and the fix shipped in the next patch release.",
    "so the decision is recorded in the architecture notes.",
    "but the root cause is still not fully understood.",
    "and we agreed to revisit it at the next planning meeting.",
)

# Our own paraphrase pairs: the same fact said two ways, across unrelated topics.
PARAPHRASES: Final = (
    ("the deploy failed because the disk was full", "deployment broke: no space left on device"),
    (
        "Sasha prefers tea over coffee in the morning",
        "in the mornings Sasha would rather drink tea",
    ),
    ("the search API allows 300 requests per minute", "the search endpoint is limited to 300/min"),
    ("rotate the database password every ninety days", "db credentials must change quarterly"),
    ("the invoice job runs at two in the morning", "billing batch is scheduled for 2am"),
    ("Priya leads the platform team", "the platform group is managed by Priya"),
    ("the cache is warmed when the server boots", "on startup the service pre-fills its cache"),
    ("never store secrets in the git repository", "credentials must not be committed to source"),
    ("the mobile app crashes on older Android phones", "old Android devices see the app crash"),
    ("we moved the staging cluster to Frankfurt", "staging now runs in the Frankfurt region"),
    ("the meeting was moved to Thursday afternoon", "we rescheduled the meeting for Thursday pm"),
    ("customers complained that checkout is slow", "users reported sluggish payment pages"),
    ("the backup restore took four hours", "restoring from backup needed about 4 hours"),
    (
        "the test suite is flaky on the CI machines",
        "CI runs fail randomly because of unstable tests",
    ),
    ("Ahmed is allergic to peanuts", "peanuts give Ahmed an allergic reaction"),
    ("the feature flag is off for European users", "EU customers do not get the flagged feature"),
    ("our budget for cloud costs is ten thousand a month", "we may spend 10k monthly on hosting"),
    ("the printer on the third floor is broken", "third-floor printer does not work"),
    ("logs are kept for thirty days", "log retention is one month"),
    ("the API returns dates in UTC", "timestamps from the service are in universal time"),
)


def memory_texts(count: int, seed: int = SEED) -> list[str]:
    """``count`` memory-like texts of 60–300 words from our own sentence parts, reproducibly."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        target = rng.randint(MIN_WORDS, MAX_WORDS)
        sentences: list[str] = []
        while sum(len(s.split()) for s in sentences) < target:
            parts = (rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_OBJECTS))
            sentence = " ".join((*parts, rng.choice(_TAILS)))
            sentences.append(sentence[0].upper() + sentence[1:])
        texts.append(" ".join(" ".join(sentences).split()[:target]))
    return texts


def _best_of(repeats: int, run: Callable[[], object]) -> float:
    """The fastest of ``repeats`` runs: on a shared machine, noise only ever adds time."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return min(samples)


def cold_load_seconds(repeats: int) -> float:
    """Median wall time of a fresh interpreter importing memhtml and embedding one text."""
    code = (
        "import time; t = time.perf_counter()\n"
        "from memhtml.adapters.local import OnnxMiniLmEmbedder\n"
        "OnnxMiniLmEmbedder().embed(['hello'])\n"
        "print(time.perf_counter() - t)\n"
    )
    samples = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(repeats)
    ]
    return statistics.median(samples)


def throughput(texts: Sequence[str], threads: int, batch: int, repeats: int) -> float:
    """Texts per second through ``OnnxMiniLmEmbedder.embed`` called ``batch`` texts at a time."""
    embedder = OnnxMiniLmEmbedder(threads=threads)
    embedder.embed(texts[:1])  # load outside the timing

    def run() -> None:
        for start in range(0, len(texts), batch):
            embedder.embed(texts[start : start + batch])

    return len(texts) / _best_of(repeats, run)


def raw_batches(texts: Sequence[str]) -> list[dict[str, Any]]:
    """The feeds our pipeline would build for ``texts``, tokenised and padded ahead of time."""
    files = bundled_model_files()
    tokenizer = Tokenizer.from_str(files.tokenizer.read_text(encoding="utf-8"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    encodings = tokenizer.encode_batch(list(texts))
    plan = length_sorted_batches([len(e.ids) for e in encodings], BATCH_SIZE, MAX_BATCH_TOKENS)
    feeds = []
    for batch in plan:
        ids, mask = pad_batch([encodings[i].ids for i in batch])
        feeds.append(
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
    return feeds


@attrs.frozen(kw_only=True)
class Share:
    """Raw ``session.run`` against our full ``embed`` over the same batches, best of N runs."""

    raw_wall_s: float
    ours_wall_s: float
    raw_cpu_s: float
    ours_cpu_s: float


def pipeline_share(texts: Sequence[str], threads: int, repeats: int) -> Share:
    """Time raw onnxruntime and our pipeline on the same batches, wall clock and process CPU.

    CPU time is the steadier figure on a shared machine: a neighbour's load stretches wall time
    but not the work this process does (onnxruntime's spinning worker threads count as work).
    """
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        bundled_model_files().model.read_bytes(), options, providers=["CPUExecutionProvider"]
    )
    feeds = raw_batches(texts)
    embedder = OnnxMiniLmEmbedder(threads=threads)
    embedder.embed(texts[:1])
    session.run(None, feeds[0])
    raw: list[tuple[float, float]] = []
    ours: list[tuple[float, float]] = []
    # Interleaved, so a noisy neighbour on the shared machine hits both sides alike.
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        for feed in feeds:
            session.run(["last_hidden_state"], feed)
        raw.append((time.perf_counter() - wall, time.process_time() - cpu))
        wall, cpu = time.perf_counter(), time.process_time()
        embedder.embed(texts)
        ours.append((time.perf_counter() - wall, time.process_time() - cpu))
    return Share(
        raw_wall_s=min(w for w, _ in raw),
        ours_wall_s=min(w for w, _ in ours),
        raw_cpu_s=min(c for _, c in raw),
        ours_cpu_s=min(c for _, c in ours),
    )


def paraphrase_top1() -> tuple[int, int]:
    """How many left-hand sentences find their own partner nearest among all right-hand ones."""
    embedder = OnnxMiniLmEmbedder()
    rights = embedder.embed([right for _, right in PARAPHRASES])
    hits = 0
    for index, (left, _) in enumerate(PARAPHRASES):
        query = embedder.embed_query(left)
        scores = [math.fsum(a * b for a, b in zip(query, r, strict=True)) for r in rights]
        hits += int(max(range(len(scores)), key=scores.__getitem__) == index)
    return hits, len(PARAPHRASES)


def main() -> None:
    """Run every measurement and print one markdown block."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=32, help="texts per throughput run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (best kept)")
    args = parser.parse_args()
    texts = memory_texts(args.texts)
    words = [len(t.split()) for t in texts]

    cold = cold_load_seconds(args.repeats)
    rates = {
        (threads, batch): throughput(texts, threads, batch, args.repeats)
        for threads in (1, 2)
        for batch in (1, 32)
    }
    shares = {threads: pipeline_share(texts, threads, args.repeats) for threads in (1, 2)}
    hits, pairs = paraphrase_top1()

    print(f"### Local embedder ({MINILM_WATERMARK})\n")
    print(f"{machine_line()}\n")
    print(
        f"{len(texts)} generated texts, {min(words)}–{max(words)} words "
        f"(median {statistics.median(words):.0f}); best of {args.repeats} runs "
        f"(cold load: median); batches of up to {BATCH_SIZE} texts and {MAX_BATCH_TOKENS} "
        "padded tokens.\n"
    )
    print(f"- cold load (fresh interpreter: imports + model load + first embed): {cold:.2f} s")
    print(
        "\n| threads | batch 1 texts/s | batch 32 texts/s | raw run s (CPU s) "
        "| ours s (CPU s) | ours vs raw, wall | ours vs raw, CPU |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for threads in (1, 2):
        share = shares[threads]
        print(
            f"| {threads} | {rates[(threads, 1)]:.1f} | {rates[(threads, 32)]:.1f} | "
            f"{share.raw_wall_s:.2f} ({share.raw_cpu_s:.2f}) | "
            f"{share.ours_wall_s:.2f} ({share.ours_cpu_s:.2f}) | "
            f"{100 * share.raw_wall_s / share.ours_wall_s:.1f} % | "
            f"{100 * share.raw_cpu_s / share.ours_cpu_s:.1f} % |"
        )
    print(f"\n- paraphrase top-1: {hits}/{pairs} ({100 * hits / pairs:.0f} %)")


if __name__ == "__main__":
    main()
