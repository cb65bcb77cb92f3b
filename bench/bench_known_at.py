"""What ``--known-at`` costs (issue 15 item 5): a search at an instant against a plain search,
and ``index rebuild`` walking the history against one that does not.

A store of N memories is written as C commits made directly in git's object store (each adds
memories, edits some and deletes a few, one minute apart), checked out, and indexed without
vectors (``MEMHTML_EMBED=off``: the rebuild's model time would only shrink the ratio). Then, in
one interleaved loop:

1. warm search for a corpus word, plain and ``--known-at`` the middle commit's instant (the
   memories changed or deleted since are ranked from git, ``docs/ranking.md §12``);
2. ``index rebuild`` as shipped (projection plus the first-parent walk) and without the walk
   (the indexer's history store detached: what the rebuild cost before the feature).

Run: ``.venv/bin/python -m bench.bench_known_at [--memories 10000] [--commits 2000]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from bench.bench_search import vocabulary as search_vocabulary
from bench.machine import machine_line
from memhtml.adapters.html import render_memory
from memhtml.app.bootstrap import Services, Settings
from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.app.store import Store
from memhtml.domain.model import RenderInputs
from memhtml.ports.retrieval import SearchRequest

DIRECTORIES: Final = 40
VOCABULARY: Final = 1500
WORDS: Final = 14
START: Final = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)


def vocabulary(rng: random.Random) -> list[str]:
    """The search bench's pseudo-words, fewer of them."""
    return search_vocabulary(rng, VOCABULARY)


def memory(index: int, version: int, words: Sequence[str], rng: random.Random) -> bytes:
    """One rendered memory; unique per index and version."""
    text = " ".join(rng.choices(words, k=WORDS))
    stamp = (START + dt.timedelta(minutes=index)).strftime("%Y-%m-%dT%H:%M:%SZ")
    inputs = RenderInputs(
        title=f"Note {index} v{version}",
        memory_type="semantic",
        created_at=stamp,
        updated_at=stamp,
        claim=f"Note {index} version {version} says {text}.",
    )
    return render_memory(inputs).encode("utf-8")


def path_of(index: int) -> str:
    """Where memory ``index`` lives."""
    return f"areas/d{index % DIRECTORIES:02d}/m{index:06d}.html"


