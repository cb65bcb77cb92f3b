"""The dedup rule, decided purely: among the active non-task files sharing a content hash, the
smallest path holds it, whether the index was rebuilt or kept by updates, crashed ones included.

The model index below stands for storage: rows (path to content), the active-hash uniqueness
SQLite enforces, and the remembered duplicates. Its update carries out the claims in the order
``memhtml/app/indexing/update.py`` does, one durable write at a time, so a crash can stop it
after any of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.content_claims import (
    FirstHolders,
    ParsedFile,
    claim_hashes,
    duplicate_hashes,
    duplicates_to_revisit,
    hashes_to_check,
    holds_active_hash,
    remembered_after,
    split_duplicates,
)
from memhtml.domain.model import MemoryDoc

PATHS = (
    "areas/inbox/a.html",
    "areas/inbox/b.html",
    "projects/ws/c.html",
    "resources/t/d.html",
    "archive/2026/areas/inbox/a.html",
)
A, B, C, D, ARCHIVED = PATHS
HASHES = tuple(f"sha256:{digit * 64}" for digit in "123")
ONE, TWO, THREE = HASHES
Content = tuple[str, str]  # (content hash, memory type)
Tree = dict[str, Content]

contents = st.tuples(st.sampled_from(HASHES), st.sampled_from(["semantic", "semantic", "task"]))
trees = st.dictionaries(st.sampled_from(PATHS), contents)


def parsed(path: str, content: Content) -> ParsedFile:
    """A parsed file with the given content hash and type."""
    content_hash, memory_type = content
    doc = MemoryDoc(
        title="t",
        memory_type=memory_type,
        status="active",
        created_at="2026-01-01",
        updated_at="2026-01-01",
        content_hash=content_hash,
    )
    return ParsedFile(path=path, blob_sha=content_hash[-40:], doc=doc)


def files_of(tree: Mapping[str, Content]) -> list[ParsedFile]:
    """The tree's files in path order."""
    return [parsed(path, tree[path]) for path in sorted(tree)]


def takes_part(path: str, content: Content) -> bool:
    """Whether the file competes for its hash (active, not a task)."""
    return holds_active_hash(path, content[1])


class Crash(Exception):
    """The model process died before its next write."""


@attrs.define
class ModelIndex:
    """Rows, remembered duplicates, and a write budget that crashes the pass when spent."""

    rows: dict[str, Content] = attrs.Factory(dict)
    remembered: dict[str, str] = attrs.Factory(dict)
    budget: int | None = None

    def holders(self, hashes: Sequence[str]) -> dict[str, frozenset[str]]:
        """``IndexStore.active_hash_holders``."""
        found: dict[str, set[str]] = {}
        for path, content in self.rows.items():
            if content[0] in hashes and takes_part(path, content):
                found.setdefault(content[0], set()).add(path)
        return {key: frozenset(paths) for key, paths in found.items()}

    def spend(self) -> None:
        """One durable write; the process dies instead when the budget is spent."""
        if self.budget is not None:
            if self.budget == 0:
                raise Crash
            self.budget -= 1

    def remove(self, paths: Sequence[str]) -> None:
        """``remove_rows``: one write per path."""
        for path in paths:
            self.spend()
            self.rows.pop(path, None)

    def project(self, file: ParsedFile) -> None:
        """Write a file's row, refusing what the active-hash uniqueness refuses."""
        content = (file.doc.content_hash, file.doc.memory_type)
        if takes_part(file.path, content):
            others = self.holders([content[0]]).get(content[0], frozenset()) - {file.path}
            assert not others, f"{file.path} collides with {sorted(others)}"
        self.rows[file.path] = content

    def update(self, target: Mapping[str, Content], plan: frozenset[str]) -> None:
        """One update towards ``target`` over the planned paths, as the app orders it."""
        remembered = dict(self.remembered)
        held_before = self.holders(sorted(set(remembered.values())))
        removed = sorted(p for p in plan if p not in target)
        changed = sorted(p for p in plan if p in target and self.rows.get(p) != target[p])
        touched = {*removed, *changed}
        revisit = duplicates_to_revisit(remembered, held_before, touched)
        files = [parsed(p, target[p]) for p in sorted({*changed, *revisit}) if p in target]
        self.remove(removed)
        claims = claim_hashes(files, self.holders(hashes_to_check(files)))
        if claims.displaced:
            self.spend()
            self.remembered.update(claims.displaced)
            self.remove([path for path, _ in claims.displaced])
        for file in claims.ready:
            self.spend()
            self.project(file)
        self.remove([file.path for file in claims.duplicates])
        if claims.waiting:
            self.spend()
            for file in claims.waiting:
                self.rows[file.path] = ("parked:" + file.path, "semantic")
            for file in claims.waiting:
                self.project(file)
        decided = {*plan, *revisit}
        after = remembered_after(remembered, held_before, decided, duplicate_hashes(claims))
        self.spend()
        self.remembered = after


