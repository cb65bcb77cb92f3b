"""Following the first-parent line after an update (``app/indexing/history.follow_line``)."""

from __future__ import annotations

from memhtml.adapters.memory import MemoryTables, memory_storage
from memhtml.app.indexing.history import follow_line, rebuild_line
from memhtml.ports.git import LineStep
from memhtml.ports.git_writer import ChangeSet, FileWrite
from tests.fakes.git import FakeGit


class _CountingGit(FakeGit):
    """A fake repository that counts the line walks it is asked for."""

    walks = 0

    def first_parent_changes(self, stop: str | None) -> tuple[LineStep, ...] | None:
        self.walks += 1
        return super().first_parent_changes(stop)


def _write(git: FakeGit, path: str, data: bytes) -> str:
    change = ChangeSet(writes=(FileWrite(path=path, data=data),))
    return git.commit(change, "m", expected_head=git.head())


def test_a_tip_at_the_head_just_read_asks_git_nothing_and_a_new_commit_is_followed() -> None:
    """With the tip already at the HEAD the caller read, no line walk happens; after a
    commit the next call (given the new HEAD) walks it and opens its span."""
    git = _CountingGit()
    history = memory_storage(MemoryTables()).history
    first = _write(git, "areas/a.html", b"a")
    rebuild_line(git, history)
    walks = git.walks
    assert (0, walks) == (follow_line(git, history, first), git.walks)
    second = _write(git, "areas/a.html", b"a2")
    assert (1, walks + 1) == (follow_line(git, history, second), git.walks)
    state = history.history_state()
    assert (second, {"areas/a.html"}) == (
        None if state.tip is None else state.tip.sha,
        set(history.open_blobs(["areas/a.html", "areas/none.html"])),
    )
