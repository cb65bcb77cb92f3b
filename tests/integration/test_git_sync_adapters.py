"""The git pieces of a sync against a real bare repository on disk: fetch, push (and a stale
push refused), the branch moved with its working tree, merge commits, and the history questions
the merge asks. Every repository is built with dulwich."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.refs import Ref
from dulwich.repo import Repo

from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_history import DulwichHistory
from memhtml.adapters.git.dulwich_landing import DulwichLanding
from memhtml.adapters.git.dulwich_remote import DulwichRemote
from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
from memhtml.adapters.git.remote_config import redact
from memhtml.ports.git import blob_sha
from memhtml.ports.git_history import AheadBehind, MergeCommit, PathChange
from memhtml.ports.git_remote import PushRejected, RemoteMissing, RemoteUnreachable, SyncMark
from memhtml.ports.git_writer import ChangeSet, FileWrite, HeadMoved, TreeEdit


@pytest.fixture(autouse=True)
def no_machine_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the machine's git config out of every test."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def write(root: Path, files: dict[str, bytes]) -> str:
    """Commit files on top of HEAD."""
    changes = ChangeSet(writes=tuple(FileWrite(path=p, data=d) for p, d in files.items()))
    return DulwichGitWriter(root, env={}).commit(
        changes, "write", expected_head=DulwichGit(root).head()
    )


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """An empty bare repository."""
    path = tmp_path / "remote.git"
    path.mkdir()
    Repo.init_bare(str(path)).close()
    return path


def clone_dir(tmp_path: Path, name: str, remote: Path) -> Path:
    """An empty repository with ``origin`` pointing at ``remote``."""
    root = tmp_path / name
    DulwichGitWriter(root).init()
    assert DulwichRemote(root).set_remote("origin", f"file://{remote}")
    return root


def remote_head(remote: Path) -> str | None:
    with Repo(str(remote)) as repo:
        sha = repo.refs.as_dict().get(Ref(b"refs/heads/main"))
    return None if sha is None else sha.decode()


def test_a_push_then_a_fetch_and_advance_carry_files_to_another_clone(
    tmp_path: Path, remote: Path
) -> None:
    """What one clone pushes, another fetches; advancing its branch writes the files and
    leaves a clean status."""
    first, second = clone_dir(tmp_path, "a", remote), clone_dir(tmp_path, "b", remote)
    head = write(first, {"areas/x.html": b"one\n", "README.html": b"r\n"})
    DulwichRemote(first).push("origin", new=head, expected=None)
    fetched = DulwichRemote(second).fetch("origin")
    DulwichLanding(second, env={}).advance(expected_head=None, target=fetched or "")
    expected = (head, head, head, b"one\n", ())
    actual = (
        remote_head(remote),
        fetched,
        DulwichGit(second).head(),
        (second / "areas/x.html").read_bytes(),
        DulwichGit(second).status(),
    )
    assert expected == actual


def test_fetching_an_empty_remote_finds_no_branch(tmp_path: Path, remote: Path) -> None:
    """A remote without a main branch fetches as None and leaves no tracking ref."""
    root = clone_dir(tmp_path, "a", remote)
    assert (None, None) == (
        DulwichRemote(root).fetch("origin"),
        DulwichRemote(root).tracking("origin"),
    )


def test_a_push_built_on_a_stale_remote_head_is_refused_and_moves_nothing(
    tmp_path: Path, remote: Path
) -> None:
    """When the remote moved since the fetch, the push is refused as stale (a retry can
    merge) and the remote keeps the other clone's commit."""
    first, second = clone_dir(tmp_path, "a", remote), clone_dir(tmp_path, "b", remote)
    theirs = write(first, {"areas/x.html": b"one\n"})
    DulwichRemote(first).push("origin", new=theirs, expected=None)
    ours = write(second, {"areas/y.html": b"two\n"})
    with pytest.raises(PushRejected) as refused:
        DulwichRemote(second).push("origin", new=ours, expected=None)
    assert (True, theirs) == (refused.value.moved, remote_head(remote))


def test_an_unknown_remote_name_is_named_with_a_fix(tmp_path: Path, remote: Path) -> None:
    """Asking for a remote that is not configured says so and how to add one."""
    root = clone_dir(tmp_path, "a", remote)
    with pytest.raises(RemoteMissing) as missing:
        DulwichRemote(root).fetch("upstream")
    assert "upstream" == missing.value.name
    assert any("git remote add upstream" in s for s in missing.value.suggestions)


def test_an_unreachable_remote_never_shows_its_password(tmp_path: Path) -> None:
    """A URL with a password fails with the redacted URL only, in the message and the value."""
    root = tmp_path / "a"
    DulwichGitWriter(root).init()
    DulwichRemote(root).set_remote("origin", "http://alice:s3cret@127.0.0.1:9/none.git")
    with pytest.raises(RemoteUnreachable) as failed:
        DulwichRemote(root).fetch("origin")
    assert "s3cret" not in str(failed.value)
    assert "alice" not in str(failed.value)
    assert "http://***@127.0.0.1:9/none.git" == failed.value.url
    assert "http://***@127.0.0.1:9/none.git" == DulwichRemote(root).remote("origin").url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://tok@h/r.git", "https://***@h/r.git"),
        ("https://u:p@h/r.git?access_token=t", "https://***@h/r.git?***"),
        ("ssh://git@h/r.git", "ssh://git@h/r.git"),
        ("ssh://git:pw@h/r.git", "ssh://***@h/r.git"),
        ("git@h:r.git", "git@h:r.git"),
        ("/srv/r.git", "/srv/r.git"),
    ],
)
def test_redaction_hides_secrets_and_keeps_logins(url: str, expected: str) -> None:
    """Passwords, web user parts (tokens) and queries go; an ssh login and a path stay."""
    assert expected == redact(url)


