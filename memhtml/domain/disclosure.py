"""The disclosure fold: spend a recall pack's character budget on ranked candidates.

A candidate is either quoted in full (its disclosure text: claim, headlines, facets, citations;
docs/format.md §6) or listed as an index line (path, title, gist) the agent can drill into. The
budget is a character budget, not a position cut-off: one long memory in the middle of the list must
not silently truncate every shorter one after it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput
from memhtml.domain.text import utf16_len
from memhtml.domain.vocabulary import ARC_TYPE

MAX_PER_ENTITY: Final = 2
"""At most two full quotes per entity reference (``type:name``, docs/decisions.md §10), not
per path.

Per path would be no cap: twelve memories about one service are twelve paths, and they would fill
the budget with one entity's history. The cap makes recall breadth-first over entities.
"""

ARC_BODY_BUDGET: Final = 9_000
"""The arcs' own envelope, in UTF-16 units, so one synthesis cannot crowd out its evidence."""

MEMORY_BODY_BUDGET: Final = 16_000
"""The envelope ordinary memories share when the caller names no budget, in UTF-16 units."""


@attrs.frozen(kw_only=True)
class DisclosureCandidate:
    """A candidate for disclosure, already ranked.

    Attributes:
        path: The memory's repository path.
        title: Its title.
        gist: Its claim, shown on the index line when it is not quoted.
        memory_type: Its memory type (``arc`` folds under its own budget).
        disclosure_text: The only text the fold may quote; supplied apart from the body so the
            fold cannot quote ``<details>`` or ``<aside>`` prose by accident.
        entities: The ``type:name`` references the memory carries, for the per-entity cap.
    """

    path: str
    title: str
    gist: str
    memory_type: str
    disclosure_text: str
    entities: frozenset[str] = frozenset()


@attrs.frozen(kw_only=True)
class DisclosedEntry:
    """A fully quoted memory; ``body`` is its disclosure text."""

    path: str
    title: str
    gist: str
    memory_type: str
    body: str


@attrs.frozen(kw_only=True)
class IndexLine:
    """A memory that was not quoted: its claim and path, so the agent can read it by path."""

    path: str
    title: str
    gist: str
    memory_type: str


@attrs.frozen(kw_only=True)
class DisclosureFold:
    """What one budget produced.

    Attributes:
        disclosed: The quotes, in rank order.
        index_lines: The candidates not quoted, in rank order.
        spent_chars: UTF-16 units of quoted disclosure text; never more than the budget.
        truncated: Whether at least one candidate became an index line.
    """

    disclosed: tuple[DisclosedEntry, ...]
    index_lines: tuple[IndexLine, ...]
    spent_chars: int
    truncated: bool


@attrs.frozen(kw_only=True)
class RecallPack:
    """The folded pack: arcs and ordinary memories apart, each under its own envelope.

    The retrieval facts a recall also reports (``degraded``, vector coverage) belong to the run,
    not the fold, so the use case adds them beside this value.

    Attributes:
        arcs: The fold of the ``arc`` candidates under :data:`ARC_BODY_BUDGET`.
        memories: The fold of every other candidate under the caller's budget.
        spent_chars: Both folds' spending together.
        truncated: Whether either fold left a candidate as an index line.
    """

    arcs: DisclosureFold
    memories: DisclosureFold
    spent_chars: int
    truncated: bool


def budget_for(memory_type: str, budget_chars: int | None = None) -> int:
    """The envelope a candidate of ``memory_type`` folds under.

    Args:
        memory_type: The candidate's memory type.
        budget_chars: The caller's budget for ordinary memories, or ``None`` for the default.

    Returns:
        :data:`ARC_BODY_BUDGET` for an arc, otherwise ``budget_chars`` or
        :data:`MEMORY_BODY_BUDGET`.
    """
    if memory_type == ARC_TYPE:
        return ARC_BODY_BUDGET
    return _memory_budget(budget_chars)


