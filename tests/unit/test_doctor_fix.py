"""doctor --fix over fakes: where a link goes, when orphan rows may be pruned, races."""

from __future__ import annotations

import attrs

from memhtml.adapters.html import drop_link, parse_memory, retarget_link
from memhtml.app.use_cases.doctor_fix import FixPorts, Repair, destination, repair_with
from memhtml.app.use_cases.link import link_memories
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.errors import StorageFailure
from memhtml.ports.git_writer import ChangeSet
from memhtml.ports.health import DanglingLink
from tests.fakes.git import FakeGit
from tests.fakes.read_plane import FakeProbe
from tests.fakes.write_plane import FakeStore, RacingWriter, fake_store

SOURCE = WriteRequest(title="Source note", memory_type="semantic", claim="The source holds.")
TARGET = WriteRequest(title="Target note", memory_type="semantic", claim="The target holds.")


@attrs.define
class FakePruner:
    """An orphan pruner that returns what it was given and counts its calls."""

    orphans: tuple[str, ...] = ()
    calls: int = 0

    def prune_orphan_access_rows(self) -> tuple[str, ...]:
        """The configured orphans, once; nothing after."""
        self.calls += 1
        pruned, self.orphans = self.orphans, ()
        return pruned


def _deleted_target(store: FakeStore) -> tuple[str, DanglingLink]:
    """Source linked to target, target deleted by hand: the source and its dangling link."""
    source = write_memory(store.deps, SOURCE).path
    target = write_memory(store.deps, TARGET).path
    link_memories(store.deps, source, "supports", target)
    store.git.commit(ChangeSet(deletes=(target,)), "hand delete", expected_head=store.git.head())
    return source, DanglingLink(src_path=source, rel="supports", dst_path=target, rewrite_to=None)


def _ports(store: FakeStore, probe: FakeProbe, pruner: FakePruner) -> FixPorts:
    return FixPorts(
        deps=store.deps, probe=probe, pruner=pruner, retarget=retarget_link, drop=drop_link
    )


def test_destination_is_the_archived_copy_unless_that_is_the_source_itself() -> None:
    """A copy becomes the new href; no copy, or a copy that is the source, means drop."""
    link = DanglingLink(src_path="a.html", rel="supports", dst_path="b.html", rewrite_to=None)
    assert None is destination(link)
    assert "archive/2026/b.html" == destination(
        attrs.evolve(link, rewrite_to="archive/2026/b.html")
    )
    assert None is destination(attrs.evolve(link, rewrite_to="a.html"))


def test_orphans_are_kept_when_the_index_update_after_the_commit_fails() -> None:
    """The commit lands, but a stale index would make new files look orphaned: no prune."""
    store = fake_store()
    source, link = _deleted_target(store)
    store.index.update_failures[store.index.updates + 2] = StorageFailure("update index")
    pruner = FakePruner(orphans=("gone.html",))
    repaired = repair_with(_ports(store, FakeProbe(dangling=(link,)), pruner))
    assert (1, 0, store.git.head()) == (repaired.dropped, pruner.calls, repaired.commit_sha)
    assert 0 == repaired.pruned_access_rows
    assert () == parse_memory(store.files()[source]).links


def test_orphans_are_pruned_when_the_index_is_current() -> None:
    """With nothing to commit the preflight update made the index current: rows are pruned."""
    store = fake_store()
    write_memory(store.deps, SOURCE)
    commits = len(store.commits)
    pruner = FakePruner(orphans=("a.html", "b.html"))
    repaired = repair_with(_ports(store, FakeProbe(), pruner))
    assert Repair(rewritten=0, dropped=0, pruned_access_rows=2, commit_sha=None) == repaired
    assert commits == len(store.commits)


def test_a_lost_race_replans_and_lands_one_repair_commit() -> None:
    """HeadMoved: the repair is planned again on the new HEAD and committed once."""
    git = FakeGit()
    racing = RacingWriter(git, races=0)
    store = fake_store(writer=racing, git=git)
    source, link = _deleted_target(store)
    racing.races = 1
    before = len(store.commits)
    repaired = repair_with(_ports(store, FakeProbe(dangling=(link,)), FakePruner()))
    messages = [message for _, message in store.commits[before:]]
    assert ["memhtml(link): repair 1 dangling links\n"] == messages
    assert (1, 1, ()) == (
        repaired.dropped,
        len(store.pauses),
        parse_memory(store.files()[source]).links,
    )
    assert racing.rival_paths[0] in store.files()
