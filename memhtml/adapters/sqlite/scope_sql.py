"""A search scope as one SQL filter string that every ranking arm receives (docs/ranking.md §6).

The filter is a run of ``AND`` conditions over a ``files`` row written against the token
``{alias}``; each arm substitutes the alias its own ``files`` row goes by. One string reaching
every arm is what stops a scope from applying to three arms and missing the fourth. Values
bind to numbered placeholders from ``?6`` on, after the retrieval statement's fixed five.

The pure twin is :func:`memhtml.domain.scope.scope_admits`; the contract suite checks the two
agree row for row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import attrs

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.domain.scope import ENTITY_SEPARATOR, EXCLUDED_BY_DEFAULT, SearchScope, is_narrowing
from memhtml.ports.archive_lookup import ArchivedLookup, ArchivedMatch

ALIAS_TOKEN: Final = "{alias}"
"""Stands for the alias of the arm's ``files`` row; :meth:`AssembledScope.for_alias` fills it."""

FIRST_SCOPE_PARAM: Final = 6
"""Scope values bind from ``?6``: ``?1``–``?5`` are the query, two limits, the vector and the
query's entities (``arm_sql.FIXED_PARAMS``)."""

Bind = Callable[[str], str]
"""Takes a value to bind and returns the placeholder text that refers to it."""


def text_literal(value: str) -> str:
    """``value`` as a SQL string literal (quotes doubled), for trusted configuration only."""
    return "'" + value.replace("'", "''") + "'"


@attrs.frozen(kw_only=True)
class AssembledScope:
    """An assembled scope: the filter with its ``{alias}`` token, and the values it binds.

    Attributes:
        file_filter: ``AND …`` conditions over ``{alias}``; never empty, because the archived
            and task defaults are always part of it unless the caller overrode them.
        params: The values of ``?6`` onward (``first_param``), in placeholder order.
    """

    file_filter: str
    params: tuple[str, ...]

    def for_alias(self, alias: str) -> str:
        """The filter with ``{alias}`` replaced by the arm's alias for its ``files`` row."""
        return self.file_filter.replace(ALIAS_TOKEN, alias)


class _NumberedBinder:
    """Hands out ``?N`` from a first number on and records the values in order."""

    def __init__(self, first: int) -> None:
        self._next = first
        self.values: list[str] = []

    def __call__(self, value: str) -> str:
        self.values.append(value)
        placeholder = f"?{self._next}"
        self._next += 1
        return placeholder


def facet_conditions(
    groups: Sequence[tuple[str, Sequence[str]]], alias: str, bind: Bind
) -> tuple[str, ...]:
    """One ``EXISTS`` per facet name, its values OR-ed in an ``IN`` list inside it.

    Shared with the listing, which binds anonymous ``?`` and uses a real alias: only those two
    things differ, and two copies of the composition rule would drift apart. Names AND because
    the conditions are joined by ``AND``; a single ``EXISTS`` over every pair would OR them all,
    so ``doc-type=runbook tier=1`` would return every runbook plus every tier-1 memory.

    Args:
        groups: ``(name, values)`` as :meth:`SearchScope.facet_groups` returns them.
        alias: The alias (or ``{alias}`` token) of the ``files`` row.
        bind: Records one value and returns its placeholder text.

    Returns:
        One condition per name, in the groups' order.
    """
    conditions: list[str] = []
    for name, values in groups:
        name_mark = bind(name)
        value_marks = ", ".join(bind(value) for value in values)
        conditions.append(
            "EXISTS (SELECT 1 FROM file_facets scope_facet "
            f"WHERE scope_facet.path = {alias}.path AND scope_facet.name = {name_mark} "
            f"AND scope_facet.value IN ({value_marks}))"
        )
    return tuple(conditions)


