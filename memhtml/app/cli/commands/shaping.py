"""Result values → the ``data`` of the envelopes: camelCase keys, in
docs/cli-contract.md §3's order.

The use cases return frozen values with snake_case fields; the command line spells the same
fields in camelCase, ``apply`` included (issue 18: one naming rule for every key, pinned by
``tests/integration/test_cli_key_naming.py``). Each response type's key order is written down
here once, as docs/cli-contract.md lists it, and a value missing one of those fields is a bug that
fails loudly instead of printing a shorter contract.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, cast

import attrs

if TYPE_CHECKING:
    from attrs import AttrsInstance

Data = dict[str, object]

INIT_KEYS: Final = ("root", "created", "headSha", "wrote")
WRITTEN_KEYS: Final = (
    "path",
    "created",
    "deduped",
    "existingPath",
    "commitSha",
    "contentHash",
    "indexed",
    "conflicts",
    "nearDuplicates",
    "nearDuplicateSkipped",
    "nearDuplicateNote",
)
CORRECTED_KEYS: Final = (
    "path",
    "archivedPath",
    "commitSha",
    "contentHash",
    "indexed",
    "conflicts",
    "nearDuplicates",
    "nearDuplicateSkipped",
    "nearDuplicateNote",
)
ARCHIVED_KEYS: Final = ("path", "archivedPath", "commitSha", "indexed")
LINKED_KEYS: Final = ("srcPath", "dstPath", "rel", "created", "commitSha", "indexed")
APPLY_KEYS: Final = (
    "results",
    "summary",
    "commitSha",
    "aborted",
    "indexed",
    "nearDuplicateNote",
)
APPLY_RESULT_KEYS: Final = (
    "index",
    "op",
    "ok",
    "path",
    "deduped",
    "existingPath",
    "code",
    "error",
    "skipped",
    "conflicts",
    "nearDuplicates",
    "nearDuplicateSkipped",
)
APPLY_SUMMARY_KEYS: Final = (
    "total",
    "written",
    "deduped",
    "linked",
    "archived",
    "failed",
    "skipped",
    "nearDuplicateSkipped",
)


class MissingField(LookupError):
    """A result value lacks a field its response type must carry."""


@functools.lru_cache(maxsize=1024)
def camel_case(name: str) -> str:
    """``existing_path`` → ``existingPath``; a name without underscores is unchanged.

    Underscores at either end are kept as they are: they are not word seams.
    """
    core = name.strip("_")
    if not core:
        return name
    lead = name[: len(name) - len(name.lstrip("_"))]
    trail = name[len(name.rstrip("_")) :]
    first, *rest = core.split("_")
    return lead + first + "".join(word[:1].upper() + word[1:] for word in rest) + trail


def plain(value: object) -> object:
    """``value`` as JSON-ready data: attrs values become objects (keys camelCased, in field
    order), tuples and frozensets become arrays."""
    if attrs.has(type(value)):
        return {
            camel_case(name): plain(item)
            # attrs.has checked it; mypy cannot narrow an object to an attrs instance.
            for name, item in attrs.asdict(cast("AttrsInstance", value), recurse=False).items()
        }
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, frozenset):
        return [plain(item) for item in sorted(value, key=str)]
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def ordered(data: Mapping[str, object], keys: tuple[str, ...]) -> Data:
    """Exactly ``keys`` of ``data``, in that order.

    Raises:
        MissingField: ``data`` lacks one of ``keys``.
    """
    missing = [key for key in keys if key not in data]
    if missing:
        raise MissingField(f"result lacks {', '.join(missing)}")
    return {key: data[key] for key in keys}


def shaped(value: object, keys: tuple[str, ...]) -> Data:
    """An attrs result value as envelope data with exactly ``keys``, in order."""
    data = plain(value)
    if not isinstance(data, Mapping):
        raise TypeError(f"{type(value).__name__} is not an attrs value")
    return ordered(data, keys)


def apply_data(value: object) -> Data:
    """``batch.applied`` data: camelCase, results and summary in docs/cli-contract.md §3.2's
    order."""
    data = shaped(value, APPLY_KEYS)
    results = data["results"]
    summary = data["summary"]
    if not isinstance(results, list) or not isinstance(summary, Mapping):
        raise TypeError("apply result has no results array or summary object")
    data["results"] = [
        ordered(item, APPLY_RESULT_KEYS) for item in results if isinstance(item, Mapping)
    ]
    data["summary"] = ordered(summary, APPLY_SUMMARY_KEYS)
    return data


FRESHNESS_KEYS: Final = ("indexFresh", "indexUpdateMs")
HITS_KEYS: Final = (
    "hits",
    "degraded",
    "degradedReason",
    "vectorCoverage",
    "pendingVectors",
    "arms",
    "entityScope",
    "scopeEmpty",
    "archivedMatches",
    "archived",
    "knownAtCommit",
    *FRESHNESS_KEYS,
)
HIT_KEYS: Final = (
    "path",
    "title",
    "gist",
    "memoryType",
    "score",
    "confidence",
    "updatedAt",
    "snippet",
    "entities",
    "supersededBy",
    "ranks",
    "via",
    "authority",
)
RECALL_KEYS: Final = (
    "arcs",
    "memories",
    "spentChars",
    "truncated",
    "degraded",
    "degradedReason",
    "vectorCoverage",
    "pendingVectors",
    "knownAtCommit",
    *FRESHNESS_KEYS,
)
FOLD_KEYS: Final = ("disclosed", "indexLines", "spentChars", "truncated")
DETAIL_KEYS: Final = (
    "path",
    "title",
    "metas",
    "entities",
    "tags",
    "links",
    "inboundLinks",
    "gist",
    "body",
    "html",
    "archived",
    "warnings",
    "sessions",
    "knownAtCommit",
    *FRESHNESS_KEYS,
)
LIST_KEYS: Final = ("files", "nextCursor", "knownAtCommit", *FRESHNESS_KEYS)
LISTED_KEYS: Final = (
    "path",
    "title",
    "memoryType",
    "gist",
    "workspace",
    "para",
    "confidence",
    "importance",
    "archived",
    "updatedAt",
)
REINFORCED_KEYS: Final = ("bumped", "cooledDown", "signal")
NEIGHBORS_KEYS: Final = ("path", "depth", "relations", "links", *FRESHNESS_KEYS)
NEIGHBOR_KEYS: Final = (
    "path",
    "rel",
    "edgeClass",
    "direction",
    "depth",
    "fromPath",
    "title",
    "memoryType",
)


def pairs_object(value: object) -> dict[str, object]:
    """``((name, value), …)`` as one object, in the pairs' order (ranks, metas)."""
    if not isinstance(value, list | tuple):
        raise TypeError("expected a sequence of (name, value) pairs")
    return {str(name): item for name, item in value}


