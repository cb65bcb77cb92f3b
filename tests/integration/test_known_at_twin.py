"""``--known-at`` against brute force: a generated history committed with chosen commit times,
indexed incrementally (and rebuilt), must answer search, recall and list at every commit's
instant with exactly the memories that commit's tree held, found by their text of then.

The twin is the tree itself: the files each commit held, parsed and tokenized the way the index
tokenizes them. Both storage backends run, and must agree hit for hit.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from dulwich.objects import Commit
from dulwich.refs import Ref
from dulwich.repo import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.html import parse_memory
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.bootstrap import Services, Settings
from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.app.store import Store
from memhtml.app.use_cases.doctor import NO_HISTORY_WARNING
from memhtml.app.use_cases.listing import ListRequest
from memhtml.domain.fulltext import fts_tokens
from memhtml.domain.projection import project_file
from memhtml.ports.errors import IndexStale
from memhtml.ports.git import blob_sha
from memhtml.ports.retrieval import RecallRequest, SearchRequest
from tests.contract.storage.harness import Memory

START = dt.datetime(2026, 9, 14, 7, 0, 0, tzinfo=dt.UTC)
PATHS = tuple(f"areas/inbox/m{i}.html" for i in range(4))
WORDS = ("ledger", "zebra", "pool", "export")
Tree = dict[str, bytes]
Op = tuple[str, str, tuple[str, ...]]


def stamp(seconds: int) -> str:
    """A Unix instant as the stamp a caller passes."""
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def memory_bytes(path: str, words: tuple[str, ...], version: int) -> bytes:
    """A memory at ``path`` whose claim holds ``words``; unique per path and version, so no
    two files share content (the index would keep one of two duplicates)."""
    name = path.rsplit("/", 1)[-1].removesuffix(".html")
    claim = f"Note {name} version {version} mentions {' and '.join(words)}."
    return Memory(path=path, claim=claim, title=f"{name} v{version}").data()


op = st.one_of(
    st.tuples(
        st.just("put"),
        st.sampled_from(PATHS),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=2, unique=True).map(tuple),
    ),
    st.tuples(st.just("delete"), st.sampled_from(PATHS), st.just(())),
    st.tuples(st.just("move"), st.sampled_from(PATHS), st.sampled_from(PATHS).map(lambda p: (p,))),
)
histories = st.lists(st.lists(op, min_size=1, max_size=3), min_size=2, max_size=5)


def apply_ops(tree: Tree, ops: list[Op], version: int) -> Tree:
    """The tree after one commit's operations."""
    after = dict(tree)
    for kind, path, arg in ops:
        if kind == "put":
            after[path] = memory_bytes(path, arg, version)
        elif kind == "delete":
            after.pop(path, None)
        elif path in after and arg[0] not in after:
            after[arg[0]] = after.pop(path)
    return after


def commit_tree(root: Path, before: Tree, after: Tree, at: int) -> None:
    """Make the working tree hold ``after`` and commit it at ``at`` (Unix seconds)."""
    repo = Repo(str(root))
    try:
        worktree = repo.get_worktree()
        for path in set(before) - set(after):
            (root / path).unlink()
        for path, data in after.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        worktree.stage(sorted(set(before) | set(after)))
        who = b"twin <twin@localhost.invalid>"
        worktree.commit(
            message=b"step",
            committer=who,
            author=who,
            commit_timestamp=at,
            commit_timezone=0,
            author_timestamp=at,
            author_timezone=0,
        )
    finally:
        repo.close()


@contextmanager
def opened(root: Path, backend: str) -> Iterator[Store]:
    """A store over ``root`` with the given storage backend and the hashing embedder."""
    settings_ = Settings(root=root, embed=EmbedSettings(), storage=backend)
    clock = FixedClock(START + dt.timedelta(days=30))
    with Store(Services(settings_, clock=clock, embedder=HashingEmbedder())) as store:
        yield store


def holders(tree: Tree, word: str) -> dict[str, str]:
    """The brute-force twin: path → title of every memory of ``tree`` whose text holds
    ``word``, tokenized as the index tokenizes (porter, the default)."""
    found: dict[str, str] = {}
    for path, data in tree.items():
        projection = project_file(
            path=path, blob_sha=blob_sha(data), doc=parse_memory(data), indexed_at=stamp(0)
        )
        if word in fts_tokens(projection.row.fts_text, "porter"):
            found[path] = projection.row.title
    return found


def evidence(ranks: tuple[tuple[str, int], ...]) -> bool:
    """Whether the lexical arms (today's fts or the past versions') ranked a hit."""
    return any(name in {"fts", "past"} for name, _ in ranks)


def answers(store: Store, at: str) -> tuple[object, ...]:
    """Everything the store says at ``at``: list, then per word the lexical hits (path,
    title) and the recalled paths."""
    listed = store.list(ListRequest(known_at=at, limit=500))
    said: list[object] = [tuple(m.path for m in listed.files)]
    for word in WORDS:
        hits = store.search(SearchRequest(query=word, limit=50), known_at=at).hits
        said.append({h.path: h.title for h in hits if evidence(h.ranks)})
        pack = store.recall(RecallRequest(query=word), known_at=at)
        said.append(sorted(e.path for e in pack.memories.disclosed))
    return tuple(said)