def assemble_scope(
    scope: SearchScope | None = None,
    *,
    archived_only: bool = False,
    first_param: int = FIRST_SCOPE_PARAM,
) -> AssembledScope:
    """Assemble ``scope`` into one filter plus its bound values.

    The defaults (active rows, no tasks) are inlined rather than bound: binding them would take
    a placeholder number and shift every scope value after it. Without ``as_of`` the filter
    holds no validity clause at all, so an unscoped statement is byte-identical to the plain one.

    Args:
        scope: The caller's scope; None is the empty scope.
        archived_only: Replace the archived condition with ``archived = 1``: the same axes over
            archived rows only, for the pointer behind an empty scope.
        first_param: The number of the first placeholder the scope may use.

    Returns:
        The filter over ``{alias}`` and the values for ``?first_param`` onward.
    """
    scope = scope or SearchScope()
    bind = _NumberedBinder(first_param)
    conditions: list[str] = []
    a = ALIAS_TOKEN
    if scope.as_of is not None:
        # The same window scope_admits implements; archived rows were believed then, so they
        # stay in unless the caller asked for archived rows only.
        at = bind(scope.as_of)
        conditions.append(
            f"coalesce({a}.valid_from, {a}.event_at, {a}.created_at) <= {at} "
            f"AND ({a}.valid_until IS NULL OR {a}.valid_until > {at})"
        )
    if scope.known_seq is not None:
        # Transaction time (docs/index-schema.md §7): the row's blob was the one its path held
        # in that commit of the line. The number is an int from the index, bound like the rest.
        seq = bind(str(scope.known_seq))
        conditions.append(
            "EXISTS (SELECT 1 FROM file_spans scope_span WHERE scope_span.path = "
            f"{a}.path AND scope_span.blob_sha = {a}.blob_sha AND scope_span.from_seq <= "
            f"CAST({seq} AS INTEGER) AND (scope_span.until_seq IS NULL OR "
            f"scope_span.until_seq > CAST({seq} AS INTEGER)))"
        )
    if archived_only:
        conditions.append(f"{a}.archived = 1")
    elif scope.as_of is None and not scope.include_archived:
        conditions.append(f"{a}.archived = 0")
    if scope.memory_types:
        marks = ", ".join(bind(t) for t in scope.memory_types)
        conditions.append(f"{a}.memory_type IN ({marks})")
    else:
        excluded = ", ".join(text_literal(t) for t in EXCLUDED_BY_DEFAULT)
        conditions.append(
            f"{a}.memory_type <> {excluded}"
            if len(EXCLUDED_BY_DEFAULT) == 1
            else f"{a}.memory_type NOT IN ({excluded})"
        )
    if scope.workspace is not None:
        conditions.append(f"{a}.workspace = {bind(scope.workspace)}")
    if scope.tags:
        marks = ", ".join(bind(tag) for tag in scope.tags)
        conditions.append(
            "EXISTS (SELECT 1 FROM file_tags scope_tag "
            f"WHERE scope_tag.path = {a}.path AND scope_tag.tag IN ({marks}))"
        )
    if scope.entity is not None:
        # lower() on both sides, in SQL only: SQLite's lower() folds ASCII alone, and folding
        # one side in Python (full Unicode) would make `place:CAFÉ` match from one door only.
        sep = text_literal(ENTITY_SEPARATOR)
        conditions.append(
            "EXISTS (SELECT 1 FROM file_entities scope_entity "
            f"WHERE scope_entity.path = {a}.path AND lower(scope_entity.entity_type || {sep} "
            f"|| scope_entity.entity_name) = lower({bind(scope.entity)}))"
        )
    conditions.extend(facet_conditions(scope.facet_groups(), a, bind))
    return AssembledScope(file_filter="AND " + " AND ".join(conditions), params=tuple(bind.values))


def superseded_by_sql(alias: str) -> str:
    """The memory whose authored ``supersedes`` edge names the row ``alias``, else NULL.

    The edge may name the loser at its archived path or at the path it had before the archive
    move (``origin_path``), so either resolves. The smallest source wins when several do.
    """
    return (
        "(SELECT min(s.src_path) FROM edges s WHERE s.rel = 'supersedes' AND s.derived = 0 "
        f"AND s.dst_path IN ({alias}.path, {alias}.origin_path))"
    )


def scope_is_empty(db: Database, scope: SearchScope) -> bool:
    """A named scope holding no memory at all, ranked or not (``scopeEmpty``).

    Asked of the scope itself rather than read off an empty hit list: with the priors gated or
    arms deselected, a query can miss every memory of a scope that still holds some.

    Raises:
        StorageFailure: The check fails.
    """
    if not is_narrowing(scope):
        return False
    assembled = assemble_scope(scope)
    row = db.get(
        f"SELECT EXISTS (SELECT 1 FROM files f WHERE 1 {assembled.for_alias('f')})",
        _prefixed(assembled),
        operation="check scope",
    )
    return row is not None and not row[0]


def archived_in_scope(db: Database, scope: SearchScope, limit: int) -> ArchivedLookup:
    """The same scope with the archived flag flipped: how many, and the first ``limit`` by path.

    A scope match, not a ranked one: the question is whether the scope's address still resolves
    somewhere. The count is a window over every match taken before the LIMIT, so one statement
    answers both.

    Raises:
        StorageFailure: The lookup fails.
    """
    flipped = assemble_scope(scope, archived_only=True)
    rows = db.all(
        f"SELECT count(*) OVER (), f.path, {superseded_by_sql('f')} FROM files f "
        f"WHERE 1 {flipped.for_alias('f')} ORDER BY f.path LIMIT ?1",
        (limit, *_prefixed(flipped)[1:]) if flipped.params else (limit,),
        operation="look up archived matches",
    )
    matches = tuple(
        ArchivedMatch(path=str(path), superseded_by=None if by is None else str(by))
        for _, path, by in rows
    )
    count = rows[0][0] if rows else 0
    return ArchivedLookup(count=count if isinstance(count, int) else 0, matches=matches)


def _prefixed(assembled: AssembledScope) -> tuple[SqlValue, ...]:
    """NULLs for ``?1``–``?5``, then the scope's values; nothing when the scope binds none."""
    if not assembled.params:
        return ()
    return (None,) * (FIRST_SCOPE_PARAM - 1) + assembled.params
