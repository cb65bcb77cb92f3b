"""The storage bundle: every storage port of one open store, as one value the composition root
hands out.

A backend implements each port and one opener returning this bundle; the composition root
names the opener in its backend table. Nothing else in the application knows which backend
answers.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Final, Protocol

import attrs

if TYPE_CHECKING:
    # Annotations only: importing every port (and the domain rules each names) here made every
    # command pay for the ports it never uses.
    from memhtml.ports.access_store import AccessStore
    from memhtml.ports.archive_lookup import ArchiveLookup
    from memhtml.ports.assist_lookup import AssistLookup
    from memhtml.ports.candidate_store import CandidateStore
    from memhtml.ports.git_writer import RecoveryFinding
    from memhtml.ports.health import HealthProbe, OrphanPruner
    from memhtml.ports.history_store import HistoryStore
    from memhtml.ports.index_census import IndexCensus
    from memhtml.ports.index_store import IndexStore
    from memhtml.ports.link_graph import LinkGraph
    from memhtml.ports.lister import Lister
    from memhtml.ports.rank_store import RankStore
    from memhtml.ports.rebuild_claim import RebuildClaim
    from memhtml.ports.recorder import Recorder
    from memhtml.ports.state_plane import StatePlane
    from memhtml.ports.trace_store import TraceStore
    from memhtml.ports.vector_store import VectorStore


@attrs.frozen(kw_only=True)
class Storage:
    """The storage ports of one open store.

    Attributes:
        ranks, candidates, archive, access: What retrieval asks.
        index, vectors: What indexing persists.
        recorder: The write path's dedup lookup and session links.
        assists: The write-time assists' lookups (frame claims, near neighbours).
        lister, census, health, pruner, state: ``list``, ``index status``, ``doctor`` (and its
            one repair), and the state sidecar.
        rebuild_claim: Tells a rebuild that died from one running in another process.
        traces: The trace plane (scanned agent transcripts).
        links: The stored edges around memories (``neighbors``, ``read``'s inbound links).
        history: Transaction-time spans of the first-parent line (``--known-at``).
        has_state: Whether the state plane (access rows) is present.
        close: Releases whatever the backend holds open; the bundle is unusable afterwards.
    """

    ranks: RankStore
    candidates: CandidateStore
    archive: ArchiveLookup
    access: AccessStore
    index: IndexStore
    vectors: VectorStore
    recorder: Recorder
    assists: AssistLookup
    lister: Lister
    census: IndexCensus
    health: HealthProbe
    pruner: OrphanPruner
    state: StatePlane
    rebuild_claim: RebuildClaim
    traces: TraceStore
    has_state: bool
    close: Callable[[], None]
    links: LinkGraph
    history: HistoryStore


@attrs.frozen(kw_only=True)
class StorageLocation:
    """Where a store keeps its rebuildable index and its state plane, and the index's settings.

    Attributes:
        index_path: The index (``.memhtml/index.db`` for SQLite).
        state_path: The state plane (``.memhtml/state.db``); a backend without files ignores
            both paths.
        fts_tokenizer: The full-text tokenizer the index is built with.
    """

    index_path: str
    state_path: str
    fts_tokenizer: str = "unicode61"


FOUND_INDEX_CORRUPT: Final = "index-corrupt"
"""The index could not be read; it is a cache, rebuilt from git."""
FOUND_STATE_CORRUPT: Final = "state-corrupt"
"""The state plane could not be read; it is restored from the committed sidecar."""
FOUND_CHECK_INCOMPLETE: Final = "integrity-check-incomplete"
"""The integrity check ran out of its time budget; nothing is known to be wrong."""


def _nothing() -> None:
    return None


@attrs.frozen(kw_only=True)
class OpenedStorage:
    """Storage as opened, and what opening it found (issue 14).

    Attributes:
        storage: The ports.
        findings: Damaged files moved aside (``repaired``) or only seen.
        state_aside: Where a damaged state plane went, when the new one must be restored from
            the committed sidecar; ``None`` otherwise.
        state_new: The state plane did not exist before this open (a plain ``git clone``'s,
            or one deleted), or an earlier open that created it did not finish filling it:
            fill it from the committed sidecar, so the counts the store committed are not
            lost to the next export.
        restored: Called once that restore or fill is done, so a killed one runs again next
            time.
    """

    storage: Storage
    findings: tuple[RecoveryFinding, ...] = ()
    state_aside: str | None = None
    state_new: bool = False
    restored: Callable[[], None] = _nothing


class StorageOpener(Protocol):
    """Opens (creating and migrating when needed) a backend's storage for one store.

    A file the backend finds damaged is moved aside and a new one begun (``heal``), or only
    reported (plain ``doctor``); ``verify`` checks every page, which opening alone does not.
    ``exclusive`` is held while a file is moved, so two processes never move each other's.

    Raises:
        StorageFailure: The storage cannot be opened for a reason that is not damage.
    """

    def __call__(
        self,
        location: StorageLocation,
        *,
        heal: bool = True,
        verify: bool = False,
        exclusive: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> OpenedStorage:
        """The opened bundle and what opening found."""
        ...
