"""The entity arm's rules: entity keys, the vocabulary a query is matched against, IDF weights.

A memory holds the entities it declares (``memhtml-entity``, ``<dfn>`` concepts, code languages)
plus one derived from each tag (``tag:<tag>``). A query holds the entity named with ``--entity``
and every known name, tag or alias found in its text, matched case-folded, longest first, with
no model. Memories rank by the sum of the IDF weights of the entities they share with the query,
counted inside the search scope, so a tag on nearly every memory weighs almost nothing
(``docs/ranking.md §2.6``).

Everything here is pure; the SQLite arm (``adapters/sqlite/arm_sql``) is held to
:func:`entity_ranking` by the contract suites.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Final

import attrs

from memhtml.domain.fts_query import ENGLISH_STOPWORDS
from memhtml.domain.model import EntityRef
from memhtml.domain.scope import ENTITY_SEPARATOR, ascii_fold

TAG_ENTITY_TYPE: Final = "tag"
"""The type of the entity each tag stands for (``tag:billing``)."""

ALIAS_SKIPPED_TYPES: Final[frozenset[str]] = frozenset({"lang"})
"""Entity types an alias does not name: an alias is another name for the memory's subject, and a
code block's language is not its subject."""

MAX_SURFACE_WORDS: Final = 6
"""The longest name, in words, a query is matched against; longer names match no query."""

WEIGHT_UNITS: Final = 1_000_000
"""IDF weights are summed as whole millionths, so the sum is exact in any order.

SQLite adds a group's rows in the order it reads them; with floats, two memories sharing the
same entities could then differ by one ulp and a tie would fall differently in SQL and here.
"""


@attrs.frozen(kw_only=True)
class EntityTerm:
    """One row of the entity vocabulary: a name as a query would spell it, and what it names.

    Attributes:
        surface: The name's words, ASCII-folded and joined by one space (:func:`surface_of`).
        key: The entity it names (:func:`entity_key`).
    """

    surface: str
    key: str


def entity_key(entity_type: str, name: str) -> str:
    """``type:name`` with ASCII folded, the form entity keys are compared in.

    ASCII only, like the entity scope: a fold SQLite's ``lower()`` would not make must not be
    made here either, or one door would match what the other misses.
    """
    return ascii_fold(f"{entity_type}{ENTITY_SEPARATOR}{name}")


def tag_key(tag: str) -> str:
    """The key of the entity a tag stands for."""
    return entity_key(TAG_ENTITY_TYPE, tag)


