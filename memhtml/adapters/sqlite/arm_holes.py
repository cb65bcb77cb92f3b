"""What every arm template of the fused statement is filled with, and its fixed placeholders.

Kept apart from the statement's assembly (``retrieval_sql``) so an arm can live in a module of
its own (``salience_sql``) without importing the module that lists the arms.
"""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.adapters.sqlite.scope_sql import ALIAS_TOKEN

PARAM_QUERY: Final = 1
PARAM_ARM_LIMIT: Final = 2
PARAM_FINAL_LIMIT: Final = 3
PARAM_QUERY_VECTOR: Final = 4
PARAM_QUERY_ENTITIES: Final = 5
FIXED_PARAMS: Final = 5
"""``?1``–``?5``; the scope's values start right after them."""

# julianday() returns a double of whole milliseconds; times this and rounded it gives those
# milliseconds back exactly, so instant arithmetic in SQL matches domain.instants to the bit.
MS_PER_DAY: Final = 86_400_000
UNIX_EPOCH_JD_MS: Final = 210_866_760_000_000
MS_PER_HOUR: Final = 3_600_000


def stamp_ms_sql(expr: str) -> str:
    """SQL for the Unix milliseconds of a stamp, NULL when ``julianday()`` cannot read it.

    The twin of :func:`memhtml.domain.instants.instant_ms`: an exact integer-valued double, so a
    difference of two is exact and one division rounds the same way Python's ``/`` does.
    """
    return f"(round(julianday({expr}) * {MS_PER_DAY}.0) - {UNIX_EPOCH_JD_MS})"


@attrs.frozen(kw_only=True)
class ArmHoles:
    """What an arm template is filled with; assembled, never bound.

    Attributes:
        file_filter: The scope filter with ``{alias}`` still in it.
        gate: ``AND {alias}.path IN (…)``, restricting a prior to the query arms' candidates;
            ``""`` for a query arm or when the gate is off.
        embed_model: The configured vector space, inlined into the vector arm.
        now: The instant salience decays to, from the clock port (docs/decisions.md §3).
        vector_max_distance: The vector arm keeps only files nearer than this (cosine
            distance), inlined; ``None`` keeps its whole top list.
        seed_ctes: The CTEs of the query arms a seeded (graph) arm starts from.
        vector_ranked: The placeholder holding the vector arm's list, ranked already (a JSON
            array of paths, best first; ``vector_preselect``), or ``None`` to scan.
    """

    file_filter: str
    gate: str
    embed_model: str
    now: str
    vector_max_distance: float | None = None
    seed_ctes: tuple[str, ...] = ()
    vector_ranked: int | None = None

    def scope(self, alias: str) -> str:
        """The scope filter and the prior gate, written against ``alias``."""
        return f"{self.file_filter} {self.gate}".rstrip().replace(ALIAS_TOKEN, alias)