def test_a_merge_commit_has_both_parents_and_the_edited_tree(tmp_path: Path, remote: Path) -> None:
    """Two clones diverge; a merge commit over both tips holds the first parent's tree with the
    edits, and the history sees the merge base, the counts and each side's changes."""
    first, second = clone_dir(tmp_path, "a", remote), clone_dir(tmp_path, "b", remote)
    base = write(first, {"areas/x.html": b"one\n"})
    DulwichRemote(first).push("origin", new=base, expected=None)
    DulwichLanding(second, env={}).advance(
        expected_head=None, target=DulwichRemote(second).fetch("origin") or ""
    )
    theirs = write(first, {"areas/y.html": b"theirs\n"})
    DulwichRemote(first).push("origin", new=theirs, expected=base)
    ours = write(second, {"areas/z.html": b"ours\n"})
    fetched = DulwichRemote(second).fetch("origin") or ""
    history = DulwichHistory(second)
    y_sha = blob_sha(b"theirs\n")  # fetched: the blob is here now
    landing = DulwichLanding(second, env={})
    merged = landing.merge_commit(
        parents=(ours, fetched),
        edits=(TreeEdit(path="areas/y.html", blob_sha=y_sha),),
        writes=(FileWrite(path="areas/w.html", data=b"new\n"),),
        message="sync: merge",
    )
    landing.advance(expected_head=ours, target=merged)
    touches = history.last_touches(fetched, [ours], ["areas/y.html", "areas/z.html"])
    expected = (
        (base,),
        AheadBehind(ahead=1, behind=1),
        ("areas/w.html", "areas/y.html"),
        {"areas/y.html": theirs},
        {"areas/x.html", "areas/y.html", "areas/z.html", "areas/w.html"},
    )
    actual = (
        history.merge_bases(ours, fetched),
        history.ahead_behind(ours, fetched),
        tuple(c.path for c in history.changes(ours, merged)),
        {p: s.commit for p, s in touches.items()},
        {str(p.relative_to(second)) for p in (second / "areas").iterdir()},
    )
    assert expected == actual
    assert AheadBehind(ahead=2, behind=0) == history.ahead_behind(merged, fetched)
    assert (
        PathChange(path="areas/z.html", old=None, new=history.changes(None, ours)[-1].new),
    ) == (history.changes(base, ours))


def test_advancing_keeps_a_file_edited_locally(tmp_path: Path, remote: Path) -> None:
    """A working file someone edited is left as it is when the branch moves past it."""
    first, second = clone_dir(tmp_path, "a", remote), clone_dir(tmp_path, "b", remote)
    base = write(first, {"areas/x.html": b"one\n"})
    DulwichRemote(first).push("origin", new=base, expected=None)
    DulwichLanding(second, env={}).advance(
        expected_head=None, target=DulwichRemote(second).fetch("origin") or ""
    )
    later = write(first, {"areas/x.html": b"two\n"})
    DulwichRemote(first).push("origin", new=later, expected=base)
    assert later == DulwichRemote(second).fetch("origin")
    (second / "areas/x.html").write_bytes(b"mine\n")
    DulwichLanding(second, env={}).advance(expected_head=base, target=later)
    assert (later, b"mine\n") == (DulwichGit(second).head(), (second / "areas/x.html").read_bytes())


def test_advancing_from_a_stale_head_is_refused(tmp_path: Path, remote: Path) -> None:
    """The branch moves only from the head the caller saw."""
    root = clone_dir(tmp_path, "a", remote)
    first = write(root, {"a.html": b"1\n"})
    second = write(root, {"a.html": b"2\n"})
    with pytest.raises(HeadMoved):
        DulwichLanding(root, env={}).advance(expected_head=first, target=first)
    assert second == DulwichGit(root).head()


def test_sync_marks_are_kept_per_remote_outside_the_history(tmp_path: Path, remote: Path) -> None:
    """A recorded sync reads back per remote and never shows in the status."""
    root = clone_dir(tmp_path, "a", remote)
    adapter = DulwichRemote(root)
    mark = SyncMark(remote="origin", at="2026-12-01T00:00:00Z", head=None, remote_head=None)
    adapter.record_sync(mark)
    adapter.record_sync(
        SyncMark(remote="other", at="2026-12-02T00:00:00Z", head=None, remote_head=None)
    )
    assert (mark, None, ()) == (
        adapter.last_sync("origin"),
        adapter.last_sync("nope"),
        DulwichGit(root).status(),
    )


def test_merge_commits_are_listed_oldest_first_with_parents_and_message(
    tmp_path: Path, remote: Path
) -> None:
    """Two merges on one line: both listed after their parents, each with its parents in order
    and its whole message; commits reachable from ``since`` and plain commits are left out."""
    root = clone_dir(tmp_path, "a", remote)
    base = write(root, {"areas/x.html": b"one\n"})
    side = write(root, {"areas/y.html": b"side\n"})
    landing = DulwichLanding(root, env={})
    first = landing.merge_commit(parents=(side, base), edits=(), writes=(), message="m1\n\nt: 1\n")
    landing.advance(expected_head=side, target=first)
    after = write(root, {"areas/z.html": b"after\n"})
    second = landing.merge_commit(parents=(after, side), edits=(), writes=(), message="m2\n")
    history = DulwichHistory(root)
    listed = history.merge_commits(second, [base])
    assert [
        MergeCommit(sha=first, parents=(side, base), message="m1\n\nt: 1\n"),
        MergeCommit(sha=second, parents=(after, side), message="m2\n"),
    ] == list(listed)
    assert () == history.merge_commits(second, [second])
    assert (listed[1],) == history.merge_commits(second, [after])
