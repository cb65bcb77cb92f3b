"""The retrieval pipeline's ``recall`` and ``reinforce`` end to end over a file-backed index."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Final

import pytest

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.state_sidecar import access_rows
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.retrieval import RECALL_CANDIDATES, RetrievalPipeline
from memhtml.domain.disclosure import ARC_BODY_BUDGET, DisclosedEntry, IndexLine
from memhtml.domain.errors import NotFound
from memhtml.domain.reinforce import AccessRow, ReinforceResult, Signal
from memhtml.ports.retrieval import RankingOptions, RecallRequest, SearchRequest
from tests.fakes.retrieval_rows import ChunkRow, MemoryRow, embedded, load_rows
from tests.support import sqlite_retrieval

EMBEDDER: Final = HashingEmbedder(dim=64)
START: Final = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)


@pytest.fixture
def db(tmp_path: Path) -> Database:
    """A file-backed index with its state plane."""
    return Database.open(tmp_path / "index.db", state_path=tmp_path / "state.db")


def _memory(path: str, text: str, **kwargs: object) -> MemoryRow:
    row = MemoryRow(
        path=path,
        title=text.title(),
        gist=text,
        body_text=text,
        disclosure_text=f"{text}.",
        chunks=(ChunkRow(text=text),),
        **kwargs,  # type: ignore[arg-type]
    )
    return embedded(row, EMBEDDER.embed_query)


def _retrieval(db: Database, clock: FixedClock | None = None) -> RetrievalPipeline:
    return sqlite_retrieval(db, clock=clock or FixedClock(START), embedder=EMBEDDER)


def test_recall_quotes_what_fits_and_lists_the_rest(db: Database) -> None:
    """A misfit becomes an index line and the fold goes on; arcs fold under their own budget."""
    load_rows(
        db,
        [
            _memory("areas/long.html", "cache " + "warming " * 10, updated_at="2026-09-03"),
            _memory("areas/short.html", "cache cold", updated_at="2026-09-02"),
            _memory("areas/arc.html", "cache arc", memory_type="arc", updated_at="2026-09-01"),
        ],
        model=EMBEDDER.watermark,
    )
    result = _retrieval(db).recall(
        RecallRequest(query="cache", budget_chars=20, options=RankingOptions(arms=("recency",)))
    )
    assert (
        DisclosedEntry(
            path="areas/short.html",
            title="Cache Cold",
            gist="cache cold",
            memory_type="semantic",
            body="cache cold.",
        ),
    ) == result.memories.disclosed
    assert ("areas/long.html",) == tuple(line.path for line in result.memories.index_lines)
    assert ("areas/arc.html",) == tuple(entry.path for entry in result.arcs.disclosed)
    assert (len("cache cold.") + len("cache arc."), True) == (
        result.spent_chars,
        result.truncated,
    )
    assert ARC_BODY_BUDGET > result.arcs.spent_chars


def test_recall_folds_the_top_thirty_candidates(db: Database) -> None:
    """Thirty-five memories in scope: thirty reach the fold, quoted or listed."""
    load_rows(db, [_memory(f"areas/{i:02d}.html", f"note {i}") for i in range(35)])
    result = _retrieval(db).recall(RecallRequest(query="note"))
    folded = len(result.memories.disclosed) + len(result.memories.index_lines)
    assert RECALL_CANDIDATES == folded


def test_recall_reports_degradation_and_coverage(db: Database) -> None:
    """Vectors in another space count as missing: coverage 0, the vector arm dropped."""
    load_rows(db, [_memory("areas/a.html", "cache")], model="other-space@64")
    result = _retrieval(db).recall(RecallRequest(query="cache"))
    assert (True, 0.0, ("fts", "context", "recency", "salience", "graph")) == (
        result.degraded,
        result.vector_coverage,
        result.arms,
    )


def test_recall_applies_the_polarity_step(db: Database) -> None:
    """Recall and search put the same twin first for a negated query."""
    vector = EMBEDDER.embed_query("merges intervals")
    load_rows(
        db,
        [
            MemoryRow(
                path="areas/a.html",
                gist="x merges intervals",
                disclosure_text="a",
                chunks=(ChunkRow(text="a", vector=vector),),
            ),
            MemoryRow(
                path="areas/b.html",
                gist="x never merges intervals",
                disclosure_text="b",
                chunks=(ChunkRow(text="b", vector=vector),),
            ),
        ],
        model=EMBEDDER.watermark,
    )
    options = RankingOptions(arms=("recency",))
    recalled = _retrieval(db).recall(RecallRequest(query="why not merge", options=options))
    searched = _retrieval(db).search(SearchRequest(query="why not merge", options=options))
    assert ["areas/b.html", "areas/a.html"] == [e.path for e in recalled.memories.disclosed]
    assert ["areas/b.html", "areas/a.html"] == [h.path for h in searched.hits]


def test_the_entity_cap_turns_a_third_quote_into_an_index_line(db: Database) -> None:
    """Two quotes per type:name reference; the third memory about it is listed."""
    about = frozenset({("service", "api")})
    load_rows(
        db,
        [
            _memory(f"areas/{i}.html", f"api note {i}", entities=about, updated_at=f"2026-09-0{i}")
            for i in range(1, 4)
        ],
    )
    result = _retrieval(db).recall(
        RecallRequest(query="api", options=RankingOptions(arms=("recency",)))
    )
    assert (
        IndexLine(
            path="areas/1.html", title="Api Note 1", gist="api note 1", memory_type="semantic"
        ),
    ) == result.memories.index_lines


def test_reinforce_refuses_an_unknown_path_and_bumps_nothing(db: Database) -> None:
    """One missing path fails the call before any row moves."""
    load_rows(db, [_memory("areas/a.html", "cache")])
    with pytest.raises(NotFound):
        _retrieval(db).reinforce(["areas/a.html", "areas/missing.html"], Signal.POSITIVE)
    assert () == access_rows(db)


def test_reinforce_stamps_the_clock_and_honours_the_cooldown(db: Database) -> None:
    """The bump carries the clock's instant; a second plain read cools down until 900 s passed."""
    load_rows(db, [_memory("areas/a.html", "cache")])
    clock = FixedClock(START)
    retrieval = _retrieval(db, clock)
    assert ReinforceResult(bumped=("areas/a.html",), cooled_down=()) == retrieval.reinforce(
        ["areas/a.html"], Signal.POSITIVE
    )
    clock.advance(899)
    assert ReinforceResult(bumped=(), cooled_down=("areas/a.html",)) == retrieval.reinforce(
        ["areas/a.html"], Signal.NEUTRAL
    )
    clock.advance(1)
    retrieval.reinforce(["areas/a.html"], Signal.NEGATIVE)
    expected = AccessRow(
        path="areas/a.html",
        access_count=2,
        reinforcement_count=2,
        outcome_score=1.0 + 0.3 * (-1.0 - 1.0),
        last_accessed_at="2026-10-01T00:15:00Z",
        last_reinforced_at="2026-10-01T00:15:00Z",
        updated_at="2026-10-01T00:15:00Z",
    )
    assert (expected,) == access_rows(db)


def test_a_reinforced_memory_rises_in_the_salience_arm(db: Database) -> None:
    """Salience reads the plane reinforce wrote: the bumped memory takes salience rank 1."""
    load_rows(db, [_memory("areas/a.html", "cache one"), _memory("areas/b.html", "cache two")])
    retrieval = _retrieval(db)
    retrieval.reinforce(["areas/b.html"], Signal.POSITIVE)
    hits = retrieval.search(SearchRequest(query="cache")).hits
    assert {"areas/a.html": 2, "areas/b.html": 1} == {
        h.path: dict(h.ranks)["salience"] for h in hits
    }
