"""The caller's search scope, facet filter parsing, and the pure twin of the scope predicate.

One scope reaches every ranking arm as one assembled filter (docs/ranking.md §6); the SQL adapter
builds that filter from a :class:`SearchScope`, and :func:`scope_admits` states the same predicate
over one file's facts so the contract suite can prove the two agree row for row.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput
from memhtml.domain.paths import slugify
from memhtml.domain.vocabulary import MEMORY_TYPES, TASK_TYPE

FACET_SEPARATOR: Final = "="
"""Separates a facet's name from its value in the ``name=value`` wire form."""

ENTITY_SEPARATOR: Final = ":"
"""Separates an entity reference's type from its name (``person:sasha``)."""

EXCLUDED_BY_DEFAULT: Final[tuple[str, ...]] = (TASK_TYPE,)
"""The types an unscoped query does not see; naming one in ``memory_types`` opts in.

Fifty open to-do items would otherwise sit in front of every recall, crowding out the knowledge
the agent asked for with a list it can read by listing a directory.
"""

_ASCII_FOLD: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@attrs.frozen(kw_only=True)
class FacetFilter:
    """One facet predicate: a ``<dt>`` name and one ``<dd>`` value under it, both exact text.

    A pair rather than a ``name=value`` string, because the SQL binds the halves separately and a
    builder that re-split its input would carry a second copy of the split rule.
    """

    name: str
    value: str


def parse_facet_filter(spec: str) -> FacetFilter | None:
    """One ``name=value`` spec, or None when it is not one.

    The split is at the first ``=``, so a value may contain ``=`` (``query=a=b``) and a name may
    not. Both halves are trimmed (the index stores facet text whitespace-collapsed and trimmed),
    and an empty half is a rejection: ``=x``, ``x=`` and ``x`` yield nothing.
    """
    name, separator, value = spec.partition(FACET_SEPARATOR)
    name, value = name.strip(), value.strip()
    if not separator or not name or not value:
        return None
    return FacetFilter(name=name, value=value)


def parse_facet_filters(specs: Iterable[str]) -> tuple[FacetFilter, ...]:
    """Every parseable spec, in order, exact repeats collapsed; malformed ones are dropped.

    Dropping rather than failing is the library's discipline (docs/decisions.md §17): a scope value
    that cannot narrow anything must not narrow everything. The CLI refuses instead, through
    :func:`parse_facet_filter_strict`.
    """
    return _unique(f for f in map(parse_facet_filter, specs) if f is not None)


def parse_facet_filter_strict(spec: str) -> FacetFilter:
    """One ``name=value`` spec for the command line, where a typo must be heard.

    Raises:
        InvalidInput: The spec has no ``=`` or an empty side.
    """
    parsed = parse_facet_filter(spec)
    if parsed is None:
        raise InvalidInput(f"--facet expects name=value with both sides non-empty, got {spec!r}")
    return parsed


def normalize_workspace(workspace: str | None) -> str | None:
    """A workspace as placement spells its directory (docs/decisions.md §11); blank means no
    workspace.

    Slugged with the same function as the write path, so ``"Checkout API"`` scopes to
    ``projects/checkout-api/``; spelled any other way, the scope would find nothing it wrote.
    """
    if workspace is None or not workspace.strip():
        return None
    return slugify(workspace)


def ascii_fold(text: str) -> str:
    """Lowercase ASCII letters only, exactly as SQLite's built-in ``lower()`` does.

    The entity comparison folds on both sides inside SQL; a full-Unicode fold here would make
    ``place:CAFÉ`` match through the twin and miss through the index.
    """
    return text.translate(_ASCII_FOLD)


def _unique(items: Iterable[FacetFilter]) -> tuple[FacetFilter, ...]:
    return tuple(dict.fromkeys(items))


