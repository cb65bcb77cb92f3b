"""``--known-at T`` on search, recall and list: what the store knew at T (transaction time,
docs/index-schema.md §7, docs/ranking.md §12).

The index brought up to date, the instant is resolved to the newest commit of the indexed
first-parent line not after it; today's rows are masked to the blobs that commit held
(``SearchScope.known_seq``, every arm exact for them), and the versions of then that no row
holds any more are read from git, projected, and ranked by full text alone (``past``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput, InvalidMemory
from memhtml.domain.history import LineCommit
from memhtml.domain.instants import instant_ms
from memhtml.domain.projection import FileProjection, project_file
from memhtml.ports.errors import IndexStale
from memhtml.ports.git import GitPort
from memhtml.ports.history_store import HistoryStore
from memhtml.ports.memory_parser import MemoryParser

NO_HISTORY_REASON: Final = (
    "it holds no transaction-time history (indexed before --known-at existed, or its "
    "history was rewritten), so --known-at cannot answer"
)
_PROJECTED_AT: Final = "1970-01-01T00:00:00Z"


@attrs.frozen(kw_only=True)
class KnownAtView:
    """What the store knew at an instant.

    Attributes:
        at: The instant asked about (a normalised UTC stamp).
        commit: The commit whose tree answers; ``None`` when the store knew nothing then.
        past: The versions of then that no indexed row holds, projected (path order); a file
            that does not parse is left out, as the indexer would have.
    """

    at: str
    commit: LineCommit | None
    past: tuple[FileProjection, ...]

    @property
    def seq(self) -> int:
        """The mask's commit number; 0 (no commit) admits nothing."""
        return 0 if self.commit is None else self.commit.seq


def known_at_view(
    history: HistoryStore | None, git: GitPort, parse: MemoryParser, known_at: str
) -> KnownAtView:
    """Resolve ``known_at`` against the spans (call after the index update).

    Raises:
        InvalidInput: ``known_at`` is not a readable instant.
        IndexStale: The index holds no history (``index rebuild`` builds it).
    """
    ms = instant_ms(known_at)
    if ms is None:
        raise InvalidInput("--known-at must be an ISO date or date-time")
    if history is None or not history.history_state().built:
        raise IndexStale(NO_HISTORY_REASON)
    commit = history.commit_known_at(ms // 1000)
    if commit is None:
        return KnownAtView(at=known_at, commit=None, past=())
    spans = history.unindexed_at(commit.seq)
    blobs = git.read_blobs(sorted({span.blob_sha for span in spans})) if spans else {}
    past: list[FileProjection] = []
    for span in spans:
        try:
            doc = parse(blobs[span.blob_sha])
        except InvalidMemory:
            continue
        past.append(
            project_file(path=span.path, blob_sha=span.blob_sha, doc=doc, indexed_at=_PROJECTED_AT)
        )
    return KnownAtView(at=known_at, commit=commit, past=tuple(past))


def past_reason(view: KnownAtView, matched: Sequence[str]) -> str | None:
    """Why a ``--known-at`` result is degraded, or ``None`` when no past version took part."""
    if not matched:
        return None
    return (
        f"{len(matched)} memories the store knew at {view.at} have changed, moved or gone "
        "since; their versions of then are ranked by full text alone (arm past)"
    )