def _memory_budget(budget_chars: int | None) -> int:
    return MEMORY_BODY_BUDGET if budget_chars is None else budget_chars


def fold_disclosure(
    candidates: Sequence[DisclosureCandidate],
    budget_chars: int,
    *,
    max_per_entity: int = MAX_PER_ENTITY,
) -> DisclosureFold:
    """Fold ranked candidates into quotes and index lines under one character budget.

    Rank order is authoritative: the fold walks the candidates once and never promotes one past a
    better-ranked one. A quote is charged exactly ``utf16_len(disclosure_text)``; index lines are
    free, since they are the floor every candidate gets. A candidate becomes an index line when
    one of its entities already has ``max_per_entity`` quotes, when its text does not fit what is
    left, or when its text is empty (an empty quote says less than its index line). The fold
    then goes on, so a later, shorter candidate can still be quoted. Entity counts only grow, so
    once a candidate is capped on an entity no later candidate carrying that entity is quoted.

    Args:
        candidates: Candidates best first.
        budget_chars: The envelope in UTF-16 units, at least 0.
        max_per_entity: The per-entity quote cap, at least 0.

    Returns:
        The fold; ``spent_chars`` never exceeds ``budget_chars``.

    Raises:
        InvalidInput: When ``budget_chars`` or ``max_per_entity`` is negative.
    """
    if budget_chars < 0:
        raise InvalidInput(f"budget must be >= 0, got {budget_chars!r}")
    if max_per_entity < 0:
        raise InvalidInput(f"per-entity cap must be >= 0, got {max_per_entity!r}")
    quoted_per_entity: Counter[str] = Counter()
    disclosed: list[DisclosedEntry] = []
    index_lines: list[IndexLine] = []
    spent = 0
    for candidate in candidates:
        cost = utf16_len(candidate.disclosure_text)
        capped = any(quoted_per_entity[e] >= max_per_entity for e in candidate.entities)
        if capped or cost == 0 or spent + cost > budget_chars:
            index_lines.append(
                IndexLine(
                    path=candidate.path,
                    title=candidate.title,
                    gist=candidate.gist,
                    memory_type=candidate.memory_type,
                )
            )
            continue
        spent += cost
        quoted_per_entity.update(candidate.entities)
        disclosed.append(
            DisclosedEntry(
                path=candidate.path,
                title=candidate.title,
                gist=candidate.gist,
                memory_type=candidate.memory_type,
                body=candidate.disclosure_text,
            )
        )
    return DisclosureFold(
        disclosed=tuple(disclosed),
        index_lines=tuple(index_lines),
        spent_chars=spent,
        truncated=bool(index_lines),
    )


def fold_recall_pack(
    candidates: Sequence[DisclosureCandidate], budget_chars: int | None = None
) -> RecallPack:
    """Fold a recall's ranked candidates: arcs under their own envelope, the rest under the
    caller's.

    Each fold keeps its own per-entity counts, so an entity can be quoted twice among arcs and
    twice among memories: the arc envelope exists so the two never compete.

    Args:
        candidates: The post-polarity fused candidates, best first.
        budget_chars: The ordinary memories' envelope, or ``None`` for
            :data:`MEMORY_BODY_BUDGET`.

    Returns:
        The pack with both folds and their totals.

    Raises:
        InvalidInput: When ``budget_chars`` is negative.
    """
    arcs = [c for c in candidates if c.memory_type == ARC_TYPE]
    memories = [c for c in candidates if c.memory_type != ARC_TYPE]
    arc_fold = fold_disclosure(arcs, budget_for(ARC_TYPE, budget_chars))
    memory_fold = fold_disclosure(memories, _memory_budget(budget_chars))
    return RecallPack(
        arcs=arc_fold,
        memories=memory_fold,
        spent_chars=arc_fold.spent_chars + memory_fold.spent_chars,
        truncated=arc_fold.truncated or memory_fold.truncated,
    )
