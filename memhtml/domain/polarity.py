"""The polarity step between fusion and MMR: demote a near-twin that says the opposite.

No ranking arm can see a "not". "X merges 5 intervals" and "X does not merge 5 intervals" share
every lexical term, sit a hair apart in vector space and tie on recency and salience, so fusion
orders them by noise. This step reads the query's phrasing as the wanted polarity and moves a
disagreeing near-twin below the agreeing one. A lone negative fact with no affirmative near-copy
is never touched, which is what keeps this from being a blanket penalty on true negatives.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.domain.vectors import PairSimilarity, cosine_lookup

NEGATION_MARKERS: Final[frozenset[str]] = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "cannot",
        "without",
        "neither",
        "nor",
        "avoid",
        "disallow",
        "disallowed",
        "forbidden",
        "unsafe",
        "invalid",
        "false",
        "fail",
        "fails",
        "failed",
        "deny",
        "denied",
        "reject",
        "rejected",
    }
)
"""Whole tokens that make a text negated (docs/decisions.md §9; the eval's negation family uses
it too)."""

TWIN_COSINE: Final = 0.9
"""Cosine at or above which two candidates count as near-twins."""

POLARITY_DEMOTION: Final = 0.5
"""A demoted twin's score is its lowest-ranked agreeing twin's score times this."""

_TOKEN: Final = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
# docs/decisions.md §9 names the ASCII apostrophe; the typographic one (U+2019) is the same
# contraction as typed by most editors, and missing it would read "doesn’t merge" as affirmative.
_CONTRACTED_NOT: Final = re.compile("n['\u2019]t")


def polarity_tokens(text: str) -> tuple[str, ...]:
    """The tokens polarity reads, in order (docs/decisions.md §9).

    The text is NFC-normalised, lowercased, ``n't`` becomes `` not``, and the tokens are the
    ``[a-z0-9]+(?:\\.[0-9]+)*`` runs, so a version such as ``1.2.3`` stays one token.
    """
    folded = unicodedata.normalize("NFC", text).lower()
    return tuple(_TOKEN.findall(_CONTRACTED_NOT.sub(" not", folded)))


def is_negated(text: str) -> bool:
    """Whether ``text`` holds any :data:`NEGATION_MARKERS` token.

    Outcome words count too, so "deploy without downtime" reads as negated; that trade-off is
    the original tool's and the eval pins it.
    """
    return any(token in NEGATION_MARKERS for token in polarity_tokens(text))


@attrs.frozen(kw_only=True)
class PolarityCandidate:
    """A fused candidate as the polarity step sees it.

    Attributes:
        path: The memory's repository path.
        gist: Its claim (the ``<mark>`` text), whose polarity is read.
        vector: Its embedding, or ``None`` when it has none (it then has no twins).
    """

    path: str
    gist: str
    vector: tuple[float, ...] | None = None


@attrs.frozen(kw_only=True)
class PolarityScored:
    """A candidate after the polarity step; its order is the relevance MMR reads.

    Attributes:
        path: The memory's repository path.
        gist: Its claim.
        vector: Its embedding, or ``None``.
        score: ``1/position`` in the fused order, or for a demoted twin the score of its
            lowest-ranked agreeing twin times :data:`POLARITY_DEMOTION`.
        position: Its 1-based position in the fused order, before the step.
        demoted: Whether the step moved it.
    """

    path: str
    gist: str
    vector: tuple[float, ...] | None
    score: float
    position: int
    demoted: bool


def polarity_scored(
    candidates: Sequence[PolarityCandidate],
    query: str,
    *,
    similarity: PairSimilarity | None = None,
) -> tuple[PolarityScored, ...]:
    """Score candidates by fused position and demote disagreeing near-twins.

    A candidate is demoted only when all three hold: its gist's polarity differs from the
    query's; some candidate whose gist agrees with the query is in the pool; and the two are
    near-twins (both have vectors, cosine at or above :data:`TWIN_COSINE`). It then scores its
    lowest-ranked agreeing twin's score times :data:`POLARITY_DEMOTION`, so it lands below that
    twin but stays in the pool. A candidate already below every agreeing twin keeps its place.
    Agreeing candidates are never demoted, so nothing cascades. The rule depends only on
    whether a gist agrees with the query, which makes it symmetric: "why does X not merge"
    demotes the affirmative twin.

    Args:
        candidates: The fused candidates, best first.
        query: The caller's query text, whose phrasing sets the wanted polarity.
        similarity: The similarity of ``candidates[i]`` and ``candidates[j]``, asked only when
            both carry vectors; ``None`` computes the cosine of their vectors
            (:func:`~memhtml.domain.vectors.cosine_lookup`).

    Returns:
        Every candidate once, by score descending; equal scores keep fused order, so a demoted
        twin that ties with a later candidate stays ahead of it.
    """
    wanted = is_negated(query)
    agrees = [is_negated(c.gist) == wanted for c in candidates]
    agreeing = [j for j, c in enumerate(candidates) if agrees[j] and c.vector is not None]
    similar = similarity or cosine_lookup([c.vector for c in candidates])

    scored: list[PolarityScored] = []
    for i, candidate in enumerate(candidates):
        score = 1 / (i + 1)
        demoted = False
        vector = candidate.vector
        anchor = None if agrees[i] or vector is None else _anchor_twin(i, agreeing, similar)
        if anchor is not None:
            score = (1 / (anchor + 1)) * POLARITY_DEMOTION
            demoted = True
        scored.append(
            PolarityScored(
                path=candidate.path,
                gist=candidate.gist,
                vector=vector,
                score=score,
                position=i + 1,
                demoted=demoted,
            )
        )
    return tuple(sorted(scored, key=lambda s: (-s.score, s.position)))


def _anchor_twin(i: int, agreeing: Sequence[int], similar: PairSimilarity) -> int | None:
    """The lowest-ranked agreeing near-twin of candidate ``i`` ranked below it, if any.

    Only an agreeing twin ranked below ``i`` can move it: a candidate fusion already put below
    every agreeing twin stays where it is. So ``agreeing`` (ascending indexes) is walked from its
    end and the walk stops at ``i``: the first twin found is the anchor, and no pair with the
    agreeing side above ``i`` is ever compared.
    """
    for j in reversed(agreeing):
        if j <= i:
            return None
        if similar(i, j) >= TWIN_COSINE:
            return j
    return None
