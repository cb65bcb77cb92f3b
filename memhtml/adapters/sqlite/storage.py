"""The SQLite storage bundle: every storage port over one ``Database`` (index + state plane).

Each port's adapter is built on its first use (``on_first_use``): a command imports the
adapter modules of the ports it uses and no others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.on_first_use import on_first_use
from memhtml.ports.storage import Storage

if TYPE_CHECKING:
    from memhtml.adapters.sqlite.doctor_sql import SqliteHealthProbe
    from memhtml.ports.access_store import AccessStore
    from memhtml.ports.archive_lookup import ArchiveLookup
    from memhtml.ports.assist_lookup import AssistLookup
    from memhtml.ports.candidate_store import CandidateStore
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


def sqlite_storage(db: Database) -> Storage:
    """Every storage port over ``db``; closing the bundle closes ``db``."""
    health = on_first_use(lambda: _health(db))
    return Storage(
        ranks=on_first_use(lambda: _ranks(db)),
        candidates=on_first_use(lambda: _candidates(db)),
        archive=on_first_use(lambda: _archive(db)),
        access=on_first_use(lambda: _access(db)),
        index=on_first_use(lambda: _index(db)),
        vectors=on_first_use(lambda: _vectors(db)),
        assists=on_first_use(lambda: _assists(db)),
        recorder=on_first_use(lambda: _recorder(db)),
        lister=on_first_use(lambda: _lister(db)),
        census=on_first_use(lambda: _census(db)),
        health=health,
        pruner=health,
        state=on_first_use(lambda: _state(db)),
        rebuild_claim=on_first_use(lambda: _rebuild_claim(db)),
        traces=on_first_use(lambda: _traces(db)),
        has_state=db.has_state,
        close=db.close,
        links=on_first_use(lambda: _links(db)),
        history=on_first_use(lambda: _history(db)),
    )


def _ranks(db: Database) -> RankStore:
    from memhtml.adapters.sqlite.rank_store import SqliteRankStore

    return SqliteRankStore(db)


def _candidates(db: Database) -> CandidateStore:
    from memhtml.adapters.sqlite.candidate_store import SqliteCandidateStore

    return SqliteCandidateStore(db)


def _archive(db: Database) -> ArchiveLookup:
    from memhtml.adapters.sqlite.archive_lookup import SqliteArchiveLookup

    return SqliteArchiveLookup(db)


def _access(db: Database) -> AccessStore:
    from memhtml.adapters.sqlite.access_store import SqliteAccessStore

    return SqliteAccessStore(db)


def _index(db: Database) -> IndexStore:
    from memhtml.adapters.sqlite.index_store import SqliteIndexStore

    return SqliteIndexStore(db)


def _vectors(db: Database) -> VectorStore:
    from memhtml.adapters.sqlite.vector_store import SqliteVectorStore

    return SqliteVectorStore(db)


def _assists(db: Database) -> AssistLookup:
    from memhtml.adapters.sqlite.assist_lookup import SqliteAssistLookup

    return SqliteAssistLookup(db)


def _recorder(db: Database) -> Recorder:
    from memhtml.adapters.sqlite.recorder import SqliteRecorder

    return SqliteRecorder(db)


def _lister(db: Database) -> Lister:
    from memhtml.adapters.sqlite.listing_sql import SqliteLister

    return SqliteLister(db)


def _census(db: Database) -> IndexCensus:
    from memhtml.adapters.sqlite.index_status_sql import SqliteIndexCensus

    return SqliteIndexCensus(db)


def _health(db: Database) -> SqliteHealthProbe:
    from memhtml.adapters.sqlite.doctor_sql import SqliteHealthProbe

    return SqliteHealthProbe(db)


def _state(db: Database) -> StatePlane:
    from memhtml.adapters.sqlite.state_sidecar import SqliteStatePlane

    return SqliteStatePlane(db)


def _rebuild_claim(db: Database) -> RebuildClaim:
    from memhtml.adapters.sqlite.rebuild_claim import RebuildClaim as SqliteRebuildClaim

    return SqliteRebuildClaim(db.path)


def _traces(db: Database) -> TraceStore:
    from memhtml.adapters.sqlite.trace_store import SqliteTraceStore

    return SqliteTraceStore(db)


def _links(db: Database) -> LinkGraph:
    from memhtml.adapters.sqlite.link_graph import SqliteLinkGraph

    return SqliteLinkGraph(db)


def _history(db: Database) -> HistoryStore:
    from memhtml.adapters.sqlite.history_store import SqliteHistoryStore

    return SqliteHistoryStore(db)
