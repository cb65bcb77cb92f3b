"""The SQLite storage bundle: every storage port over one ``Database`` (index + state plane)."""

from __future__ import annotations

from memhtml.adapters.sqlite.access_store import SqliteAccessStore
from memhtml.adapters.sqlite.archive_lookup import SqliteArchiveLookup
from memhtml.adapters.sqlite.assist_lookup import SqliteAssistLookup
from memhtml.adapters.sqlite.candidate_store import SqliteCandidateStore
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.doctor_sql import SqliteHealthProbe
from memhtml.adapters.sqlite.history_store import SqliteHistoryStore
from memhtml.adapters.sqlite.index_status_sql import SqliteIndexCensus
from memhtml.adapters.sqlite.index_store import SqliteIndexStore
from memhtml.adapters.sqlite.link_graph import SqliteLinkGraph
from memhtml.adapters.sqlite.listing_sql import SqliteLister
from memhtml.adapters.sqlite.rank_store import SqliteRankStore
from memhtml.adapters.sqlite.rebuild_claim import RebuildClaim
from memhtml.adapters.sqlite.recorder import SqliteRecorder
from memhtml.adapters.sqlite.state_sidecar import SqliteStatePlane
from memhtml.adapters.sqlite.trace_store import SqliteTraceStore
from memhtml.adapters.sqlite.vector_store import SqliteVectorStore
from memhtml.ports.storage import Storage


def sqlite_storage(db: Database) -> Storage:
    """Every storage port over ``db``; closing the bundle closes ``db``."""
    health = SqliteHealthProbe(db)
    return Storage(
        ranks=SqliteRankStore(db),
        candidates=SqliteCandidateStore(db),
        archive=SqliteArchiveLookup(db),
        access=SqliteAccessStore(db),
        index=SqliteIndexStore(db),
        vectors=SqliteVectorStore(db),
        assists=SqliteAssistLookup(db),
        recorder=SqliteRecorder(db),
        lister=SqliteLister(db),
        census=SqliteIndexCensus(db),
        health=health,
        pruner=health,
        state=SqliteStatePlane(db),
        rebuild_claim=RebuildClaim(db.path),
        traces=SqliteTraceStore(db),
        has_state=db.has_state,
        close=db.close,
        links=SqliteLinkGraph(db),
        history=SqliteHistoryStore(db),
    )
