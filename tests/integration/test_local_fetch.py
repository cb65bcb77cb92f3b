"""The local fetch's object walk against dulwich's own missing-object search, on real stores."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dulwich.object_store import MemoryObjectStore, MissingObjectFinder, commit_tree_changes
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.git.local_fetch import ancestry, fetch_local, missing_objects

BRANCH = Ref(b"refs/heads/main")
FILE = 0o100644


def commit(
    store: MemoryObjectStore, parents: list[ObjectID], files: dict[str, bytes | None]
) -> ObjectID:
    """A commit on the first parent's tree (or the empty one) with ``files`` written or, for
    ``None``, removed."""
    base = Tree()
    if parents:
        first = store[parents[0]]
        assert isinstance(first, Commit)
        found = store[first.tree]
        assert isinstance(found, Tree)
        base = found
    else:
        store.add_object(base)
    held = {entry.path for entry in store.iter_tree_contents(base.id)} if parents else set()
    changes: list[tuple[bytes, int | None, ObjectID | None]] = []
    for path, data in files.items():
        if data is None:
            if path.encode() in held:
                changes.append((path.encode(), None, None))
            continue
        blob = Blob.from_string(data)
        store.add_object(blob)
        changes.append((path.encode(), FILE, blob.id))
    made = Commit()
    made.tree = commit_tree_changes(store, base, changes)
    made.parents = parents
    made.author = made.committer = b"T <t@example.org>"
    made.author_time = made.commit_time = 1_700_000_000 + len(store._data)
    made.author_timezone = made.commit_timezone = 0
    made.message = b"c"
    store.add_object(made)
    return made.id


def copied(source: MemoryObjectStore, shas: list[ObjectID]) -> MemoryObjectStore:
    """A store holding every object the commits ``shas`` reach in ``source``."""
    target = MemoryObjectStore()
    for sha, _ in MissingObjectFinder(source, haves=[], wants=shas):
        target.add_object(source[sha])
    return target


def dulwich_says(source: MemoryObjectStore, haves: list[ObjectID], want: ObjectID) -> set[ObjectID]:
    """What dulwich's own search would send for ``want`` to a holder of ``haves``."""
    return {sha for sha, _ in MissingObjectFinder(source, haves=haves, wants=[want])}


def test_a_commit_on_a_held_one_sends_only_what_it_changed() -> None:
    """Changed and added files, their folders and the commit: what dulwich would send too."""
    source = MemoryObjectStore()
    base = commit(source, [], {"a/x": b"x", "a/y": b"y", "b/z": b"z"})
    tip = commit(source, [base], {"a/x": b"x2", "c/w": b"w", "b/z": None})
    target = copied(source, [base])
    sent = missing_objects(source, target.__contains__, [tip])
    assert dulwich_says(source, [base], tip) == set(sent)


def test_an_empty_target_gets_every_object_of_the_history() -> None:
    """No common commit: every commit, tree and blob the tip reaches."""
    source = MemoryObjectStore()
    first = commit(source, [], {"a/x": b"x", "b/y": b"y"})
    second = commit(source, [first], {"a/x": b"x2", "a/deep/er": b"d"})
    third = commit(source, [second], {"a/deep/er": None, "b/y": b"x"})
    assert dulwich_says(source, [], third) == set(
        missing_objects(source, MemoryObjectStore().__contains__, [third])
    )


def test_a_merge_of_a_held_and_a_missing_line_sends_the_missing_line() -> None:
    """A merge whose one parent the target holds: the other line's objects and the merge's."""
    source = MemoryObjectStore()
    base = commit(source, [], {"a/x": b"x", "b/y": b"y"})
    ours = commit(source, [base], {"a/x": b"ours"})
    theirs = commit(source, [base], {"b/y": b"theirs", "c/z": b"z"})
    merged = commit(source, [ours, theirs], {"b/y": b"theirs", "c/z": b"z", "d/m": b"m"})
    target = copied(source, [ours])
    sent = missing_objects(source, target.__contains__, [merged])
    for sha in sent:
        target.add_object(source[sha])
    reachable = {sha for sha, _ in MissingObjectFinder(source, haves=[], wants=[merged])}
    assert (dulwich_says(source, [ours], merged), True) == (
        set(sent),
        all(sha in target for sha in reachable),
    )


