"""The in-memory fake answers as a real repository does, over random histories.

Unit tests of the app will trust ``FakeGit``; this is what earns that trust: hypothesis drives
the same random commits and hand edits into both, and every read must agree (commit shas
aside, which the fake invents).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import attrs
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.ports.git import PathRefused
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite, HeadMoved
from tests.contract.test_git_port import DulwichHarness, FakeHarness, GitHarness
from tests.fakes.git import FakeGit

PATHS = (
    "areas/a.html",
    "areas/b.html",
    "projects/p/c.html",
    "archive/2026/areas/a.html",
    "resources/r/d.html",
)
LONG = b"".join(b"<p>line %d of a longer memory</p>\n" % n for n in range(10))
CONTENTS = (LONG, LONG.replace(b"line 4", b"LINE 4"), b"<p>one</p>\n", b"<p>two</p>\n")


@attrs.frozen(kw_only=True)
class Commit:
    """Land a (possibly refused) change set on HEAD."""

    changes: ChangeSet


@attrs.frozen(kw_only=True)
class HandWrite:
    """Edit or create a working file without committing."""

    path: str
    data: bytes


@attrs.frozen(kw_only=True)
class HandRemove:
    """Delete a working file without committing (when it exists)."""

    path: str


paths = st.sampled_from(PATHS)
contents = st.sampled_from(CONTENTS)
change_sets = st.builds(
    ChangeSet,
    writes=st.lists(st.builds(FileWrite, path=paths, data=contents), max_size=4).map(tuple),
    deletes=st.lists(paths, max_size=2).map(tuple),
    moves=st.lists(st.builds(FileMove, source=paths, target=paths), max_size=2).map(tuple),
)
steps = st.one_of(
    st.builds(Commit, changes=change_sets),
    st.builds(HandWrite, path=paths, data=contents),
    st.builds(HandRemove, path=paths),
)


def _outcome(harness: GitHarness, step: Commit | HandWrite | HandRemove) -> object:
    """Apply one step; report what a caller could observe of its result."""
    if isinstance(step, HandWrite):
        harness.write_file(step.path, step.data)
        return None
    if isinstance(step, HandRemove):
        try:
            harness.git.read_working_file(step.path)
        except Exception:
            return "absent"
        harness.remove_file(step.path)
        return None
    before = harness.git.head()
    try:
        after = harness.writer.commit(step.changes, "step", expected_head=before)
    except PathRefused as refused:
        return ("refused", refused.reason)
    except HeadMoved:
        return "head moved"
    return harness.git.diff(before, after)


def _view(harness: GitHarness) -> object:
    head = harness.git.head()
    tree = () if head is None else harness.git.list_tree("HEAD")
    return (head is None, tree, harness.git.status())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, min_size=1, max_size=10))
@example(
    [
        Commit(changes=ChangeSet(writes=(FileWrite(path="areas/a.html", data=LONG),))),
        Commit(
            changes=ChangeSet(
                moves=(FileMove(source="areas/a.html", target="archive/2026/areas/a.html"),),
                writes=(FileWrite(path="archive/2026/areas/a.html", data=CONTENTS[1]),),
            )
        ),
    ]
)
@example(
    [
        Commit(
            changes=ChangeSet(
                writes=(
                    FileWrite(path="areas/a.html", data=LONG),
                    FileWrite(path="areas/b.html", data=CONTENTS[1]),
                )
            )
        ),
        Commit(
            changes=ChangeSet(
                writes=(
                    FileWrite(path="areas/a.html", data=CONTENTS[2]),
                    FileWrite(path="projects/p/c.html", data=LONG),
                ),
                deletes=("areas/b.html",),
            )
        ),
    ]
)
def test_fake_and_dulwich_agree(history: list[Commit | HandWrite | HandRemove]) -> None:
    """After every step both report the same outcome, tree and status."""
    with tempfile.TemporaryDirectory() as directory:
        real = DulwichHarness(Path(directory) / "repo")
        real.writer.init()
        fake = FakeHarness(FakeGit())
        for step in history:
            assert _outcome(real, step) == _outcome(fake, step)
            assert _view(real) == _view(fake)
