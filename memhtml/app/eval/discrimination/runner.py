"""Run the gate: materialize a fixture in a temporary store and probe it through the real paths.

The store is built the way a user's is: ``init``'s use case, one commit through the git writer,
``index rebuild`` (embedding when the mode has an embedder), the committed access sidecar
replayed by ``state import``, and each probe is one ``search`` through the retrieval use case.
Nothing is inserted behind the indexer's back, so a pass says something about the product.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

import attrs

from memhtml.app.eval.discrimination.capabilities import (
    FIRST_COMMIT_BEFORE_S,
    SECOND_COMMIT_BEFORE_S,
    CapabilityPlan,
    CapabilityScore,
    capability_plan,
    score_capability,
)
from memhtml.app.eval.discrimination.fixture import (
    Fixture,
    FixtureFile,
    FixtureInvalid,
    instant_of,
)
from memhtml.app.eval.discrimination.generator import build_fixture
from memhtml.app.eval.discrimination.scoring import (
    GateSummary,
    ProbeScore,
    score_probe,
    summarize,
)
from memhtml.domain.errors import InvalidInput
from memhtml.ports.retrieval import RankingOptions

if TYPE_CHECKING:
    from memhtml.app.store import Store
    from memhtml.ports.clock import Clock
    from memhtml.ports.embedder import EmbeddingModel
    from memhtml.ports.memory_codec import MemoryCodec

Mode = Literal["fake", "local", "e5", "lexical"]
MODES: Final[tuple[Mode, ...]] = ("fake", "local", "e5", "lexical")
PROBE_LIMIT: Final = 40
COMMIT_SUBJECT: Final = "discrimination gate fixture"
OP_EVAL: Final = "eval"
EVAL_GIT_NAME: Final = "memhtml eval"
EVAL_GIT_EMAIL: Final = "eval@memhtml.invalid"
TEMP_PREFIX: Final = "memhtml-gate-"


@attrs.frozen(kw_only=True)
class GateConfig:
    """One run's settings (docs/evaluation.md §A.1 flags plus the docs/decisions.md §12
    switches)."""

    mode: Mode = "fake"
    seed: int = 20260802
    size: int = 200
    probes: int = 36
    mrr_floor: float = 0.85
    now_ms: int | None = None
    keep: Path | None = None
    ranking: RankingOptions = attrs.field(factory=RankingOptions)
    fts_tokenizer: str = "unicode61"


@attrs.frozen(kw_only=True)
class GateRun:
    """A finished run: the fixture it built, each probe's score, the capability probes'
    scores (docs/evaluation.md §A.5), the summary, the wall time."""

    config: GateConfig
    fixture: Fixture
    scores: tuple[ProbeScore, ...]
    summary: GateSummary
    seconds: float
    capabilities: tuple[CapabilityScore, ...] = ()


def embedder_for(mode: Mode, environ: Mapping[str, str] | None = None) -> EmbeddingModel | None:
    """The mode's embedder, loaded: fake-bow, the local model, e5, or None for lexical.

    ``local`` honours ``MEMHTML_EMBED_MODEL_DIR`` and ``MEMHTML_EMBED_THREADS``, ``e5`` the
    latter (read from ``environ``, ``os.environ`` by default), whatever ``MEMHTML_EMBED`` says:
    the mode, not the variable, picks the backend here.

    Raises:
        ModelUnavailable: ``local`` or ``e5`` and the model cannot load or answer.
        ExtraMissing: ``e5`` and the ``e5`` extra is not installed.
        InvalidInput: An embedding variable holds a value it cannot take.
    """
    if mode == "lexical":
        return None
    if mode == "fake":
        from memhtml.app.bootstrap import fake_bow_embedder

        return fake_bow_embedder()
    from memhtml.app.bootstrap import build_embedder
    from memhtml.app.bootstrap.config import EmbedSettings, read_embed_settings

    configured = read_embed_settings(os.environ if environ is None else environ)
    if mode == "e5":
        threads = configured.threads if configured.backend in {"local", "e5"} else None
        chosen = EmbedSettings(backend="e5", threads=threads)
    else:
        chosen = configured if configured.backend == "local" else EmbedSettings(backend="local")
    embedder = build_embedder(chosen)
    if embedder is None:  # pragma: no cover - a local or e5 backend always builds an embedder
        raise AssertionError(f"the {chosen.backend} backend built no embedder")
    # Load and run the model now, so an unusable one fails before any fixture is built.
    embedder.embed_query("load check")
    return embedder


def run_gate(config: GateConfig, embedder: EmbeddingModel | None) -> GateRun:
    """Generate, materialize and probe one fixture; the store is removed unless ``keep``.

    Raises:
        InvalidInput: ``keep`` names a folder that is not empty.
        FixtureInvalid: A generated file failed to parse cleanly.
        ModelUnavailable: The embedder stopped answering while the index was built.
    """
    started = time.perf_counter()
    fixture = build_fixture(config.seed, config.size, config.probes, config.now_ms)
    plan = capability_plan(fixture.epoch_ms, fixture.now_ms)
    root = _store_root(config.keep)
    try:
        scores, capabilities = _build_and_probe(fixture, plan, root, config, embedder)
    finally:
        if config.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    summary = summarize(
        scores,
        mrr_floor=config.mrr_floor,
        lexical=config.mode == "lexical",
        capabilities_passed=all(c.passed for c in capabilities),
    )
    return GateRun(
        config=config,
        fixture=fixture,
        scores=scores,
        summary=summary,
        seconds=time.perf_counter() - started,
        capabilities=capabilities,
    )


def _store_root(keep: Path | None) -> Path:
    if keep is None:
        return Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise InvalidInput("--keep must name a new or empty folder")
    keep.mkdir(parents=True, exist_ok=True)
    return keep


def _build_and_probe(
    fixture: Fixture,
    plan: CapabilityPlan,
    root: Path,
    config: GateConfig,
    embedder: EmbeddingModel | None,
) -> tuple[tuple[ProbeScore, ...], tuple[CapabilityScore, ...]]:
    clock = SteppedClock(instant_of(fixture.now_ms - FIRST_COMMIT_BEFORE_S * 1000))
    with gate_store(root, config, embedder, clock) as store:
        _materialize(fixture, plan, store, clock)
        return (
            tuple(_probe(fixture, store, config.ranking)),
            probe_capabilities(plan, store, config.ranking, enabled=True),
        )


def gate_store(
    root: Path, config: GateConfig, embedder: EmbeddingModel | None, clock: Clock
) -> Store:
    """The gate's store at ``root`` (a fixture store, or one kept by ``--keep``)."""
    from memhtml.app.bootstrap import Services, Settings
    from memhtml.app.bootstrap.config import EmbedSettings
    from memhtml.app.store import Store

    settings = Settings(
        root=root,
        embed=EmbedSettings(backend="off" if embedder is None else "local"),
        fts_tokenizer=config.fts_tokenizer,
        git_name=EVAL_GIT_NAME,
        git_email=EVAL_GIT_EMAIL,
    )
    return Store(Services(settings, clock=clock, embedder=embedder))