def test_a_folder_back_at_an_earlier_state_still_sends_what_that_state_holds() -> None:
    """A folder that returns to a tree first seen in an older missing commit (a file added,
    then another added and archived away): the first file's blob is still sent."""
    source = MemoryObjectStore()
    base = commit(source, [], {"b/y": b"y"})
    added = commit(source, [base], {"a/x": b"x"})
    second = commit(source, [added], {"a/w": b"w"})
    back = commit(source, [second], {"a/w": None, "b/y": b"y2"})
    target = copied(source, [base])
    sent = missing_objects(source, target.__contains__, [back])
    assert dulwich_says(source, [base], back) == set(sent)


def test_a_held_tip_sends_nothing() -> None:
    """The wanted commit is already there: no object moves."""
    source = MemoryObjectStore()
    tip = commit(source, [], {"a/x": b"x"})
    assert [] == missing_objects(source, copied(source, [tip]).__contains__, [tip])


def test_a_push_sends_what_the_receiver_lacks_below_its_tips() -> None:
    """Held by ancestry: our merge over a line the receiver holds sends only our side."""
    source = MemoryObjectStore()
    base = commit(source, [], {"a/x": b"x", "b/y": b"y"})
    theirs = commit(source, [base], {"b/y": b"theirs"})
    ours = commit(source, [base], {"a/x": b"ours"})
    merged = commit(source, [ours, theirs], {"a/x": b"ours", "c/z": b"z"})
    held = ancestry(source, [theirs, ObjectID(b"0" * 40)])
    sent = missing_objects(source, held.__contains__, [merged])
    assert ({base, theirs}, dulwich_says(source, [theirs], merged)) == (held, set(sent))


def test_a_fetch_between_repositories_on_disk_lands_the_branch(tmp_path: Path) -> None:
    """The source's refs come back and the target can read every object of the tip."""
    with Repo.init_bare(str(tmp_path / "source"), mkdir=True) as source:
        store = MemoryObjectStore()
        base = commit(store, [], {"a/x": b"x", "b/y": b"y"})
        tip = commit(store, [base], {"a/x": b"x2"})
        for sha, _ in MissingObjectFinder(store, haves=[], wants=[tip]):
            source.object_store.add_object(store[sha])
        source.refs[BRANCH] = tip
    heard: list[bytes] = []
    with Repo.init_bare(str(tmp_path / "target"), mkdir=True) as target:

        def wants(refs: Mapping[Ref, ObjectID], depth: int | None = None) -> list[ObjectID]:
            return [refs[BRANCH]]

        refs = fetch_local(str(tmp_path / "source"), target, wants, heard.append)
        reachable = dulwich_says(store, [], tip)
        assert (tip, True, True) == (
            refs.get(BRANCH),
            all(sha in target.object_store for sha in reachable),
            bool(heard),
        )


def reachable(store: MemoryObjectStore, tips: list[ObjectID]) -> set[ObjectID]:
    """Every object the commits ``tips`` reach."""
    return {sha for sha, _ in MissingObjectFinder(store, haves=[], wants=tips)} if tips else set()


STEPS = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=30),
        st.dictionaries(
            st.sampled_from(["a/x", "a/w", "a/d/v", "b/y", "c"]),
            st.one_of(st.none(), st.sampled_from([b"1", b"2", b"3"])),
            max_size=3,
        ),
        st.booleans(),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=120, deadline=None)
@given(steps=STEPS, held_picks=st.lists(st.integers(min_value=0, max_value=30), max_size=3))
def test_every_object_a_random_history_reaches_is_sent_or_held(
    steps: list[tuple[int, dict[str, bytes | None], bool]], held_picks: list[int]
) -> None:
    """Random commits and merges, folders returning to earlier states, a receiver holding
    a random set of commits with their history: what it holds plus what is sent is exactly
    what the tip reaches."""
    source = MemoryObjectStore()
    commits = [commit(source, [], {"a/x": b"0", "b/y": b"0"})]
    for pick, files, merge in steps:
        first = commits[pick % len(commits)]
        present: dict[str, bytes | None] = {p: d for p, d in files.items() if d is not None}
        parents = [first, commits[-1]] if merge and commits[-1] != first else [first]
        commits.append(commit(source, parents, dict(present) if merge else files))
    tip = commits[-1]
    held_tips = [commits[i % len(commits)] for i in held_picks]
    held = ancestry(source, held_tips)
    sent = missing_objects(source, held.__contains__, [tip])
    wanted = reachable(source, [tip])
    assert (set(), set()) == (wanted - set(sent) - reachable(source, held_tips), set(sent) - wanted)
