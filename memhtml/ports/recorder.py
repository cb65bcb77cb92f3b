"""The write path's recorder: the dedup lookup and the session links beside the index.

A memory names the session that wrote it in its own head (``memhtml-session``), which survives
any rebuild; the recorder also files that link in the index, so "what did session S touch" and
"which sessions touched this file" are both one query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, Protocol

import attrs

LinkKind = Literal["wrote", "read", "corrected", "reinforced"]
LINK_KINDS: Final[tuple[LinkKind, ...]] = ("wrote", "read", "corrected", "reinforced")


def _known_kind(_: object, __: attrs.Attribute[str], value: str) -> None:
    if value not in LINK_KINDS:
        raise ValueError(f"link kind must be one of {', '.join(LINK_KINDS)}")


@attrs.frozen(kw_only=True)
class SessionLink:
    """One ``memory_session_links`` row: a session touched a memory.

    Attributes:
        path: The memory's repo path.
        session_id: The agent session's opaque id.
        kind: ``wrote``, ``read``, ``corrected`` or ``reinforced``.
        at: When, as a UTC stamp (``YYYY-MM-DDTHH:MM:SSZ``).
        prompt_id, turn_uuid: The prompt and turn inside the session, when known.
    """

    path: str
    session_id: str
    kind: LinkKind = attrs.field(validator=_known_kind)
    at: str
    prompt_id: str | None = None
    turn_uuid: str | None = None


class Recorder(Protocol):
    """Answers the write path's dedup question and files session links.

    Every storage error surfaces as ``StorageFailure`` naming the operation only.
    """

    def active_path_for_hash(self, content_hash: str) -> str | None:
        """The active non-task memory holding ``content_hash``, or ``None``.

        The same predicate as the index's partial unique index (not archived, type not
        ``task``), so the lookup and the constraint can never disagree (docs/decisions.md §14). At
        most one row can match; the answer is only as fresh as the index.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def record_session_links(self, links: Sequence[SessionLink]) -> None:
        """File each link; an exact repeat (same path, session, kind and instant) adds nothing.

        All links land in one transaction, or none do.

        Raises:
            StorageFailure: The index cannot be written.
        """
        ...

    def session_links(
        self, *, path: str | None = None, session_id: str | None = None
    ) -> tuple[SessionLink, ...]:
        """The links of one memory, of one session, or of both; every link when neither is given.

        Ordered by instant, then path, session, kind.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