def write_history(root: Path, memories: int, commits: int, seed: int) -> tuple[int, int]:
    """C commits onto the store's HEAD; returns the first and last commit times."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    repo = Repo(str(root))
    store = repo.object_store
    head = repo.head()
    base_commit = repo[head]
    assert isinstance(base_commit, Commit)
    root_tree = repo[base_commit.tree]
    assert isinstance(root_tree, Tree)
    dirs: dict[str, dict[bytes, ObjectID]] = {}
    live: list[int] = []
    versions: dict[int, int] = {}
    per_commit = max(1, memories // commits)
    made = 0
    at = int(START.timestamp())
    first = at
    parent = head
    for step in range(commits):
        changed: dict[int, bytes | None] = {}
        for _ in range(per_commit if step < commits - 1 else memories - made):
            changed[made] = memory(made, 0, words, rng)
            versions[made] = 0
            live.append(made)
            made += 1
        for _ in range(2 if len(live) > 10 else 0):
            index = rng.choice(live)
            versions[index] += 1
            changed[index] = memory(index, versions[index], words, rng)
        if step % 3 == 2 and len(live) > 10:
            gone = live.pop(rng.randrange(len(live)))
            changed[gone] = None
        for index, data in changed.items():
            folder, file_name = path_of(index).rsplit("/", 1)
            entries = dirs.setdefault(folder, {})
            if data is None:
                entries.pop(file_name.encode(), None)
            else:
                blob = Blob.from_string(data)
                store.add_object(blob)
                entries[file_name.encode()] = blob.id
        areas = Tree()
        for folder, entries in sorted(dirs.items()):
            tree = Tree()
            for entry, sha in entries.items():
                tree.add(entry, 0o100644, sha)
            store.add_object(tree)
            areas.add(folder.split("/")[1].encode(), 0o040000, tree.id)
        store.add_object(areas)
        top = Tree()
        for item, mode, sha in root_tree.iteritems():
            if item != b"areas":
                top.add(item, mode, sha)
        top.add(b"areas", 0o040000, areas.id)
        store.add_object(top)
        commit = Commit()
        commit.tree, commit.parents = top.id, [parent]
        commit.author = commit.committer = b"bench <bench@localhost.invalid>"
        commit.commit_time = commit.author_time = at
        commit.commit_timezone = commit.author_timezone = 0
        commit.message = b"bench step"
        store.add_object(commit)
        parent = commit.id
        at += 60
    repo.refs[Ref(b"refs/heads/main")] = parent
    repo.get_worktree().reset_index(top.id)
    repo.close()
    return first, at - 60


def opened(root: Path) -> Store:
    """The store without an embedder (lexical arms only)."""
    settings = Settings(root=root, embed=EmbedSettings(backend="off"))
    return Store(Services(settings, embedder=None))


def main(argv: Sequence[str] | None = None) -> None:
    """Build, then time searches and rebuilds interleaved; print medians and ratios."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--rebuilds", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine_line())
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "store"
        started = time.perf_counter()
        with opened_new(root) as store:
            store.initialize(databases_created=True)
        first, last = write_history(root, args.memories, args.commits, seed=7)
        built = time.perf_counter() - started
        middle = dt.datetime.fromtimestamp((first + last) // 2, dt.UTC)
        instant = middle.strftime("%Y-%m-%dT%H:%M:%SZ")
        rng = random.Random(11)
        words = vocabulary(random.Random(7))
        queries = [rng.choice(words[:300]) for _ in range(args.runs)]
        with opened(root) as store:
            store.index_rebuild()
            plain: list[float] = []
            known: list[float] = []
            past = 0
            for query in queries:
                request = SearchRequest(query=query, limit=10)
                t0 = time.perf_counter()
                store.search(request)
                t1 = time.perf_counter()
                answer = store.search(request, known_at=instant)
                t2 = time.perf_counter()
                plain.append(t1 - t0)
                known.append(t2 - t1)
                past = max(past, sum(1 for h in answer.hits if h.ranks[:1] == (("past", 1),)))
            history = store.services.storage.history
            at_middle = history.commit_known_at(int(middle.timestamp()))
            unindexed = 0 if at_middle is None else len(history.unindexed_at(at_middle.seq))
            with_line: list[float] = []
            without_line: list[float] = []
            indexer = store.services.indexer
            kept = vars(indexer)["_history"]  # the bench detaches the walk on purpose
            for _ in range(args.rebuilds):
                t0 = time.perf_counter()
                store.index_rebuild()
                t1 = time.perf_counter()
                vars(indexer)["_history"] = None
                try:
                    store.index_rebuild()
                finally:
                    vars(indexer)["_history"] = kept
                t2 = time.perf_counter()
                with_line.append(t1 - t0)
                without_line.append(t2 - t1)
            state = history.history_state()
    ms = statistics.median
    print(
        f"{args.memories} memories, {args.commits} commits ({state.commits} on the line, "
        f"{state.spans} spans), built in {built:.1f} s; {unindexed} versions at the middle "
        f"instant have no row (changed or deleted since)"
    )
    print(
        f"search p50: plain {ms(plain) * 1000:.1f} ms, --known-at {ms(known) * 1000:.1f} ms, "
        f"ratio {ms(known) / ms(plain):.2f} ({args.runs} queries, interleaved)"
    )
    print(
        f"index rebuild p50: without the walk {ms(without_line):.2f} s, with it "
        f"{ms(with_line):.2f} s, ratio {ms(with_line) / ms(without_line):.2f} "
        f"({args.rebuilds} each, interleaved)"
    )


def opened_new(root: Path) -> Store:
    """A store object over a folder that ``initialize`` turns into a store."""
    root.mkdir(parents=True, exist_ok=True)
    return opened(root)


if __name__ == "__main__":
    main()
