"""Three machines, one bare remote, a random workload (issue 19's test): each machine writes,
corrects, archives, links and reinforces, and syncs at random moments. After a final round of
syncs every machine holds the same tree, every fact written anywhere is in it exactly once
(a same-memory conflict keeps both versions, each once), git's fsck is clean, each index
equals a fresh rebuild, and every access row survived."""

from __future__ import annotations

import os
import random
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Final

import pytest
from dulwich.refs import Ref
from dulwich.repo import Repo

import memhtml
from memhtml.app.store import Store, clone_store_at, init_store_at
from memhtml.app.use_cases.correct import CorrectRequest
from memhtml.domain.errors import Conflict, InvalidInput, InvalidMemory, NotFound
from memhtml.domain.sidecar import parse_sidecar
from memhtml.domain.write_requests import WriteRequest
from tests.faults.harness import canonical_index, fresh_rebuild

ENV: Final = {"MEMHTML_EMBED": "off"}
OPERATIONS: Final = 240
# Seed 7 once ended with one memory archived twice: a merge moved an archive copy onto an archive
# path that held another file in the merge base, and the rules saw no new copy there.
SEEDS: Final = (7, 19)
FACT: Final = re.compile(rb"Fact [a-z0-9-]+ number \d+")


@pytest.fixture(autouse=True)
def no_machine_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def active(store: Store) -> list[str]:
    """The machine's active memory files (HEAD)."""
    git = store.services.git
    head = git.head()
    assert head is not None
    return sorted(
        e.path
        for e in git.list_tree(head)
        if e.path.endswith(".html")
        and e.path.split("/")[0] in {"areas", "projects", "resources"}
        and e.path.rsplit("/", 1)[-1] not in {"index.html"}
    )


def memory_files(store: Store) -> dict[str, bytes]:
    git = store.services.git
    head = git.head()
    assert head is not None
    entries = [
        e
        for e in git.list_tree(head)
        if e.path.endswith(".html")
        and e.path.split("/")[0] in {"areas", "projects", "resources", "archive"}
    ]
    blobs = git.read_blobs([e.blob_sha for e in entries])
    return {e.path: blobs[e.blob_sha] for e in entries}


def facts_of(store: Store, path: str) -> set[bytes]:
    """The workload's facts the memory at ``path`` states."""
    return set(FACT.findall(store.services.git.read_working_file(path)))


@pytest.mark.parametrize("seed", SEEDS)
def test_three_machines_syncing_at_random_lose_nothing(tmp_path: Path, seed: int) -> None:
    """A few hundred random operations over three clones, then a final sync of each."""
    remote = tmp_path / "remote.git"
    remote.mkdir()
    with Repo.init_bare(str(remote)) as bare:
        bare.refs.set_symbolic_ref(Ref(b"HEAD"), Ref(b"refs/heads/main"))
    roots = [tmp_path / name for name in ("m0", "m1", "m2")]
    init_store_at(roots[0], environ=ENV)
    with memhtml.open(roots[0], environ=ENV, embedder=False) as first:
        first.set_remote(str(remote))
        first.sync()
    for root in roots[1:]:
        clone_store_at(str(remote), root, environ=ENV, embedder=False)
    stores = [memhtml.open(root, environ=ENV, embedder=False) for root in roots]
    rng = random.Random(seed)
    facts: list[bytes] = []
    reinforced: set[bytes] = set()  # the facts of the memories reinforced
    moved_on: set[bytes] = set()  # the facts of memories archived or corrected
    cases: list[tuple[str, str, str | None]] = []
    try:
        for step in range(OPERATIONS):
            who = rng.randrange(3)
            store = stores[who]
            paths = active(store)
            roll = rng.random()
            fact = f"Fact m{who}-{step} number {step}"
            try:
                if roll < 0.12:
                    cases += [(c.kind, c.path, c.other_path) for c in store.sync().cases]
                elif roll < 0.55 or len(paths) < 3:
                    title = rng.choice(["Deploy window", "On-call rota", f"Note {step}"])
                    store.write(WriteRequest(title=title, memory_type="semantic", claim=fact + "."))
                    facts.append(fact.encode())
                elif roll < 0.68:
                    request = CorrectRequest(title=f"Corrected {step}", claim=fact + ".")
                    moved_on.update(facts_of(store, target := rng.choice(paths)))
                    store.correct(target, request)
                    facts.append(fact.encode())
                elif roll < 0.78:
                    moved_on.update(facts_of(store, target := rng.choice(paths)))
                    store.archive(target, "random workload")
                elif roll < 0.90:
                    a, b = rng.sample(paths, 2)
                    store.link(a, rng.choice(["relates_to", "supports"]), b)
                else:
                    target = rng.choice(paths)
                    store.reinforce([target], rng.choice(["positive", "negative", "neutral"]))
                    reinforced.update(facts_of(store, target))
            except (NotFound, InvalidInput, InvalidMemory, Conflict):
                pass  # a target another machine's merge just moved, or a duplicate title
        for _ in range(2):  # twice: the last machine's merge reaches the first two
            for store in stores:
                cases += [(c.kind, c.path, c.other_path) for c in store.sync().cases]
        heads = {store.services.git.head() for store in stores}
        trees = [memory_files(store) for store in stores]
        sidecars = [store.services.storage.state.export_access() for store in stores]
    finally:
        for store in stores:
            store.close()
    assert 1 == len(heads)
    assert trees[0] == trees[1] == trees[2]
    found = Counter(match for body in trees[0].values() for match in set(FACT.findall(body)))
    assert [] == [fact for fact in facts if found[fact] == 0]  # none lost
    duplicated = {fact: n for fact, n in found.items() if n > 1}
    holders = {
        fact: sorted(p for p, body in trees[0].items() if fact in body) for fact in duplicated
    }
    assert {} == duplicated, (holders, cases)
    assert sidecars[0] == sidecars[1] == sidecars[2]
    rows = {row.path for row in parse_sidecar(sidecars[0]).rows}
    # Each reinforced memory's row is where the memory is now, wherever a merge moved it. One
    # archived or corrected is left out: its row follows the archive on the machine that ran it
    # only (docs/sync.md §7).
    located = {fact: path for path, body in trees[0].items() for fact in FACT.findall(body)}
    assert set() == {fact for fact in reinforced - moved_on if located[fact] not in rows}
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
    for where in (*roots, remote):
        fsck = subprocess.run(
            ["git", "-C", str(where), "fsck", "--no-progress", "--no-dangling"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert (0, "") == (fsck.returncode, fsck.stdout + fsck.stderr)
    for root in roots:
        assert canonical_index(root / ".memhtml" / "index.db") == fresh_rebuild(root)