def _objects(value: object, keys: tuple[str, ...]) -> list[Data]:
    if not isinstance(value, list):
        raise TypeError("expected an array of objects")
    return [ordered(item, keys) for item in value if isinstance(item, Mapping)]


def order_score(position: int) -> float:
    """The reported ``score`` of the hit at 0-based ``position``: ``1 / (position + 1)``.

    The pipeline's own score is polarity's reciprocal position, taken before MMR reorders the
    hits, so in hit order it read 1.0, 0.33, 0.25, 0.2, 0.5. The score a caller sees is the
    reciprocal rank of the order it gets: 1, 0.5, 0.333…, strictly decreasing
    (docs/cli-contract.md §3.3).
    """
    return 1.0 / (position + 1)


def hits_data(answer: object) -> Data:
    """``memory.hits`` data; each hit's ``ranks`` becomes ``{"fts": 1, …}`` and its ``score``
    the reciprocal of its position (``order_score``)."""
    data = shaped(answer, HITS_KEYS)
    hits = _objects(data["hits"], HIT_KEYS)
    for position, (hit, source) in enumerate(zip(hits, getattr(answer, "hits", ()), strict=True)):
        hit["ranks"] = pairs_object(source.ranks)
        hit["score"] = order_score(position)
    data["hits"] = hits
    return data


def recall_data(answer: object) -> Data:
    """``recall.pack`` data: both folds in docs/cli-contract.md §3.3's shape."""
    data = shaped(answer, RECALL_KEYS)
    for fold in ("arcs", "memories"):
        value = data[fold]
        if not isinstance(value, Mapping):
            raise TypeError(f"{fold} is not a fold")
        data[fold] = ordered(value, FOLD_KEYS)
    return data


def detail_data(result: object) -> Data:
    """``memory.detail`` data; ``metas`` becomes one object of the present metas."""
    data = shaped(result, DETAIL_KEYS)
    data["metas"] = pairs_object(getattr(result, "metas", ()))
    return data


def neighbors_data(result: object) -> Data:
    """``memory.neighbors`` data: the walk's settings and its links in order."""
    data = shaped(result, NEIGHBORS_KEYS)
    data["links"] = _objects(data["links"], NEIGHBOR_KEYS)
    return data


def list_data(result: object) -> Data:
    """``memory.list`` data: one page and the next cursor."""
    data = shaped(result, LIST_KEYS)
    data["files"] = _objects(data["files"], LISTED_KEYS)
    return data
