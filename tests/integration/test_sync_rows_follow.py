"""Access rows follow a memory a sync merge moves (docs/sync.md §4): two real stores, each a
clone of one bare repository on disk, write a memory with one slug and reinforce their own;
the merge sets one aside, and on both machines (the one that merged and the one that
fast-forwards to its merge) each memory's row is at the path that memory now has."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memhtml.domain.reinforce import AccessRow
from memhtml.domain.sidecar import SIDECAR_PATH, parse_sidecar
from memhtml.domain.sync_values import CASE_RELOCATED
from tests.integration.test_sync_remote import (  # noqa: F401 (fixtures)
    no_machine_git,
    open_store,
    pair,
    remote,
    sync,
    tree,
    write,
)

TITLE = "Office hours"


def table(root: Path) -> dict[str, AccessRow]:
    """The machine's access table, by path."""
    with open_store(root) as store:
        exported = store.services.storage.state.export_access()
    return {row.path: row for row in parse_sidecar(exported).rows}


def committed_sidecar(root: Path) -> dict[str, AccessRow]:
    """HEAD's access sidecar, by path."""
    with open_store(root) as store:
        git = store.services.git
        head = git.head()
        assert head is not None
        entry = next(e for e in git.list_tree(head) if e.path == SIDECAR_PATH)
        text = git.read_blobs([entry.blob_sha])[entry.blob_sha].decode("utf-8")
    return {row.path: row for row in parse_sidecar(text).rows}


@pytest.mark.parametrize("merger_writes_last", [False, True])
def test_each_memorys_row_is_where_the_merge_put_it(
    pair: tuple[Path, Path],  # noqa: F811 (fixture)
    merger_writes_last: bool,
) -> None:
    """The first machine reinforces its memory positively, the second (which merges) its own
    negatively; whichever was written earlier is set aside, and afterwards both tables and the
    committed sidecar hold a positive row where the first machine's memory is and a negative
    row where the second's is, with nothing merged across the two."""
    first, second = pair
    order = (first, second) if merger_writes_last else (second, first)
    claims = {first: "Office hours are on Tuesdays.", second: "Office hours are on Thursdays."}
    paths = {}
    for root in order:
        paths[root] = write(root, TITLE, claims[root])
        time.sleep(1.1)  # commit times have seconds: the later writer is known
    assert paths[first] == paths[second]
    with open_store(first) as store:
        store.reinforce([paths[first]], "positive")
    with open_store(second) as store:
        store.reinforce([paths[second]], "negative")
    sync(first)
    merged = sync(second)
    sync(first)  # a fast-forward to the second machine's merge

    relocated = [case for case in merged.cases if case.kind == CASE_RELOCATED]
    assert 1 == len(relocated)
    files = tree(second)
    where = {
        root: next(p for p, body in files.items() if claims[root].encode() in body)
        for root in (first, second)
    }
    assert {where[first], where[second]} == {relocated[0].path, relocated[0].other_path}
    assert where[first if merger_writes_last else second] == relocated[0].other_path
    for rows in (table(first), table(second), committed_sidecar(second)):
        mine, theirs = rows[where[first]], rows[where[second]]
        assert (1, True) == (mine.reinforcement_count, mine.outcome_score > 0)
        assert (1, True) == (theirs.reinforcement_count, theirs.outcome_score < 0)
