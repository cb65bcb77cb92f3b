"""The history store (transaction-time spans) and the ``known_seq`` scope mask over every
backend: spans laid down commit by commit answer each commit's tree, the instant rule, the
versions no row holds, and a mask that admits exactly the rows whose blob a commit held."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.domain.fts_query import LexicalQuery
from memhtml.domain.fusion import ArmNeed, active_arms
from memhtml.domain.history import (
    LineCommit,
    SpanStep,
    replay_spans,
    seq_known_at,
    span_step,
)
from memhtml.domain.scope import SearchScope
from memhtml.ports.history_store import HistoryMoved, HistoryState
from memhtml.ports.rank_store import FusionQuery
from memhtml.ports.storage import Storage
from tests.contract.storage.harness import BACKENDS, NOW, Memory, open_backend, write


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """One empty store per backend."""
    with open_backend(request.param) as opened:
        yield opened


def lay_down(storage: Storage, history: list[dict[str, str]], times: list[int]) -> None:
    """Extend the line commit by commit, as ``index update`` does, in two calls."""
    blobs: dict[str, str] = {}
    previous: dict[str, str] = {}
    commits: list[LineCommit] = []
    steps: list[SpanStep] = []
    for seq, (tree, at) in enumerate(zip(history, times, strict=True), start=1):
        changed = {p: tree.get(p) for p in set(previous) | set(tree)}
        step = span_step(blobs, seq, changed)
        for path in step.closed:
            del blobs[path]
        blobs.update((s.path, s.blob_sha) for s in step.opened)
        commits.append(LineCommit(seq=seq, sha=f"{seq:040x}", at=at))
        steps.append(step)
        previous = tree
    half = len(commits) // 2
    storage.history.extend_history(commits[:half], steps[:half])
    storage.history.extend_history(commits[half:], steps[half:])


trees = st.lists(
    st.dictionaries(st.sampled_from("abcd"), st.sampled_from(("b1", "b2", "b3")), max_size=4),
    min_size=1,
    max_size=6,
)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=trees, asked=st.lists(st.sampled_from("abcdz"), max_size=6))
def test_open_blobs_of_some_paths_are_those_paths_open_spans(
    backend: str, history: list[dict[str, str]], asked: list[str]
) -> None:
    """open_blobs(paths) is the full answer cut to the paths asked (absent or closed ones
    left out), duplicates in the question and all."""
    with open_backend(backend) as storage:
        lay_down(storage, history, list(range(len(history))))
        tip = history[-1]
        expected = {path: tip[path] for path in asked if path in tip}
        assert expected == dict(storage.history.open_blobs(asked))


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=trees,
    times=st.lists(st.integers(0, 40), min_size=6, max_size=6),
    at=st.integers(-1, 45),
)
def test_spans_answer_each_commits_tree_and_the_instant_rule(
    backend: str, history: list[dict[str, str]], times: list[int], at: int
) -> None:
    """spans_at(seq) is commit seq's tree, the open spans are the last tree, and
    commit_known_at follows the walk-back rule, backwards clocks included."""
    times = times[: len(history)]
    with open_backend(backend) as storage:
        lay_down(storage, history, times)
        history_store = storage.history
        got = [
            {s.path: s.blob_sha for s in history_store.spans_at(seq)}
            for seq in range(1, len(history) + 1)
        ]
        commits = [LineCommit(seq=i, sha=f"{i:040x}", at=t) for i, t in enumerate(times, 1)]
        state = history_store.history_state()
        assert history == got
        assert history[-1] == dict(history_store.open_blobs())
        assert seq_known_at(commits, at) == history_store.commit_known_at(at)
        assert (True, commits[-1], len(replay_spans(history))) == (
            state.built,
            state.tip,
            state.spans,
        )


def test_a_store_without_history_reads_as_not_built(storage: Storage) -> None:
    """Before any extend, and after a reset, the spans are not built; an empty extend builds
    an empty line (an unborn HEAD)."""
    fresh = storage.history.history_state()
    storage.history.extend_history((), ())
    empty = storage.history.history_state()
    lay_down(storage, [{"a": "b1"}], [5])
    storage.history.reset_history()
    assert (HistoryState(built=False), HistoryState(built=True)) == (fresh, empty)
    assert HistoryState(built=False) == storage.history.history_state()
    assert None is storage.history.commit_known_at(10)


def test_commit_numbers_must_follow_the_tip(storage: Storage) -> None:
    """A gap or a repeat in the numbering is a caller bug, refused before anything is written."""
    lay_down(storage, [{"a": "b1"}], [5])
    with pytest.raises(HistoryMoved):
        storage.history.extend_history(
            [LineCommit(seq=3, sha="c" * 40, at=6)], [SpanStep(closed=(), opened=())]
        )
    assert 1 == storage.history.history_state().commits


A_OLD = Memory(path="areas/inbox/a.html", claim="Alpha was one.")
A_NEW = Memory(path="areas/inbox/a.html", claim="Alpha is two.")
B = Memory(path="areas/inbox/b.html", claim="Beta stays.")
C = Memory(path="areas/inbox/c.html", claim="Gamma came later.")
D = Memory(path="areas/inbox/d.html", claim="Delta went away.")


def blob(memory: Memory) -> str:
    """The blob the memory's file has."""
    return memory.projection().row.blob_sha


@pytest.fixture
def indexed(storage: Storage) -> Storage:
    """Commit 1 holds a (old), b, d; commit 2 edits a, adds c, deletes d. The index holds
    commit 2's rows."""
    write(storage, [A_NEW, B, C])
    lay_down(
        storage,
        [
            {A_OLD.path: blob(A_OLD), B.path: blob(B), D.path: blob(D)},
            {A_NEW.path: blob(A_NEW), B.path: blob(B), C.path: blob(C)},
        ],
        [10, 20],
    )
    return storage


def test_unindexed_versions_are_the_ones_no_row_holds(indexed: Storage) -> None:
    """At commit 1 the old a and the deleted d have no row; at commit 2 nothing is missing."""
    at_one = [(s.path, s.blob_sha) for s in indexed.history.unindexed_at(1)]
    assert [(A_OLD.path, blob(A_OLD)), (D.path, blob(D))] == at_one
    assert () == indexed.history.unindexed_at(2)


def test_the_mask_admits_exactly_the_rows_a_commit_held(indexed: Storage) -> None:
    """Listing and ranking under known_seq see b alone at commit 1, every row at commit 2,
    nothing before the line began."""

    def listed(seq: int | None) -> list[str]:
        page = indexed.lister.list_page(SearchScope(known_seq=seq), para=None, after=None, limit=50)
        return [m.path for m in page.files]

    def ranked(seq: int) -> list[str]:
        arms = active_arms({ArmNeed.QUERY_TERMS}, selection=("fts", "recency"))
        query = FusionQuery(
            arms=arms,
            scope=SearchScope(known_seq=seq),
            lexical=LexicalQuery(terms=("alpha", "beta", "gamma")),
            now=NOW,
            limit=10,
        )
        return sorted(f.path for f in indexed.ranks.fused_ranks(query))

    assert [B.path] == listed(1) == ranked(1)
    assert [A_NEW.path, B.path, C.path] == listed(2) == listed(None) == ranked(2)
    assert [] == listed(0)
