"""The closed vocabularies of the memory format (docs/format.md §2, §3, §8, §9, §11).

Closed on purpose: a typo must be a violation, never a new category that ranks or links on
its own.
"""

from __future__ import annotations

from typing import Final

MEMORY_TYPES: Final[tuple[str, ...]] = (
    "episodic",
    "semantic",
    "procedural",
    "agent_insight",
    "user_preference",
    "error_pattern",
    "verdict",
    "precedent",
    "arc",
    "task",
)
ARC_TYPE: Final = "arc"
TASK_TYPE: Final = "task"
# `arc` is written by sleep only; every other type can be written by a caller.
WRITABLE_TYPES: Final[tuple[str, ...]] = tuple(t for t in MEMORY_TYPES if t != ARC_TYPE)

STATUSES: Final[tuple[str, ...]] = ("active", "archived")
TASK_STATUSES: Final[tuple[str, ...]] = ("todo", "doing", "blocked", "done")
DEFAULT_TASK_STATUS: Final = "todo"

PARA_BUCKETS: Final[tuple[str, ...]] = ("projects", "areas", "resources", "archive")
ARCHIVE_BUCKET: Final = "archive"

MEMORY_RELS: Final[tuple[str, ...]] = (
    "supersedes",
    "contradicts",
    "caused_by",
    "leads_to",
    "part_of",
    "relates_to",
    "example_of",
    "supports",
    "laterally_related",
    "fixes",
)
TASK_RELS: Final[tuple[str, ...]] = ("blocks", "subtask_of")
PERSON_RELS: Final[tuple[str, ...]] = ("about_person", "authored_by")
PROVENANCE_RELS: Final[tuple[str, ...]] = ("from_session",)

EDGE_CLASSES: Final[dict[str, tuple[str, ...]]] = {
    "memory": MEMORY_RELS,
    "task": TASK_RELS,
    "person": PERSON_RELS,
    "provenance": PROVENANCE_RELS,
}
ALL_RELS: Final[tuple[str, ...]] = MEMORY_RELS + TASK_RELS + PERSON_RELS + PROVENANCE_RELS
# Only these may be written through `write --link` or `link`; person and provenance edges are
# the system's own bookkeeping.
LINKABLE_RELS: Final[tuple[str, ...]] = MEMORY_RELS + TASK_RELS
LINK_REL_PREFIX: Final = "memhtml-"


def edge_class_of(rel: str) -> str | None:
    """Class of a relation (``memory``, ``task``, ``person``, ``provenance``), else None."""
    for edge_class, rels in EDGE_CLASSES.items():
        if rel in rels:
            return edge_class
    return None


def rel_to_token(rel: str) -> str:
    """The ``<link rel>`` token: ``laterally_related`` → ``memhtml-laterally-related``."""
    return LINK_REL_PREFIX + rel.replace("_", "-")


def token_to_rel(token: str) -> str | None:
    """The relation a ``<link rel>`` token names, or None when it is outside the vocabulary."""
    if not token.startswith(LINK_REL_PREFIX):
        return None
    rel = token[len(LINK_REL_PREFIX) :].replace("-", "_")
    # Strict: `memhtml-laterally_related` is not the token of any relation.
    return rel if rel in ALL_RELS and rel_to_token(rel) == token else None
