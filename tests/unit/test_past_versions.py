"""The past arm's pure rules (``domain/past_versions``): interleaving keeps each list's order
and puts evidence first; ranking finds exactly the versions whose text holds a term."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.fulltext import fts_tokens
from memhtml.domain.past_versions import interleave, past_version, rank_past
from memhtml.domain.projection import project_file
from memhtml.domain.scope import SearchScope
from tests.contract.storage.harness import Memory

WORDS = ("ledger", "zebra", "pool", "export", "lock")


@given(
    indexed=st.lists(st.tuples(st.integers(0, 99), st.booleans()), unique_by=lambda x: x[0]),
    past=st.lists(st.integers(100, 199), unique=True),
    limit=st.integers(1, 30),
    k=st.floats(1, 100),
)
def test_interleave_keeps_both_orders_and_puts_evidence_first(
    indexed: list[tuple[int, bool]], past: list[int], limit: int, k: float
) -> None:
    """Each list's items keep their order, nothing is invented or repeated, the cut is at the
    limit, and no evidence-less indexed item precedes an item with evidence."""
    items: list[tuple[int, bool]] = [*indexed, *((p, True) for p in past)]
    merged = interleave(
        indexed, [(p, True) for p in past], k=k, limit=limit, evidence=lambda i: i[1]
    )
    assert min(limit, len(items)) == len(merged)
    assert len(set(merged)) == len(merged)
    assert [i for i in merged if i[0] >= 100] == [(p, True) for p in past][
        : len([i for i in merged if i[0] >= 100])
    ]
    found = [i for i in indexed if i[1]]
    assert [i for i in merged if i[0] < 100 and i[1]] == found[
        : len([i for i in merged if i[0] < 100 and i[1]])
    ]
    flags = [i[1] for i in merged]
    assert flags == sorted(flags, reverse=True)


@given(
    claims=st.lists(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), min_size=1, max_size=5
    ),
    term=st.sampled_from(WORDS),
)
def test_rank_past_finds_exactly_the_versions_holding_the_term(
    claims: list[list[str]], term: str
) -> None:
    """Brute force over the versions' own tokens: the ranked paths are exactly those holding the
    term, each once."""
    versions = []
    for i, words in enumerate(claims):
        memory = Memory(path=f"areas/inbox/m{i}.html", claim=f"Note {i} says {' '.join(words)}.")
        projection = project_file(
            path=memory.path,
            blob_sha=f"{i:040x}",
            doc=memory.doc(),
            indexed_at="2026-01-01T00:00:00Z",
        )
        versions.append(past_version(projection, "unicode61"))
    ranked = rank_past(versions, [term], SearchScope(), tokenizer="unicode61")
    holding = {v.path for v in versions if term in fts_tokens(v.projection.row.fts_text)}
    assert holding == set(ranked)
    assert len(ranked) == len(set(ranked))