def rebuilt(tree: Mapping[str, Content]) -> ModelIndex:
    """What a rebuild leaves: the kept files' rows, every duplicate remembered."""
    kept, duplicates = split_duplicates(files_of(tree))
    return ModelIndex(
        rows={f.path: (f.doc.content_hash, f.doc.memory_type) for f in kept},
        remembered={f.path: f.doc.content_hash for f in duplicates},
    )


def differing(old: Mapping[str, Content], new: Mapping[str, Content]) -> frozenset[str]:
    """Paths whose content differs between two trees, or that only one holds."""
    return frozenset(p for p in {*old, *new} if old.get(p) != new.get(p))


@given(trees, st.lists(st.booleans(), min_size=len(PATHS), max_size=len(PATHS)))
def test_split_duplicates_keeps_the_smallest_path_whatever_the_order(
    tree: Tree, reversed_order: list[bool]
) -> None:
    """The rebuild's rule does not depend on the order it meets the files in."""
    files = files_of(tree)
    shuffled = sorted(files, key=lambda f: f.path, reverse=reversed_order[0])
    kept, duplicates = split_duplicates(shuffled)
    winners = {
        h: min(p for p, c in tree.items() if c[0] == h and takes_part(p, c))
        for h, _ in tree.values()
        if any(c[0] == h and takes_part(p, c) for p, c in tree.items())
    }
    expected = sorted(p for p, c in tree.items() if not takes_part(p, c) or winners[c[0]] == p)
    assert (expected, len(tree)) == (sorted(f.path for f in kept), len(kept) + len(duplicates))


@given(trees, st.lists(st.integers(min_value=1, max_value=len(PATHS)), max_size=len(PATHS)))
def test_first_holders_over_sorted_batches_agree_with_split_duplicates(
    tree: Tree, cuts: list[int]
) -> None:
    """A rebuild that writes each batch as it is parsed keeps and skips what a rebuild over
    the whole tree does, wherever the batches are cut."""
    files = sorted(files_of(tree), key=lambda f: f.path)
    holders = FirstHolders()
    kept: list[ParsedFile] = []
    duplicates: list[ParsedFile] = []
    start = 0
    for end in [*sorted({min(c, len(files)) for c in cuts}), len(files)]:
        batch_kept, batch_duplicates = holders.split(files[start:end])
        kept += batch_kept
        duplicates += batch_duplicates
        start = max(start, end)
    assert split_duplicates(files) == (kept, duplicates)


def test_first_holders_refuse_a_path_out_of_order() -> None:
    """Out of order, the first holder need not be the smallest path: refused, not guessed."""
    holders = FirstHolders()
    holders.split([parsed(B, (ONE, "semantic"))])
    with pytest.raises(ValueError, match="ascending"):
        holders.split([parsed(A, (ONE, "semantic"))])


