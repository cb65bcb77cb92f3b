"""Probe queries and target selection."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.eval.discrimination.probes import (
    probe_order,
    query_of,
    query_tokens,
    select_targets,
)
from memhtml.app.eval.discrimination.topics import STOPWORDS

claims = st.text(
    alphabet=st.sampled_from([*"abcXYZé_ 0129.,-'", "東", "ß"]), max_size=200
) | st.lists(st.sampled_from([*sorted(STOPWORDS), "ledger", "Vega", "42"]), max_size=30).map(
    " ".join
)


def test_query_of_a_semantic_claim() -> None:
    """Lowercased, stopwords gone, punctuation dropped, numbers kept."""
    claim = (
        "In the vega environment the Tallyforge ledger is allowed 12 voucher operations per minute."
    )
    assert "vega environment tallyforge ledger allowed 12 voucher operations minute" == query_of(
        claim
    )


def test_query_keeps_the_first_twelve_content_words() -> None:
    """Only the first 12 non-stopword tokens survive."""
    claim = " ".join(f"w{i}" for i in range(20))
    assert " ".join(f"w{i}" for i in range(12)) == query_of(claim)


@given(claim=claims)
def test_query_is_an_ordered_stopword_free_prefix_of_the_claim_tokens(claim: str) -> None:
    """At most 12 lowercase tokens, no stopword, no underscore, in claim order."""
    tokens = query_of(claim).split()
    content = [t for t in query_tokens(claim) if t not in STOPWORDS]
    assert tokens == content[:12]
    assert not any(t in STOPWORDS or "_" in t or t != t.lower() for t in tokens)


@given(n=st.integers(min_value=0, max_value=120), probes=st.integers(min_value=0, max_value=50))
def test_probe_order_is_a_permutation_spreading_first_picks(n: int, probes: int) -> None:
    """Every candidate appears once; the first picks are every ⌊n/probes⌋-th candidate."""
    order = probe_order(list(range(n)), probes)
    step = max(1, n // max(1, probes))
    assert sorted(order) == list(range(n))
    assert order[: len(range(0, n, step))] == list(range(0, n, step))


@given(
    n=st.integers(min_value=0, max_value=120),
    probes=st.integers(min_value=0, max_value=50),
    modulus=st.integers(min_value=1, max_value=5),
)
def test_select_targets_keeps_only_candidates_with_controls(
    n: int, probes: int, modulus: int
) -> None:
    """No more than ``probes`` targets, distinct, each passing the control check."""
    targets = select_targets(list(range(n)), probes, lambda i: i % modulus == 0)
    eligible = [i for i in range(n) if i % modulus == 0]
    assert len(targets) == min(probes, len(eligible))
    assert len(set(targets)) == len(targets)
    assert all(t % modulus == 0 for t in targets)
