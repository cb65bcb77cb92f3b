"""Shared hypothesis strategies. Each area keeps its strategies in its own section below."""

from __future__ import annotations

from hypothesis import strategies as st

# Text that exercises the awkward corners: astral characters (2 UTF-16 units), combining
# marks, no-break spaces and ASCII whitespace runs.
awkward_text = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from([" ", "\n", "\t", "\u00a0", "😀", "é", "e\u0301", ".", "!", "?"]),
    ),
    max_size=200,
).map("".join)

# --- ranking: fusion, mmr, polarity, disclosure ---

# --- query text, chunking, reinforcement, scope ---

# --- format: paths, vocabulary, memory documents ---
