"""index embed (docs/decisions.md §23) and index status over fakes."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.app.use_cases.index_ops import embed_with, status_with
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.index_census import IndexCounts
from memhtml.ports.indexer import BackfillReport
from tests.fakes.git import FakeGit
from tests.fakes.read_plane import BackfillIndex, FakeCensus
from tests.fakes.write_plane import FAKE_SPACE


def _index(report: BackfillReport, *, bound: bool = True) -> BackfillIndex:
    index = BackfillIndex(FakeGit(), parse_memory)
    index.report = report
    index.bound = bound
    return index


def _report(written: int, remaining: int, failure: str | None = None) -> BackfillReport:
    return BackfillReport(
        head_sha="abc",
        chunks=written + remaining,
        embeddings=written,
        embeddings_written=written,
        embeddings_remaining=remaining,
        model_failure=failure,
    )


@given(
    written=st.integers(min_value=0, max_value=5),
    remaining=st.integers(min_value=0, max_value=5),
    dry_run=st.booleans(),
)
@example(written=0, remaining=1, dry_run=False)
@example(written=0, remaining=0, dry_run=False)
def test_embed_fails_exactly_when_work_was_pending_and_nothing_landed(
    written: int, remaining: int, dry_run: bool
) -> None:
    """ModelUnavailable iff not a dry run, nothing written and something still pending."""
    index = _index(_report(written, remaining))
    should_fail = not dry_run and written == 0 and remaining > 0
    try:
        report = embed_with(index, dry_run=dry_run)
    except ModelUnavailable:
        assert should_fail
    else:
        assert not should_fail
        assert index.report == report


def test_the_refusal_carries_the_report_and_the_models_reason() -> None:
    """The message names the model's failure and the remaining count."""
    index = _index(_report(0, 7, failure="onnx session failed"))
    with pytest.raises(ModelUnavailable) as raised:
        embed_with(index)
    assert "onnx session failed" in str(raised.value)
    assert "embeddingsRemaining 7" in str(raised.value)


def test_the_refusal_without_an_embedder_says_so() -> None:
    """With no embedder bound the reason names MEMHTML_EMBED=off."""
    with pytest.raises(ModelUnavailable, match="MEMHTML_EMBED=off"):
        embed_with(_index(_report(0, 2), bound=False))


def test_status_joins_watermark_coverage_and_counts() -> None:
    """Status copies the census and the coverage, and compares the stored space."""
    index = _index(_report(0, 0))
    index.update(embed=False)
    counts = IndexCounts(files=3, active_files=2, edges=4, derived_edges=1, tags=5, entities=6)
    status = status_with(
        index, FakeCensus(counts), configured_model=FAKE_SPACE, floor=0.9, has_state=True
    )
    assert (3, 2, 4, 1, 5, 6) == (
        status.files,
        status.active_files,
        status.edges,
        status.derived_edges,
        status.tags,
        status.entities,
    )
    assert (True, FAKE_SPACE, 0.9, 1.0) == (
        status.embed_model_matches,
        status.embed_model,
        status.vector_coverage_floor,
        status.vector_coverage,
    )
    other = status_with(
        index, FakeCensus(counts), configured_model="other@3", floor=0.9, has_state=False
    )
    assert (False, False) == (other.embed_model_matches, other.has_state)


def test_status_before_the_first_rebuild_has_no_watermark() -> None:
    """No index_state row: no head, no stored space, and nothing to mismatch."""
    index = _index(_report(0, 0))
    counts = IndexCounts(files=0, active_files=0, edges=0, derived_edges=0, tags=0, entities=0)
    status = status_with(
        index, FakeCensus(counts), configured_model="x@1", floor=0.95, has_state=True
    )
    assert (None, None, True) == (status.head_sha, status.embed_model, status.embed_model_matches)