def probe_capabilities(
    plan: CapabilityPlan, store: Store, ranking: RankingOptions, *, enabled: bool
) -> tuple[CapabilityScore, ...]:
    """Run each capability probe with its feature switched on (``enabled``) or off."""
    from memhtml.domain.datetimes import utc_stamp
    from memhtml.ports.retrieval import SearchRequest

    scores: list[CapabilityScore] = []
    for probe in plan.probes:
        request = SearchRequest(
            query=probe.query, limit=PROBE_LIMIT, options=probe.options(ranking, enabled=enabled)
        )
        at = probe.known_at_ms
        known_at = None if at is None or not enabled else utc_stamp(instant_of(at))
        hits = [hit.path for hit in store.search(request, known_at=known_at).hits]
        without = None
        if at is not None:
            without = [hit.path for hit in store.search(request).hits]
        scores.append(score_capability(probe, hits, without))
    return tuple(scores)


class SteppedClock:
    """The run's clock: pinned, and stepped by the materialization between its two commits."""

    def __init__(self, start: dt.datetime) -> None:
        """Stopped at ``start``."""
        self._now = start

    def now(self) -> dt.datetime:
        """The instant the clock is set to."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self._now += dt.timedelta(seconds=seconds)


def _materialize(fixture: Fixture, plan: CapabilityPlan, store: Store, clock: SteppedClock) -> None:
    from memhtml.app.eval.discrimination.rendering import render_files, sidecar_bytes
    from memhtml.app.use_cases.state_ops import SIDECAR_PATH
    from memhtml.domain.commit_messages import commit_message
    from memhtml.ports.git_writer import ChangeSet, FileWrite

    services = store.services
    store.initialize(databases_created=True)
    files = render_files(fixture, services.codec)
    files.update(_rendered(plan.initial, services.codec, taken=files))
    files[SIDECAR_PATH] = sidecar_bytes(fixture)
    writes = tuple(FileWrite(path=path, data=data) for path, data in sorted(files.items()))
    services.writer.commit(
        ChangeSet(writes=writes),
        commit_message(OP_EVAL, COMMIT_SUBJECT),
        expected_head=services.git.head(),
    )
    # The known-at family's deletion lands later, so an instant between the two commits
    # knows the deleted memory (docs/evaluation.md §A.5); then the clock is the run's again.
    clock.advance(FIRST_COMMIT_BEFORE_S - SECOND_COMMIT_BEFORE_S)
    later = _rendered(plan.later, services.codec, taken=files)
    services.writer.commit(
        ChangeSet(
            writes=tuple(FileWrite(path=p, data=d) for p, d in sorted(later.items())),
            deletes=plan.removed,
        ),
        commit_message(OP_EVAL, COMMIT_SUBJECT),
        expected_head=services.git.head(),
    )
    clock.advance(SECOND_COMMIT_BEFORE_S)
    report = store.index_rebuild()
    if report.model_failure is not None:
        from memhtml.ports.errors import ModelUnavailable

        raise ModelUnavailable(f"embedding the fixture: {report.model_failure}")
    if report.skipped:
        raise FixtureInvalid(f"the indexer skipped {len(report.skipped)} generated files")
    store.state_import()


def _rendered(
    planned: Sequence[FixtureFile], codec: MemoryCodec, *, taken: Mapping[str, bytes]
) -> dict[str, bytes]:
    """The capability files' bytes, checked as the fixture's are."""
    from memhtml.app.eval.discrimination.rendering import render_file

    rendered: dict[str, bytes] = {}
    for file in planned:
        if file.path in taken:
            raise FixtureInvalid(f"two generated files share the path {file.path}")
        rendered[file.path] = render_file(file, codec).encode("utf-8")
    return rendered


def _probe(fixture: Fixture, store: Store, ranking: RankingOptions) -> list[ProbeScore]:
    from memhtml.domain.scope import SearchScope
    from memhtml.ports.retrieval import SearchRequest

    scope = SearchScope(include_archived=False)
    scores: list[ProbeScore] = []
    for probe in fixture.probes:
        request = SearchRequest(query=probe.query, scope=scope, limit=PROBE_LIMIT, options=ranking)
        answer = store.search(request)
        scores.append(
            score_probe(
                query=probe.query,
                target_path=probe.target_path,
                controls=[(c.path, c.family.value) for c in probe.controls],
                hits=[hit.path for hit in answer.hits],
                degraded="vector" not in answer.arms,
            )
        )
    return scores
