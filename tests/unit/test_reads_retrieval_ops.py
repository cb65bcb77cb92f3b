"""search, recall and reinforce over fakes: freshness first, hits never bump, unknown refuses."""

from __future__ import annotations

import attrs
import pytest

from memhtml.adapters.html import parse_memory
from memhtml.app.use_cases.read import ReadPorts
from memhtml.app.use_cases.retrieval_ops import recall_with, reinforce_with, search_with
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.errors import InvalidInput, NotFound
from memhtml.domain.reinforce import Signal
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.retrieval import RankingOptions, RecallRequest, SearchRequest
from tests.fakes.read_plane import FakeRetrieval
from tests.fakes.write_plane import FakeStore, fake_store

NOTE = WriteRequest(
    title="Ledger lock holds for 40 minutes",
    memory_type="semantic",
    claim="The nightly ledger lock is held for about 40 minutes.",
)


def _setup() -> tuple[FakeStore, ReadPorts, FakeRetrieval, str]:
    store = fake_store()
    path = write_memory(store.deps, NOTE).path
    retrieval = FakeRetrieval(store.index)
    ports = ReadPorts(
        git=store.git,
        indexer=store.index,
        retrieval=retrieval,
        recorder=store.index,
        clock=store.clock,
        parse=parse_memory,
        embed=False,
    )
    return store, ports, retrieval, path


def test_search_updates_the_index_first_and_bumps_nothing() -> None:
    """One freshness update precedes the search; the retrieval is never asked to reinforce."""
    store, ports, retrieval, _ = _setup()
    before = store.index.updates
    answer = search_with(ports, SearchRequest(query="ledger"))
    assert (before + 1, 1, []) == (
        store.index.updates,
        len(retrieval.searches),
        retrieval.reinforced,
    )
    assert answer.index_fresh is True


def test_recall_on_a_stale_index_answers_with_index_fresh_false() -> None:
    """A recall over an index that cannot update still answers, marked not fresh."""
    store, ports, retrieval, _ = _setup()
    store.index.stale = True
    answer = recall_with(ports, RecallRequest(query="ledger"))
    assert (False, 1) == (answer.index_fresh, len(retrieval.recalls))


def test_reinforce_with_an_unknown_path_bumps_nothing() -> None:
    """One unknown path among known ones refuses the whole call."""
    _, ports, retrieval, path = _setup()
    with pytest.raises(NotFound):
        reinforce_with(ports, [path, "areas/inbox/missing.html"], "positive")
    assert [] == retrieval.reinforced


def test_reinforce_strips_slashes_collapses_repeats_and_links_each_path() -> None:
    """``/p`` and ``p`` are one path; a session files one ``reinforced`` link for it."""
    store, ports, retrieval, path = _setup()
    answer = reinforce_with(ports, ["/" + path, path], Signal.POSITIVE, session_id="s-1")
    assert ((path,), "positive") == (answer.bumped, answer.signal)
    assert [((path,), Signal.POSITIVE)] == retrieval.reinforced
    reinforced = [(link.path, link.kind) for link in store.index.links if link.session_id == "s-1"]
    assert [(path, "reinforced")] == reinforced


@pytest.mark.parametrize("signal", ["up", "Positive", ""])
def test_reinforce_refuses_an_unknown_signal(signal: str) -> None:
    """Only positive, negative and neutral are signals."""
    _, ports, _, path = _setup()
    with pytest.raises(InvalidInput):
        reinforce_with(ports, [path], signal)


def test_reinforce_needs_a_path() -> None:
    """An empty path list is bad input, not a silent no-op."""
    _, ports, _, _ = _setup()
    with pytest.raises(InvalidInput):
        reinforce_with(ports, [])


def test_search_starts_the_query_vector_before_the_freshness_pass() -> None:
    """The query goes to the prefetch before the index update, once; recall does the same."""
    store, ports, _, _ = _setup()
    seen: list[tuple[str, int]] = []
    ports = attrs.evolve(ports, prefetch_query=lambda q: seen.append((q, store.index.updates)))
    before = store.index.updates
    search_with(ports, SearchRequest(query="ledger"))
    recall_with(ports, RecallRequest(query="lock"))
    assert [("ledger", before), ("lock", before + 1)] == seen


def test_no_prefetch_when_the_vector_arm_is_not_selected() -> None:
    _, ports, _, _ = _setup()
    seen: list[str] = []
    ports = attrs.evolve(ports, prefetch_query=seen.append)
    search_with(ports, SearchRequest(query="ledger", options=RankingOptions(arms=["fts"])))
    assert [] == seen
