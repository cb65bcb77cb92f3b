"""The facade's writes: each one commit through the write path (``use_cases/``), with the
conflict and near-duplicate policies a caller chooses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memhtml.app.store.core import StoreCore
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

if TYPE_CHECKING:
    from memhtml.app.apply_ops import ApplyOp, SessionDefaults
    from memhtml.app.use_cases.apply import ApplyResult
    from memhtml.app.use_cases.archive import ArchiveResult
    from memhtml.app.use_cases.correct import CorrectRequest, CorrectResult
    from memhtml.app.use_cases.link import LinkResult
    from memhtml.app.use_cases.near_duplicates import NearPolicy
    from memhtml.app.use_cases.write import WriteResult
    from memhtml.domain.write_requests import WriteRequest


def near_policy(mode: str, floor: float | None, limit: int | None) -> NearPolicy:
    """The near-duplicate policy of a facade call; ``None`` floor or limit is the default."""
    from memhtml.app.use_cases.near_duplicates import NearPolicy
    from memhtml.domain.near_duplicates import DEFAULT_NEAR_FLOOR, DEFAULT_NEAR_LIMIT

    return NearPolicy(
        mode=mode,
        floor=DEFAULT_NEAR_FLOOR if floor is None else floor,
        limit=DEFAULT_NEAR_LIMIT if limit is None else limit,
    )


class StoreWrites(StoreCore):
    """Mutating methods of :class:`~memhtml.app.store.Store`."""

    def write(
        self,
        request: WriteRequest,
        *,
        embed: bool | None = None,
        on_conflict: str = "report",
        on_near_duplicate: str = "report",
        near_floor: float | None = None,
        near_limit: int | None = None,
    ) -> WriteResult:
        """Write one memory as one commit (or dedup onto the active memory holding it).

        ``embed`` False indexes it lexically and leaves its vector to a later pass (the next
        search embeds pending chunks, bounded, or ``index embed``); None is the store's setting.
        ``on_conflict`` is ``report``, ``fail`` or ``supersede`` (``use_cases/conflicts``);
        ``on_near_duplicate`` is ``report``, ``skip`` or ``fail``, with the cosine floor and the
        cap on listed matches (``None``: the defaults; ``use_cases/near_duplicates``).
        """
        from memhtml.app.use_cases.write import write_memory

        return write_memory(
            self.write_deps(embed=embed),
            request,
            on_conflict=on_conflict,
            near=near_policy(on_near_duplicate, near_floor, near_limit),
        )

    def correct(
        self,
        target: str,
        correction: CorrectRequest,
        *,
        embed: bool | None = None,
        on_conflict: str = "report",
        on_near_duplicate: str = "report",
        near_floor: float | None = None,
        near_limit: int | None = None,
    ) -> CorrectResult:
        """Replace a memory: archive it and write its successor, one commit (``embed``,
        ``on_conflict`` and the near-duplicate policy as in ``write``)."""
        from memhtml.app.use_cases.correct import correct_memory

        return correct_memory(
            self.write_deps(embed=embed),
            target,
            correction,
            on_conflict=on_conflict,
            near=near_policy(on_near_duplicate, near_floor, near_limit),
        )

    def archive(self, path: str, reason: str, *, embed: bool | None = None) -> ArchiveResult:
        """Move a memory under ``archive/<YYYY>/``, one commit (``embed`` as in ``write``)."""
        from memhtml.app.use_cases.archive import archive_memory

        return archive_memory(self.write_deps(embed=embed), path, reason)

    def link(self, src: str, rel: str, dst: str, *, embed: bool | None = None) -> LinkResult:
        """Add one edge of the closed vocabulary to ``src``'s head (``embed`` as in ``write``)."""
        from memhtml.app.use_cases.link import link_memories

        return link_memories(self.write_deps(embed=embed), src, rel, dst)

    def apply(
        self,
        ops: Sequence[ApplyOp] | Sequence[str],
        *,
        continue_on_error: bool = False,
        defaults: SessionDefaults | None = None,
        progress: ProgressSink = NO_PROGRESS,
        embed: bool | None = None,
        on_conflict: str = "report",
        on_near_duplicate: str = "report",
        near_floor: float | None = None,
        near_limit: int | None = None,
    ) -> ApplyResult:
        """Run a batch as one commit; ``ops`` are checked ops or raw JSONL lines.

        ``embed`` False leaves the batch's vectors to a later pass (the store's setting when
        None); ``on_conflict`` and the near-duplicate policy as in ``write``.
        """
        from memhtml.app.apply_ops import parse_apply_lines
        from memhtml.app.use_cases.apply import apply_batch

        checked = (
            parse_apply_lines([op for op in ops if isinstance(op, str)], defaults)
            if any(isinstance(op, str) for op in ops)
            else tuple(op for op in ops if not isinstance(op, str))
        )
        return apply_batch(
            self.write_deps(embed=embed),
            checked,
            continue_on_error=continue_on_error,
            defaults=defaults,
            progress=progress,
            on_conflict=on_conflict,
            near=near_policy(on_near_duplicate, near_floor, near_limit),
        )
