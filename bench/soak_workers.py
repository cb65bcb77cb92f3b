"""The soak's two kinds of worker process: each opens the store once and loops until told.

A writer mutates only memories it wrote itself (so it knows where each one must end up) and
keeps the ledger of every write it was told had landed; a reader searches, recalls, reads and
lists the seed memories, which no writer touches (so a refused read is a real error, not a
race with an archive). Every call is timed; a failure is counted by its ``ERR_*`` code, and
an ``ERR_UNKNOWN`` also by its exception class. Workers run under ``spawn``, so each is a
fresh interpreter like a separate agent's.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final

import attrs

WRITER_MIX: Final = (
    ("write", 6),
    ("apply", 2),
    ("correct", 1),
    ("archive", 1),
    ("link", 1),
    ("reinforce", 1),
)
READER_MIX: Final = (("search", 4), ("recall", 2), ("read", 2), ("list", 1))
WORDS: Final = (
    "ledger", "lock", "invoice", "export", "pager", "rota", "cache", "drain", "deploy", "pool",
    "timeout", "retry", "queue", "billing", "checkout", "replica", "index", "vacuum", "backup",
    "restore", "token", "quota", "latency", "shard",
)  # fmt: skip


@attrs.frozen(kw_only=True)
class WorkerPlan:
    """One worker's orders.

    Attributes:
        role: ``writer`` or ``reader``.
        number: Its number within the role (names its memories, seeds its choices).
        root: The store.
        seconds: How long to loop.
        embed: ``MEMHTML_EMBED`` for the worker's store (``off`` or ``local``).
        seed_paths: The seed memories a reader reads.
    """

    role: str
    number: int
    root: str
    seconds: float
    embed: str
    seed_paths: tuple[str, ...] = ()


def run_worker(plan: WorkerPlan) -> dict[str, object]:
    """Loop until the plan's time is up; return the timings, failures and writer ledger."""
    import os

    import memhtml

    store = memhtml.open(plan.root, environ={**os.environ, "MEMHTML_EMBED": plan.embed})
    rng = random.Random(f"{plan.role}-{plan.number}")
    calls: list[tuple[str, float, str | None]] = []
    worker = _Writer(store, plan.number, rng) if plan.role == "writer" else None
    mix = WRITER_MIX if worker is not None else READER_MIX
    kinds, weights = zip(*mix, strict=True)
    deadline = time.monotonic() + plan.seconds
    while time.monotonic() < deadline:
        kind = rng.choices(kinds, weights)[0]
        if worker is not None:
            kind, action = worker.action(kind)
        else:
            action = _read_action(store, kind, plan, rng)
        started = time.perf_counter()
        try:
            action()
            code = None
        except Exception as error:
            code = _code(error)
        calls.append((kind, time.perf_counter() - started, code))
    store.close()
    ledger = worker.ledger() if worker else {"live": {}, "archived": {}}
    return {"role": plan.role, "number": plan.number, "calls": calls, **ledger}


def _code(error: Exception) -> str:
    from memhtml.app.error_codes import ERR_UNKNOWN, error_code_for

    code = error_code_for(error).code
    return f"{code} ({type(error).__name__})" if code == ERR_UNKNOWN else code


def _query(rng: random.Random) -> str:
    return " ".join(rng.sample(WORDS, rng.randint(2, 4)))


def _read_action(
    store: object, kind: str, plan: WorkerPlan, rng: random.Random
) -> Callable[[], object]:
    from memhtml.app.store import Store
    from memhtml.app.use_cases.listing import ListRequest
    from memhtml.ports.retrieval import RecallRequest, SearchRequest

    assert isinstance(store, Store)
    if kind == "search":
        return lambda: store.search(SearchRequest(query=_query(rng)))
    if kind == "recall":
        return lambda: store.recall(RecallRequest(query=_query(rng), budget_chars=4000))
    if kind == "read":
        path = rng.choice(plan.seed_paths)
        return lambda: store.read(path)
    return lambda: store.list(ListRequest(limit=50))


class _Writer:
    """A writer's choices and its ledger: where each acknowledged memory must be at the end.

    ``live`` maps each active path this writer was told it wrote to the content hash the
    result reported (``None`` for an ``apply`` write, whose result carries no hash);
    ``archived`` the same for the paths its archives and corrections moved memories to.
    """

    def __init__(self, store: object, number: int, rng: random.Random) -> None:
        from memhtml.app.store import Store

        assert isinstance(store, Store)
        self._store = store
        self._number = number
        self._rng = rng
        self._made = 0
        self._live: dict[str, str | None] = {}
        self._archived: dict[str, str | None] = {}

    def ledger(self) -> dict[str, object]:
        """The acknowledged memories, active and archived."""
        return {"live": dict(self._live), "archived": dict(self._archived)}

    def action(self, kind: str) -> tuple[str, Callable[[], object]]:
        """The kind that runs and its call: one that needs earlier memories writes instead."""
        needs = {"correct": 1, "archive": 1, "reinforce": 1, "link": 2}.get(kind, 0)
        if len(self._live) < needs:
            kind = "write"
        call: Callable[[], object] = getattr(self, f"_{kind}")
        return kind, call

    def _claim(self) -> tuple[str, str]:
        self._made += 1
        words = " ".join(self._rng.sample(WORDS, 5))
        title = f"Soak {self._number} note {self._made} {words.split()[0]}"
        return title, f"Writer {self._number} fact {self._made}: the {words} setting holds."

    def _write(self) -> None:
        from memhtml.domain.write_requests import WriteRequest, checked

        title, claim = self._claim()
        request = WriteRequest(title=title, memory_type="semantic", claim=claim)
        result = self._store.write(checked(request))
        if result.created:
            self._live[result.path] = result.content_hash

    def _apply(self) -> None:
        import json

        from memhtml.app.apply_ops import parse_apply_lines

        ops = []
        for _ in range(3):
            title, claim = self._claim()
            ops.append({"op": "write", "title": title, "type": "semantic", "claim": claim})
        result = self._store.apply(parse_apply_lines([json.dumps(op) for op in ops]))
        for op in result.results:
            if op.ok and not op.deduped and op.path is not None:
                self._live[op.path] = None

    def _correct(self) -> None:
        from memhtml.app.use_cases.correct import CorrectRequest

        target = self._rng.choice(sorted(self._live))
        title, claim = self._claim()
        result = self._store.correct(target, CorrectRequest(title=title, claim=claim))
        if result.archived_path is None:  # only --on-near-duplicate skip leaves it in place
            return
        self._archived[result.archived_path] = self._live.pop(target)
        self._live[result.path] = result.content_hash

    def _archive(self) -> None:
        target = self._rng.choice(sorted(self._live))
        result = self._store.archive(target, "soak")
        self._archived[result.archived_path] = self._live.pop(target)

    def _link(self) -> None:
        src, dst = self._rng.sample(sorted(self._live), 2)
        self._store.link(src, "relates_to", dst)

    def _reinforce(self) -> None:
        self._store.reinforce([self._rng.choice(sorted(self._live))], "positive")
