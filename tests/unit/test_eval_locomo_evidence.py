"""Evidence normalisation (docs/evaluation.md §B.3): the nine malformed shapes, as invented strings
of the same form (the real ones stay in the dataset), and the rule's invariants."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.eval.locomo.evidence import (
    canonical_turn_id,
    normalise_evidence,
    session_of,
)

# An invented conversation: sessions 1–7, five turns each (D7:5 exists, D7:6 does not).
KNOWN = frozenset(f"D{s}:{t}" for s in range(1, 8) for t in range(1, 6))


@pytest.mark.parametrize(
    ("raw", "expected_ids", "expected_kinds"),
    [
        # Two ids in one string, separated by "; ".
        (["D3:2; D5:1"], ("D3:2", "D5:1"), ("split",)),
        # A colon after the D.
        (["D1:1", "D:4:3"], ("D1:1", "D4:3"), ("rewritten",)),
        # Several ids in one string, separated by spaces (three shapes of it).
        (["D6:1 D2:4 D2:5"], ("D6:1", "D2:4", "D2:5"), ("split",)),
        (["D7:1 D7:2 D3:3 D3:4"], ("D7:1", "D7:2", "D3:3", "D3:4"), ("split",)),
        (["D5:2 D5:4 D1:3 D1:5"], ("D5:2", "D5:4", "D1:3", "D1:5"), ("split",)),
        # A zero-padded turn number.
        (["D7:05"], ("D7:5",), ("rewritten",)),
        # A bare D between two good ids.
        (["D1:2", "D", "D1:4"], ("D1:2", "D1:4"), ("unparseable",)),
        # Turns past the end of their session (two shapes: first and last place).
        (["D2:1", "D4:3", "D7:6"], ("D2:1", "D4:3"), ("absent",)),
        (["D4:9", "D6:1", "D6:2"], ("D6:1", "D6:2"), ("absent",)),
    ],
)
def test_each_malformed_shape_is_repaired(
    raw: list[str], expected_ids: tuple[str, ...], expected_kinds: tuple[str, ...]
) -> None:
    """Each of the nine shapes of B.3 yields the ids the rule says, and reports its fix."""
    normalised = normalise_evidence(raw, KNOWN)
    assert expected_ids == normalised.dia_ids
    assert expected_kinds == tuple(fix.kind for fix in normalised.fixes)


def test_repeats_are_dropped_keeping_the_first() -> None:
    """An id listed twice counts once, where it first appeared, and the drop is reported."""
    normalised = normalise_evidence(["D2:2", "D1:1", "D2:2"], KNOWN)
    assert ("D2:2", "D1:1") == normalised.dia_ids
    assert [("duplicate", "D2:2")] == [(f.kind, f.raw) for f in normalised.fixes]


def test_clean_evidence_passes_through_untouched() -> None:
    """Well-formed, existing, distinct ids come back in order with no fix."""
    normalised = normalise_evidence(["D1:1", "D3:5"], KNOWN)
    assert ("D1:1", "D3:5") == normalised.dia_ids
    assert () == normalised.fixes


def test_fix_records_say_what_became_of_the_input() -> None:
    """A split lists its tokens, a rewrite its canonical id, a drop nothing."""
    fixes = normalise_evidence(["D:3:01, D9:9"], KNOWN).fixes
    assert [
        ("split", "D:3:01, D9:9", ("D:3:01", "D9:9")),
        ("rewritten", "D:3:01", ("D3:1",)),
        ("absent", "D9:9", ()),
    ] == [(f.kind, f.raw, f.result) for f in fixes]


# Evidence strings built from the pieces of the malformed shapes: ids (good, padded, colon
# after D, missing), separators and junk tokens.
evidence_pieces = st.sampled_from(
    ["D1:1", "D3:4", "D:2:2", "D5:05", "D9:9", "D7:6", "D", "X1:1", "D1:1:1", "12", ""]
)
separators = st.sampled_from([" ", "; ", ",", "\t", ";", ", "])
evidence_strings = st.builds(
    lambda pieces, sep: sep.join(pieces), st.lists(evidence_pieces, max_size=4), separators
)


@given(st.lists(evidence_strings, max_size=5))
@example(["D:2:2; D5:05", "D2:2"])
def test_normalising_twice_changes_nothing(raw: list[str]) -> None:
    """The result is a fixed point: normalised again, it is unchanged and reports no fix."""
    once = normalise_evidence(raw, KNOWN)
    twice = normalise_evidence(once.dia_ids, KNOWN)
    assert once.dia_ids == twice.dia_ids
    assert () == twice.fixes


@given(st.lists(evidence_strings, max_size=5))
def test_results_are_distinct_known_canonical_ids(raw: list[str]) -> None:
    """Every id returned exists, is spelled canonically and appears once."""
    ids = normalise_evidence(raw, KNOWN).dia_ids
    assert len(set(ids)) == len(ids)
    assert set(ids) <= KNOWN
    assert all(canonical_turn_id(dia_id) == dia_id for dia_id in ids)


def test_session_of_reads_canonical_ids_only() -> None:
    """``D12:3`` is in session 12; a non-canonical spelling is refused."""
    assert 12 == session_of("D12:3")
    with pytest.raises(ValueError, match="canonical"):
        session_of("D:12:3")
