"""The closed ``memhtml-*`` meta vocabulary, in its emission order (docs/format.md §2).

One table drives the reader (which names exist, which repeat, which are required), the writer
(the order metas are emitted in) and the surgical head edits (where a new meta is inserted), so
the three cannot drift apart.
"""

from __future__ import annotations

from typing import Final

META_PREFIX: Final = "memhtml-"

TYPE: Final = "memhtml-type"
STATUS: Final = "memhtml-status"
CREATED: Final = "memhtml-created"
UPDATED: Final = "memhtml-updated"
CONFIDENCE: Final = "memhtml-confidence"
IMPORTANCE: Final = "memhtml-importance"
CONTENT_HASH: Final = "memhtml-content-hash"
AUTHOR: Final = "memhtml-author"
SESSION: Final = "memhtml-session"
PROMPT: Final = "memhtml-prompt"
TURN: Final = "memhtml-turn"
VALID_FROM: Final = "memhtml-valid-from"
VALID_UNTIL: Final = "memhtml-valid-until"
REPRIEVES: Final = "memhtml-reprieves"
ARCHIVED: Final = "memhtml-archived"
SUPERSEDED_BY: Final = "memhtml-superseded-by"
NEEDS_REVISION: Final = "memhtml-needs-revision"
TASK_STATUS: Final = "memhtml-task-status"
DUE: Final = "memhtml-due"
PINNED: Final = "memhtml-pinned"
ENTITY: Final = "memhtml-entity"
TAG: Final = "memhtml-tag"
ALIAS: Final = "memhtml-alias"

# New names are only ever appended to their block: scalars first, then repeatables.
SCALAR_METAS: Final[tuple[str, ...]] = (
    TYPE,
    STATUS,
    CREATED,
    UPDATED,
    CONFIDENCE,
    IMPORTANCE,
    CONTENT_HASH,
    AUTHOR,
    SESSION,
    PROMPT,
    TURN,
    VALID_FROM,
    VALID_UNTIL,
    REPRIEVES,
    ARCHIVED,
    SUPERSEDED_BY,
    NEEDS_REVISION,
    TASK_STATUS,
    DUE,
    PINNED,
)
REPEATABLE_METAS: Final[tuple[str, ...]] = (ENTITY, TAG, ALIAS)
META_ORDER: Final[tuple[str, ...]] = SCALAR_METAS + REPEATABLE_METAS
META_RANK: Final[dict[str, int]] = {name: rank for rank, name in enumerate(META_ORDER)}
REQUIRED_METAS: Final[tuple[str, ...]] = (TYPE, STATUS, CREATED, UPDATED)
