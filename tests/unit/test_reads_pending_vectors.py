"""Why a result ran without the vector arm, and what a search owes in vectors."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.use_cases.pending_vectors import (
    REASON_NO_EMBEDDER,
    REASON_QUERY,
    degraded_reason,
    settle_pending,
)
from tests.fakes.write_plane import fake_store

shares = st.floats(0, 1)


@given(st.booleans(), shares, shares, st.integers(0, 10_000))
def test_no_reason_when_the_vector_arm_ran(embed: bool, cover: float, floor: float, n: int) -> None:
    """A result that is not degraded carries no reason."""
    assert None is degraded_reason(
        degraded=False, embed=embed, coverage=cover, floor=floor, pending=n
    )


@given(shares, shares, st.integers(0, 10_000))
def test_a_lexical_store_names_its_setting(cover: float, floor: float, n: int) -> None:
    """Without an embedder the reason is the configuration, whatever the counts."""
    reason = degraded_reason(degraded=True, embed=False, coverage=cover, floor=floor, pending=n)
    assert REASON_NO_EMBEDDER == reason


def test_low_coverage_names_the_pending_count_and_the_fix() -> None:
    """Under the floor the reason says how many chunks wait and which command embeds them."""
    reason = degraded_reason(degraded=True, embed=True, coverage=0.5, floor=0.95, pending=1234)
    assert "1,234 chunks have no vector yet (coverage 0.50, under the floor 0.95)" in str(reason)
    assert str(reason).endswith("run memhtml index embed")


def test_covered_but_degraded_blames_the_query_embedding() -> None:
    """Coverage at the floor and still degraded: the query itself could not be embedded."""
    reason = degraded_reason(degraded=True, embed=True, coverage=1.0, floor=0.95, pending=0)
    assert REASON_QUERY == reason


def test_a_store_that_does_not_embed_owes_nothing() -> None:
    """settle_pending with embedding off never asks the indexer anything."""
    store = fake_store()
    assert 0 == settle_pending(store.index, embed=False)
