"""The authority step of search and recall: fused candidates reordered by bounded authority.

The rule is :func:`memhtml.domain.authority.apply_authority`; this module reads its facts off
the candidate rows and leaves the fused order alone when the step is switched off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from memhtml.domain.authority import AuthorityFacts, AuthorityRun, apply_authority
from memhtml.domain.fusion import RANK_ARMS, ArmKind, Fused
from memhtml.ports.candidate_store import CandidateRow
from memhtml.ports.retrieval import RankingOptions

QUERY_ARMS: Final = frozenset(arm.name for arm in RANK_ARMS if arm.kind is ArmKind.QUERY)
"""The arms whose rank is query evidence: authority never lifts a memory none of them found."""


def authority_step(
    fused: Sequence[Fused], rows: Mapping[str, CandidateRow], options: RankingOptions
) -> AuthorityRun:
    """``fused`` reordered by authority (``options.authority``), or unchanged with no
    adjustments when the step is off."""
    if not options.authority:
        return AuthorityRun(fused=tuple(fused), adjustments={})
    facts = {
        path: AuthorityFacts(
            memory_type=row.memory_type,
            importance=row.importance,
            confidence=row.confidence,
            pinned=row.pinned,
            tags=frozenset(row.tags),
        )
        for path, row in rows.items()
    }
    return apply_authority(fused, facts, QUERY_ARMS)