def expected(tree: Tree) -> tuple[object, ...]:
    """What :func:`answers` must say of a commit holding ``tree``."""
    said: list[object] = [tuple(sorted(tree))]
    for word in WORDS:
        found = holders(tree, word)
        said.append(found)
        said.append(None)  # recall: checked as a subset below
    return tuple(said)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=histories)
def test_known_at_answers_what_each_commit_held(
    tmp_path_factory: pytest.TempPathFactory, history: list[list[Op]]
) -> None:
    """At each commit's instant, list holds exactly its tree and search finds by text exactly
    the memories its tree's versions mention (deleted, moved and edited ones included); recall
    quotes only memories of that tree; the SQLite and in-memory backends say the same; a
    rebuild from history answers as the incremental updates did."""
    roots = {b: tmp_path_factory.mktemp(b) for b in ("sqlite", "memory")}
    trees: list[Tree] = []
    times: list[int] = []
    for backend, root in roots.items():
        with opened(root, backend) as store:
            store.initialize(databases_created=True)
    base = int((START + dt.timedelta(days=1)).timestamp())
    tree: Tree = {}
    for index, ops in enumerate(history, start=1):
        after = apply_ops(tree, ops, index)
        at = base + 100 * index
        for backend, root in roots.items():
            commit_tree(root, tree, after, at)
            with opened(root, backend) as store:
                store.index_update()
        trees.append(after)
        times.append(at)
        tree = after
    said: dict[str, list[tuple[object, ...]]] = {}
    for backend, root in roots.items():
        with opened(root, backend) as store:
            said[backend] = [answers(store, stamp(at)) for at in times]
            before = answers(store, stamp(base))
            store.index_rebuild()
            assert said[backend] == [answers(store, stamp(at)) for at in times]
        assert ((), *([{}, []] * len(WORDS))) == before
    assert said["sqlite"] == said["memory"]
    for tree_at, answer in zip(trees, said["sqlite"], strict=True):
        want = expected(tree_at)
        assert want[0] == answer[0]
        for w in range(len(WORDS)):
            assert want[1 + 2 * w] == answer[1 + 2 * w]
            recalled = answer[2 + 2 * w]
            assert isinstance(recalled, list)
            assert set(recalled) <= set(tree_at)


def test_an_index_without_history_refuses_known_at(tmp_path: Path) -> None:
    """A store whose spans are gone (as in one indexed before the feature) refuses --known-at
    with IndexStale instead of answering from today's rows; a rebuild brings it back."""
    with opened(tmp_path, "sqlite") as store:
        store.initialize(databases_created=True)
        store.index_update()
        store.services.storage.history.reset_history()
        missing = store.index_status()
        warned = store.doctor().warnings
        with pytest.raises(IndexStale):
            store.search("ledger", known_at=stamp(int(START.timestamp())))
        with pytest.raises(IndexStale):
            store.list(ListRequest(known_at=stamp(int(START.timestamp()))))
        store.index_rebuild()
        rebuilt = store.index_status()
        assert () == store.search("ledger", known_at=stamp(int(START.timestamp()))).hits
        assert () == store.search("ledger", known_at="2026-09-14T09:00:00+02:00").hits
    assert (False, 0) == (missing.history_built, missing.history_commits)
    assert [NO_HISTORY_WARNING] == [w for w in warned if "history" in w]
    assert (True, 1) == (rebuilt.history_built, rebuilt.history_commits)


def test_a_rewritten_line_drops_the_spans_until_a_rebuild(tmp_path: Path) -> None:
    """When HEAD moves to a line that does not hold the recorded tip, the update drops the
    spans (their numbering is of another line) and --known-at refuses; a rebuild walks the new
    line and answers from it."""
    at = int((START + dt.timedelta(days=1)).timestamp())
    a = "areas/inbox/m0.html"
    with opened(tmp_path, "sqlite") as store:
        store.initialize(databases_created=True)
    commit_tree(tmp_path, {}, {a: memory_bytes(a, ("ledger",), 1)}, at)
    with opened(tmp_path, "sqlite") as store:
        store.index_update()
        assert (True, 2) == (
            store.index_status().history_built,
            store.index_status().history_commits,
        )
    repo = Repo(str(tmp_path))
    try:
        orphan = repo[repo.head()]
        assert isinstance(orphan, Commit)
        orphan.parents = []
        orphan.message = b"rewritten"
        repo.object_store.add_object(orphan)
        repo.refs[Ref(b"HEAD")] = orphan.id
    finally:
        repo.close()
    with opened(tmp_path, "sqlite") as store:
        store.index_update()
        assert not store.index_status().history_built
        with pytest.raises(IndexStale):
            store.search("ledger", known_at=stamp(at))
        store.index_rebuild()
        hits = store.search("ledger", known_at=stamp(at)).hits
    assert [a] == [h.path for h in hits if evidence(h.ranks)]