def surface_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` as the vocabulary compares them: runs of letters and digits (a
    combining mark continues a word), ASCII-folded, NFC-normalised."""
    words: list[str] = []
    current: list[str] = []
    for ch in text:
        major = unicodedata.category(ch)[0]
        if major in "LN" or (major == "M" and current):
            current.append(ch)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return tuple(unicodedata.normalize("NFC", ascii_fold(word)) for word in words)


def surface_of(text: str) -> str:
    """``text`` as a vocabulary surface: its words joined by one space (``ledger-API`` →
    ``ledger api``), so a query that writes the name with a space, a hyphen or other case
    still finds it."""
    return " ".join(surface_words(text))


def entity_terms(
    entities: Iterable[EntityRef], tags: Iterable[str], aliases: Iterable[str]
) -> tuple[EntityTerm, ...]:
    """The vocabulary rows one memory contributes, first occurrence kept.

    Each entity is named by its name; each tag by itself (and stands for ``tag:<tag>``); each
    alias names every entity the memory declares except its code languages. An alias of a memory
    that declares no entity names nothing: there is no subject to give it to.
    """
    declared = tuple(entities)
    rows: list[EntityTerm] = [
        EntityTerm(surface=surface_of(e.name), key=entity_key(e.type, e.name)) for e in declared
    ]
    rows += [EntityTerm(surface=surface_of(tag), key=tag_key(tag)) for tag in tags]
    subjects = [entity_key(e.type, e.name) for e in declared if e.type not in ALIAS_SKIPPED_TYPES]
    rows += [
        EntityTerm(surface=surface_of(alias), key=key) for alias in aliases for key in subjects
    ]
    return tuple(dict.fromkeys(rows))


def query_surfaces(query: str) -> tuple[str, ...]:
    """Every run of 1–:data:`MAX_SURFACE_WORDS` consecutive words of ``query`` worth asking the
    vocabulary about, in first-seen order.

    A run made only of English function words, or a single one-character word, is never asked:
    an entity named ``it`` or ``a`` would otherwise join every query.
    """
    words = surface_words(query)
    found: dict[str, None] = {}
    for start in range(len(words)):
        for size in range(1, MAX_SURFACE_WORDS + 1):
            run = words[start : start + size]
            if len(run) < size:
                break
            if _askable(run):
                found.setdefault(" ".join(run), None)
    return tuple(found)


def _askable(run: Sequence[str]) -> bool:
    if all(word in ENGLISH_STOPWORDS for word in run):
        return False
    return not (len(run) == 1 and len(run[0]) < 2)


def match_entities(query: str, known: Mapping[str, Collection[str]]) -> tuple[str, ...]:
    """The entity keys ``query`` names: scanned left to right, the longest known run at each
    word wins and its words are used up; keys sorted, each once.

    Args:
        query: The caller's text.
        known: The vocabulary's answer for :func:`query_surfaces`: surface → the keys it names.
    """
    words = surface_words(query)
    keys: set[str] = set()
    start = 0
    while start < len(words):
        step = 1
        for size in range(min(MAX_SURFACE_WORDS, len(words) - start), 0, -1):
            run = words[start : start + size]
            surface = " ".join(run)
            if _askable(run) and known.get(surface):
                keys.update(known[surface])
                step = size
                break
        start += step
    return tuple(sorted(keys))


def idf_units(scope_size: int, holders: int) -> int:
    """The IDF weight of an entity ``holders`` of ``scope_size`` in-scope memories hold, in
    :data:`WEIGHT_UNITS`: ``ln(1 + (N − df + 0.5) / (df + 0.5))``, truncated.

    Always positive, and near zero for an entity every memory holds. The SQL arm spells the same
    operations in the same order, so both truncate the same double.
    """
    return int(math.log(1.0 + (scope_size - holders + 0.5) / (holders + 0.5)) * WEIGHT_UNITS)


def entity_ranking(
    held: Mapping[str, Collection[str]],
    query_keys: Collection[str],
    *,
    scope_size: int,
    arm_limit: int,
) -> list[str]:
    """The entity arm's order: in-scope memories by the IDF weights they share with the query.

    A memory ranks when it shares at least one *selective* entity: one held by no more memories
    than the arm may rank (``arm_limit``). An entity held more widely than that cannot order
    its holders, who would be ranked by path, so alone it ranks nobody; it still adds its weight
    to a memory that ranks for another entity.

    Args:
        held: Each in-scope memory's entity keys (declared ones and ``tag:`` ones).
        query_keys: The query's entity keys.
        scope_size: How many memories the scope holds (N of the IDF).
        arm_limit: The arm's candidate budget.

    Returns:
        Paths by summed weight descending, then path; at most every sharing memory (the caller
        cuts to ``arm_limit``).
    """
    wanted = frozenset(query_keys)
    shared = {path: wanted.intersection(keys) for path, keys in held.items()}
    holders: dict[str, int] = {}
    for keys in shared.values():
        for key in keys:
            holders[key] = holders.get(key, 0) + 1
    scores: dict[str, int] = {}
    for path, keys in shared.items():
        if keys and min(holders[key] for key in keys) <= arm_limit:
            scores[path] = sum(idf_units(scope_size, holders[key]) for key in keys)
    return sorted(scores, key=lambda path: (-scores[path], path))
