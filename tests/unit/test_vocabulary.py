"""The closed vocabularies: relation tokens and classes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.vocabulary import (
    ALL_RELS,
    EDGE_CLASSES,
    edge_class_of,
    rel_to_token,
    token_to_rel,
)


@given(st.sampled_from(ALL_RELS))
def test_rel_token_round_trip(rel: str) -> None:
    """Every relation survives the trip to its link token and back."""
    assert rel == token_to_rel(rel_to_token(rel))


def test_token_uses_hyphens_only() -> None:
    """The underscore spelling of a token is not in the vocabulary."""
    assert "memhtml-laterally-related" == rel_to_token("laterally_related")
    assert token_to_rel("memhtml-laterally_related") is None
    assert token_to_rel("laterally-related") is None
    assert token_to_rel("memhtml-related-to") is None


def test_fifteen_rels_in_four_disjoint_classes() -> None:
    """The classes partition the 15 relations (``fixes``, issue 15, is the fifteenth)."""
    assert 15 == len(ALL_RELS) == len(set(ALL_RELS))
    assert "memory" == edge_class_of("fixes")
    for edge_class, rels in EDGE_CLASSES.items():
        assert all(edge_class == edge_class_of(rel) for rel in rels)
    assert edge_class_of("nope") is None