def _clean_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Trimmed, blanks dropped (a blank tag cannot narrow anything), repeats collapsed."""
    return tuple(dict.fromkeys(t.strip() for t in tags if t.strip()))


def _clean_entity(entity: str | None) -> str | None:
    if entity is None or not entity.strip():
        return None
    return entity.strip()


def _known_types(memory_types: Iterable[str]) -> tuple[str, ...]:
    types = tuple(dict.fromkeys(memory_types))
    unknown = [t for t in types if t not in MEMORY_TYPES]
    if unknown:
        # An unknown type would silently match nothing, which reads as "no such memory".
        raise InvalidInput(f"unknown memory type(s): {', '.join(unknown)}")
    return types


@attrs.frozen(kw_only=True)
class SearchScope:
    """What a search, recall or listing may return. Every field empty: all active non-tasks.

    Fields are normalised on construction (and on :func:`attrs.evolve`), so the SQL filter and
    :func:`scope_admits` read the same values.

    Attributes:
        workspace: Strict equality on the ``projects/<workspace>/`` directory, slugged; an
            unplaced memory never matches, or a project-scoped recall would turn global.
        tags: Any-of; each tag broadens.
        entity: One ``type:name`` reference, ASCII-case-insensitive. The type is required: a
            bare name matches nothing, since ``person:sasha`` and ``concept:sasha`` differ.
        facets: AND across distinct names, OR among values of one name, exact text.
        memory_types: Any-of, exactly as given (``task`` included); empty means every type but
            :data:`EXCLUDED_BY_DEFAULT`.
        include_archived: Drop the default exclusion of archived files.
        as_of: An instant; replaces the archived filter with the validity window
            ``coalesce(valid_from, event_at, created_at) <= as_of < valid_until`` (NULL
            ``valid_until`` is open), compared as strings.
        known_seq: Transaction time (``--known-at``): admit only rows whose blob the commit
            numbered ``known_seq`` of the indexed first-parent line held at their path
            (docs/index-schema.md §7); ``None`` admits today's rows as they are.
    """

    workspace: str | None = attrs.field(default=None, converter=normalize_workspace)
    tags: tuple[str, ...] = attrs.field(default=(), converter=_clean_tags)
    entity: str | None = attrs.field(default=None, converter=_clean_entity)
    facets: tuple[FacetFilter, ...] = attrs.field(default=(), converter=_unique)
    memory_types: tuple[str, ...] = attrs.field(default=(), converter=_known_types)
    include_archived: bool = False
    as_of: str | None = None
    known_seq: int | None = None

    def facet_groups(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Facet values grouped by name, names and values in first-seen order.

        One group is one ``EXISTS (… name = ? AND value IN (…))``: grouping is what makes
        names AND and values OR; a flat list of pairs would OR every pair.
        """
        groups: dict[str, list[str]] = {}
        for facet in self.facets:
            groups.setdefault(facet.name, []).append(facet.value)
        return tuple((name, tuple(values)) for name, values in groups.items())


@attrs.frozen(kw_only=True)
class ScopeFacts:
    """What the scope predicate reads about one file: its ``files`` row and child rows.

    Attributes:
        path: Repo path (identifies the row; the predicate itself does not read it).
        memory_type: ``files.memory_type``.
        archived: ``files.archived``, true iff the path is under ``archive/``.
        workspace: ``files.workspace``, None when unplaced.
        tags: The file's ``file_tags``.
        entities: The file's ``file_entities`` as (type, name) pairs, as authored.
        facets: The file's ``file_facets`` as (name, value) pairs.
        valid_from: ``files.valid_from``.
        valid_until: ``files.valid_until``.
        event_at: ``files.event_at``.
        created_at: ``files.created_at``.
        spans: The ``(from_seq, until_seq)`` spans of the row's blob at its path
            (docs/index-schema.md §7), for the transaction-time mask.
    """

    path: str
    memory_type: str
    archived: bool = False
    workspace: str | None = None
    tags: frozenset[str] = frozenset()
    entities: frozenset[tuple[str, str]] = frozenset()
    facets: frozenset[tuple[str, str]] = frozenset()
    valid_from: str | None = None
    valid_until: str | None = None
    event_at: str | None = None
    created_at: str
    spans: tuple[tuple[int, int | None], ...] = ()


def scope_admits(scope: SearchScope, facts: ScopeFacts) -> bool:
    """True when the file described by ``facts`` is inside ``scope``.

    The reference the assembled SQL filter is tested against, so None plays SQL's NULL: the
    window's start is the first stamp that is not None, as ``coalesce`` picks it, even ``""``.
    """
    if scope.known_seq is not None and not _known_at(facts, scope.known_seq):
        return False
    if scope.as_of is not None:
        if not _valid_at(facts, scope.as_of):
            return False
    elif facts.archived and not scope.include_archived:
        return False
    if scope.memory_types:
        if facts.memory_type not in scope.memory_types:
            return False
    elif facts.memory_type in EXCLUDED_BY_DEFAULT:
        return False
    if scope.workspace is not None and facts.workspace != scope.workspace:
        return False
    if scope.tags and facts.tags.isdisjoint(scope.tags):
        return False
    if scope.entity is not None:
        wanted = ascii_fold(scope.entity)
        held = {ascii_fold(f"{kind}{ENTITY_SEPARATOR}{name}") for kind, name in facts.entities}
        if wanted not in held:
            return False
    return all(
        any((name, value) in facts.facets for value in values)
        for name, values in scope.facet_groups()
    )


def _known_at(facts: ScopeFacts, seq: int) -> bool:
    """Whether one of the row's spans covers commit ``seq``."""
    return any(start <= seq and (until is None or seq < until) for start, until in facts.spans)


def _valid_at(facts: ScopeFacts, as_of: str) -> bool:
    """The validity window at ``as_of``; archived files are admitted, they were believed then."""
    start = next(s for s in (facts.valid_from, facts.event_at, facts.created_at) if s is not None)
    return start <= as_of and (facts.valid_until is None or facts.valid_until > as_of)


def is_narrowing(scope: SearchScope) -> bool:
    """Whether the caller named a scope that can narrow the corpus (``scopeEmpty`` needs one).

    ``include_archived`` alone only widens, so it does not count: an empty corpus searched with
    it is an empty corpus, not an over-narrow scope.
    """
    return bool(
        scope.workspace is not None
        or scope.tags
        or scope.entity is not None
        or scope.facets
        or scope.memory_types
        or scope.as_of is not None
        or scope.known_seq is not None
    )
