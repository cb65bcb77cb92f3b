"""The conflict assist on the discrimination gate's generated corpus, over both backends.

Every numeric control (the target's claim with its figure changed) must be reported as a
conflict with its target; no negation or variant control (another relation worded almost
alike) may be. This is the gate's near-twin test turned on the write-time assist: ``doctor``'s
frame conflicts, read through ``HealthProbe.shared_frames``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import pytest

from memhtml.adapters.html import parse_memory
from memhtml.app.bootstrap import memory_codec
from memhtml.app.eval.discrimination.controls import Family
from memhtml.app.eval.discrimination.generator import build_fixture
from memhtml.app.eval.discrimination.rendering import render_files
from memhtml.app.use_cases.conflicts import frame_conflicts
from memhtml.domain.projection import project_file
from memhtml.ports.git import blob_sha
from memhtml.ports.storage import Storage
from tests.contract.storage.harness import BACKENDS, NOW, open_backend

SEEDS: Final = (20260802, 20260803)
SIZE: Final = 200
PROBES: Final = 36


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """One empty store per backend."""
    with open_backend(request.param) as opened:
        yield opened


def _flagged_pairs(storage: Storage, seed: int) -> tuple[dict[Family, list[bool]], int]:
    fixture = build_fixture(seed, SIZE, PROBES, None)
    files = render_files(fixture, memory_codec())
    storage.index.write_projections(
        tuple(
            project_file(path=path, blob_sha=blob_sha(data), doc=parse_memory(data), indexed_at=NOW)
            for path, data in files.items()
        )
    )
    groups = [
        {m.path for m in group.memories}
        for group in frame_conflicts(storage.health.shared_frames())
    ]
    flagged: dict[Family, list[bool]] = {}
    for probe in fixture.probes:
        for control in probe.controls:
            together = any({probe.target_path, control.path} <= group for group in groups)
            flagged.setdefault(control.family, []).append(together)
    return flagged, len(fixture.probes)


@pytest.mark.parametrize("seed", SEEDS)
def test_numeric_controls_conflict_and_the_other_families_do_not(
    storage: Storage, seed: int
) -> None:
    """All numeric controls are flagged against their target; no negation or variant is."""
    flagged, probes = _flagged_pairs(storage, seed)
    numeric = flagged.get(Family.NUMERIC, [])
    others = flagged.get(Family.NEGATION, []) + flagged.get(Family.VARIANT, [])
    assert (True, True, True) == (probes > 0, len(numeric) > 0, len(others) > 0)
    assert (len(numeric), 0) == (sum(numeric), sum(others))