@given(trees, st.sets(st.sampled_from(PATHS)), st.dictionaries(st.sampled_from(PATHS), contents))
@example({A: (ONE, "semantic"), B: (ONE, "semantic")}, {A}, {B: (TWO, "semantic")})
def test_claims_over_any_split_agree_with_split_duplicates(
    tree: Tree, in_pass: set[str], old_rows: dict[str, Content]
) -> None:
    """Whatever part of the tree a pass reads (the rest stored as its holders left it) and
    whatever its own rows held before, the update keeps what a rebuild keeps, and its writes
    in order never break the active-hash uniqueness."""
    outside = {p: c for p, c in tree.items() if p not in in_pass}
    index = rebuilt(outside)
    for path, content in sorted(old_rows.items()):
        free = not index.holders([content[0]]) or not takes_part(path, content)
        if path in in_pass and path in tree and free:
            index.rows[path] = content
    files = files_of({p: c for p, c in tree.items() if p in in_pass})
    claims = claim_hashes(files, index.holders(hashes_to_check(files)))
    index.remove([path for path, _ in claims.displaced])
    for file in claims.ready:
        index.project(file)
    index.remove([file.path for file in claims.duplicates])
    for file in claims.waiting:
        index.rows[file.path] = ("parked:" + file.path, "semantic")
    for file in claims.waiting:
        index.project(file)
    assert rebuilt(tree).rows == index.rows


steps = st.tuples(
    trees,
    st.frozensets(st.sampled_from(PATHS), max_size=2),  # re-read though unchanged
    st.one_of(st.none(), st.integers(0, 8)),  # writes that land before the crash
)


@given(trees, st.lists(steps, max_size=3))
@example(
    {B: (ONE, "semantic")},
    [
        ({A: (ONE, "semantic"), B: (ONE, "semantic")}, frozenset(), 2),
        ({B: (ONE, "semantic")}, frozenset(), None),
    ],
)
@example(
    {A: (ONE, "semantic"), B: (ONE, "semantic")},
    [({A: (ONE, "semantic"), B: (TWO, "semantic")}, frozenset(), 1)],
)
def test_updates_after_any_history_and_any_crash_agree_with_a_rebuild(
    first: Tree, history: list[tuple[Tree, frozenset[str], int | None]]
) -> None:
    """Each update, even one killed after any write and then replayed, leaves the rows and the
    remembered duplicates a rebuild of its tree leaves."""
    index, old = rebuilt(first), first
    for new, extra, crash_after in history:
        plan = differing(old, new) | extra
        index.budget = crash_after
        try:
            index.update(new, plan)
        except Crash:
            index.budget = None
            index.update(new, plan)
        expected = rebuilt(new)
        assert (expected.rows, expected.remembered) == (index.rows, index.remembered)
        old = new


def test_an_unrelated_change_revisits_no_duplicate() -> None:
    """A duplicate whose holder the pass does not touch stays unread."""
    remembered = {B: ONE}
    assert () == duplicates_to_revisit(remembered, {ONE: frozenset({A})}, {C})


def test_a_duplicate_whose_hash_nobody_holds_is_revisited() -> None:
    """A pass that died after freeing the hash left the duplicate to the next one."""
    assert (B,) == duplicates_to_revisit({B: ONE}, {}, {C})


def test_a_smaller_copy_displaces_the_stored_holder() -> None:
    """The stored row outside the pass gives way, and its file is remembered as the duplicate."""
    files = [parsed(A, (ONE, "semantic"))]
    claims = claim_hashes(files, {ONE: frozenset({B})})
    assert ((A,), ((B, ONE),), {B: ONE}) == (
        tuple(f.path for f in claims.ready),
        claims.displaced,
        duplicate_hashes(claims),
    )


def test_a_winner_whose_hash_a_row_of_the_pass_holds_waits() -> None:
    """Two files that swap contents wait for each other's row to be parked."""
    files = [parsed(A, (TWO, "semantic")), parsed(B, (ONE, "semantic"))]
    claims = claim_hashes(files, {ONE: frozenset({A}), TWO: frozenset({B})})
    assert ((), (A, B), ()) == (
        tuple(f.path for f in claims.ready),
        tuple(f.path for f in claims.waiting),
        claims.duplicates,
    )


def test_remembered_after_forgets_what_the_pass_decided_and_paths_holding_their_hash() -> None:
    """Re-read paths are what the pass says; a remembered path that holds its hash is none."""
    after = remembered_after({B: ONE, C: TWO, D: THREE}, {TWO: frozenset({C})}, {B}, {A: THREE})
    assert {D: THREE, A: THREE} == after
