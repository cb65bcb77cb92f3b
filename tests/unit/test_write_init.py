"""``init`` over fakes: convergent scaffolding, one commit at most, nothing overwritten."""

from __future__ import annotations

from memhtml.app.use_cases.init import GITIGNORE, InitResult, init_store, scaffold_files
from memhtml.ports.git_writer import ChangeSet, FileWrite
from tests.fakes.git import FakeGit
from tests.fakes.write_plane import RacingWriter, RecordingWriter


class Steps:
    """Counts the configure and database callables and answers what they are told to."""

    def __init__(self, *, databases_created: bool = True) -> None:
        self.configured = 0
        self.databases = 0
        self.databases_created = databases_created

    def configure(self) -> bool:
        self.configured += 1
        return True

    def create_databases(self) -> bool:
        self.databases += 1
        return self.databases_created


def _init(git: FakeGit, steps: Steps, writer: RecordingWriter | None = None) -> InitResult:
    return init_store(
        root="/store",
        git=git,
        writer=writer if writer is not None else RecordingWriter(git),
        configure_repo=steps.configure,
        create_databases=steps.create_databases,
        pause=lambda _: None,
    )


def _files(git: FakeGit) -> dict[str, bytes]:
    head = git.head()
    assert head is not None
    entries = git.list_tree(head)
    blobs = git.read_blobs([e.blob_sha for e in entries])
    return {e.path: blobs[e.blob_sha] for e in entries}


def test_first_run_scaffolds_everything_in_one_commit() -> None:
    """Repository, every scaffold file, config and databases; one init commit."""
    git, steps = FakeGit(initialized=False), Steps()
    writer = RecordingWriter(git)
    result = _init(git, steps, writer)
    assert (
        InitResult(
            root="/store", created=True, head_sha=git.head(), wrote=tuple(sorted(scaffold_files()))
        )
        == result
    )
    assert scaffold_files() == _files(git)
    assert ["memhtml(init): scaffold the memory repository\n"] == [m for _, m in writer.landed]
    assert (1, 1) == (steps.configured, steps.databases)


def test_the_scaffold_names_every_folder_and_ignores_the_databases() -> None:
    """The .gitkeep folders of docs/cli-contract.md §3.2 and the four ignore lines are all there."""
    keeps = sorted(p.removesuffix("/.gitkeep") for p in scaffold_files() if p.endswith(".gitkeep"))
    assert [
        ".memhtml/sleep",
        ".memhtml/state",
        "archive",
        "areas",
        "areas/arcs",
        "areas/inbox",
        "projects",
        "resources",
        "resources/people",
    ] == keeps
    assert [
        ".memhtml/index.db",
        ".memhtml/index.db-*",
        ".memhtml/state.db",
        ".memhtml/state.db-*",
    ] == GITIGNORE.splitlines()


def test_a_second_run_changes_nothing() -> None:
    """Re-run: created false, no commit, same HEAD."""
    git = FakeGit(initialized=False)
    first = _init(git, Steps())
    writer = RecordingWriter(git)
    again = _init(git, Steps(databases_created=False), writer)
    assert (False, first.head_sha, ()) == (again.created, again.head_sha, again.wrote)
    assert [] == writer.landed


def test_a_missing_piece_is_restored_and_edits_are_kept() -> None:
    """A deleted .gitkeep comes back; an edited README and an untracked .gitignore stay."""
    git = FakeGit(initialized=False)
    _init(git, Steps())
    files = _files(git)
    edited = b"<!doctype html><title>mine</title>"
    changes = ChangeSet(
        writes=(FileWrite(path="README.html", data=edited),),
        deletes=("areas/arcs/.gitkeep", ".gitignore"),
    )
    git.commit(changes, "edit", expected_head=git.head())
    git.write_file(".gitignore", b"mine\n")
    result = _init(git, Steps(databases_created=False))
    del files[".gitignore"]
    assert (True, ("areas/arcs/.gitkeep",)) == (result.created, result.wrote)
    assert ({**files, "README.html": edited}, b"mine\n") == (
        _files(git),
        git.read_working_file(".gitignore"),
    )


def test_a_lost_race_is_retried() -> None:
    """Another writer landing first makes init re-plan on the new HEAD."""
    git = FakeGit(initialized=False)
    racer = RacingWriter(git, races=1)
    result = _init(git, Steps(), RecordingWriter(racer))
    assert {*scaffold_files(), *racer.rival_paths} == set(_files(git))
    assert tuple(sorted(scaffold_files())) == result.wrote
