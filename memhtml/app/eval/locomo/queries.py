"""Queries and their gold (docs/evaluation.md §B.3), pure: one conversation's QA items →
scored queries.

Categories 1–4 are scored; category 5 (adversarial: the question presumes something the
conversation never said) is scored apart. A scored item whose evidence normalises to nothing
cannot be scored at all, so it is excluded and counted rather than scored as a miss.
"""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.app.eval.locomo.dataset import Conversation
from memhtml.app.eval.locomo.evidence import EvidenceFix, normalise_evidence, session_of
from memhtml.app.eval.locomo.metrics import first_occurrences

SCORED_CATEGORIES: Final = (1, 2, 3, 4)
ADVERSARIAL_CATEGORY: Final = 5


@attrs.frozen(kw_only=True)
class Query:
    """One question to search, and what counts as a right answer.

    Attributes:
        qa_index: The item's 0-based position in the conversation's ``qa`` list.
        category: 1–5 (docs/evaluation.md §B.1).
        question: The search text, verbatim.
        gold_turns: Normalised evidence turn ids, in first-mention order.
        gold_sessions: The sessions of those turns, in first-mention order.
    """

    qa_index: int
    category: int
    question: str
    gold_turns: tuple[str, ...]
    gold_sessions: tuple[int, ...]


@attrs.frozen(kw_only=True)
class FixedItem:
    """A QA item whose evidence the normaliser changed, and how."""

    qa_index: int
    category: int
    evidence: tuple[str, ...]
    gold: tuple[str, ...]
    fixes: tuple[EvidenceFix, ...]


@attrs.frozen(kw_only=True)
class QuerySet:
    """A conversation's queries, the scored items left out for lack of gold, and the fixes."""

    queries: tuple[Query, ...]
    excluded_no_gold: tuple[int, ...]
    fixed: tuple[FixedItem, ...]


def build_queries(conversation: Conversation) -> QuerySet:
    """Every QA item of ``conversation`` with usable gold, in file order."""
    known = frozenset(turn.dia_id for turn in conversation.turns)
    queries: list[Query] = []
    excluded: list[int] = []
    fixed: list[FixedItem] = []
    for item in conversation.qa:
        gold = normalise_evidence(item.evidence, known)
        if gold.fixes:
            fixed.append(
                FixedItem(
                    qa_index=item.index,
                    category=item.category,
                    evidence=item.evidence,
                    gold=gold.dia_ids,
                    fixes=gold.fixes,
                )
            )
        if not gold.dia_ids:
            excluded.append(item.index)
            continue
        queries.append(
            Query(
                qa_index=item.index,
                category=item.category,
                question=item.question,
                gold_turns=gold.dia_ids,
                gold_sessions=first_occurrences(session_of(dia_id) for dia_id in gold.dia_ids),
            )
        )
    return QuerySet(queries=tuple(queries), excluded_no_gold=tuple(excluded), fixed=tuple(fixed))
