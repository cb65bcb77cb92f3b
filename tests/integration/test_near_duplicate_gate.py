"""The near-duplicate assist on the discrimination gate's generated corpus, with the local model,
through the Python API (which embeds, so ``report`` checks).

Every near-twin control (the target's claim negated, renumbered or qualified: worded almost
alike) written into a store holding its target must list the target among its near-duplicates
at the default floor; no live memory of the corpus may find a neighbour at that floor other
than the controls of its own probe. This is the measurement behind the default floor
(BENCHMARKS.md) held as a test on one of the measured seeds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from memhtml.app.apply_ops import WriteOp
from memhtml.app.bootstrap import Services, Settings, build_embedder
from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.app.eval.discrimination.fixture import Fixture, FixtureFile
from memhtml.app.eval.discrimination.generator import build_fixture
from memhtml.app.eval.discrimination.rendering import render_files
from memhtml.app.store import Store
from memhtml.domain.commit_messages import commit_message
from memhtml.domain.near_duplicates import DEFAULT_NEAR_FLOOR
from memhtml.domain.vocabulary import ARC_TYPE
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.assist_lookup import NearQuery
from memhtml.ports.embedder import EmbeddingModel
from memhtml.ports.git_writer import ChangeSet, FileWrite

SEED: Final = 20260802
SIZE: Final = 200
PROBES: Final = 36


@pytest.fixture(scope="module")
def embedder() -> EmbeddingModel:
    """The local model, loaded once for the module."""
    model = build_embedder(EmbedSettings(backend="local"))
    assert model is not None
    return model


@pytest.fixture
def store(tmp_path: Path, embedder: EmbeddingModel) -> Iterator[Store]:
    """An embedding store over a fresh repository."""
    settings = Settings(root=tmp_path / "store", embed=EmbedSettings(backend="local"))
    with Store(Services(settings, embedder=embedder)) as opened:
        opened.initialize(databases_created=True)
        yield opened


def _request(file: FixtureFile) -> WriteRequest:
    inputs = file.inputs
    return WriteRequest(
        title=inputs.title,
        memory_type=inputs.memory_type,
        claim=inputs.claim or None,
        body=inputs.body,
        article_html=inputs.article_html,
        tags=inputs.tags,
        entities=inputs.entities,
        event_at=inputs.event_at,
    )


def _load_all_but_controls(store: Store, fixture: Fixture) -> None:
    controls = {f.path for f in fixture.files if f.role == "control"}
    files = render_files(fixture, store.services.codec)
    writes = tuple(FileWrite(path=p, data=d) for p, d in sorted(files.items()) if p not in controls)
    git = store.services.git
    store.services.writer.commit(
        ChangeSet(writes=writes), commit_message("eval", "corpus"), expected_head=git.head()
    )
    report = store.index_rebuild()
    assert (None, ()) == (report.model_failure, report.skipped)


def test_near_twin_controls_report_their_target_and_nothing_else_is_near(store: Store) -> None:
    """Each control lists its target at the default floor; afterwards every live memory's
    neighbours at that floor are its own probe's memories only."""
    fixture = build_fixture(SEED, SIZE, PROBES, None)
    _load_all_but_controls(store, fixture)
    targets = {c.path: p.target_path for p in fixture.probes for c in p.controls}
    files = {f.path: f for f in fixture.files}
    order = sorted(targets)
    ops = tuple(WriteOp(line=i + 1, request=_request(files[p])) for i, p in enumerate(order))
    result = store.apply(ops)

    missed = [
        p
        for p, r in zip(order, result.results, strict=True)
        if targets[p] not in [n.path for n in r.near_duplicates]
    ]
    written = {p: str(r.path) for p, r in zip(order, result.results, strict=True)}
    assert (len(order), 0, [], None) == (
        result.summary.written,
        result.summary.failed,
        missed,
        result.near_duplicate_note,
    )
    assert all(
        n.similarity >= DEFAULT_NEAR_FLOOR for r in result.results for n in r.near_duplicates
    )

    # The probe's own memories: a target and its controls, as written.
    family: dict[str, set[str]] = {}
    for probe in fixture.probes:
        members = {probe.target_path, *(written[c.path] for c in probe.controls)}
        for member in members:
            family.setdefault(member, set()).update(members - {member})
    assists = store.services.storage.assists
    model = store.services.watermark
    live = [p for p, f in files.items() if f.role in ("base", "person")]
    live += list(written.values())
    vectors = assists.first_chunk_vectors(live, model=model)
    paths = sorted(vectors)
    answers = assists.active_nearest_for(
        [NearQuery(vector=vectors[p], own_path=p) for p in paths],
        model=model,
        floor=DEFAULT_NEAR_FLOOR,
        limit=10,
        exclude_types=(ARC_TYPE,),
    )
    strangers = {
        p: sorted(n.path for n in near if n.path not in family.get(p, set()))
        for p, near in zip(paths, answers, strict=True)
    }
    assert (len(live), {}) == (len(paths), {p: s for p, s in strangers.items() if s})
