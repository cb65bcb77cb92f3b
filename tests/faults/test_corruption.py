"""Damaged databases: garbage over the header or in the middle, a truncated file, an empty one,
a file that is not SQLite, a directory in its place. index.db is a cache, rebuilt from git;
state.db is restored from the committed sidecar. Plain ``doctor`` reports and changes nothing;
the next command heals (or, for damage opening does not touch, says exactly how); and after
``doctor --fix`` the store keeps every promise of issue 14.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Final

import pytest

from tests.faults.harness import (
    BaseStore,
    assert_recovered,
    build_base,
    clone,
    doctor_report,
    ok,
    run,
)

GARBAGE: Final = bytes(range(256)) * 32  # 8 KiB
Damage = Callable[[Path], None]


def garbage_over_the_header(path: Path) -> None:
    """8 KiB of garbage from byte 0."""
    with path.open("r+b") as handle:
        handle.write(GARBAGE)


def garbage_in_the_middle(path: Path) -> None:
    """8 KiB of garbage over the second page onwards (a b-tree page, not the header)."""
    with path.open("r+b") as handle:
        handle.seek(4096)
        handle.write(GARBAGE)


def truncated(path: Path) -> None:
    """The file cut to a third."""
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 3)


def emptied(path: Path) -> None:
    """The file cut to nothing: would open as a new, empty database."""
    path.write_bytes(b"")


def not_sqlite(path: Path) -> None:
    """A text file in its place."""
    path.write_text("these are not the pages you are looking for\n" * 100)


def a_directory(path: Path) -> None:
    """A directory in its place."""
    path.unlink()
    path.mkdir()


DAMAGES: Final[dict[str, Damage]] = {
    "garbage-header": garbage_over_the_header,
    "garbage-middle": garbage_in_the_middle,
    "truncated": truncated,
    "empty": emptied,
    "not-sqlite": not_sqlite,
    "directory": a_directory,
}
# Damage that opening the file meets; the rest is found by a statement or a page check.
MET_ON_OPEN: Final = frozenset({"garbage-header", "truncated", "empty", "not-sqlite", "directory"})


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> BaseStore:
    """One built store (its sidecar holds one access row) per module."""
    return build_base(tmp_path_factory.mktemp("base") / "store")


def snapshot(path: Path) -> object:
    """What is at ``path``: a file's bytes, or a directory's listing."""
    return sorted(p.name for p in path.iterdir()) if path.is_dir() else path.read_bytes()


@pytest.mark.parametrize("database", ["index", "state"])
@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_damaged_database_is_reported_then_healed(
    base: BaseStore, tmp_path: Path, database: str, damage: str
) -> None:
    """doctor reports the damage and leaves the file alone; a search answers (after at most
    one refusal naming doctor --fix); doctor --fix leaves the store whole, the damaged file
    kept aside and, for state.db, the sidecar's rows restored."""
    store = clone(base, tmp_path / "store")
    path = store.root / ".memhtml" / f"{database}.db"
    DAMAGES[damage](path)
    before = snapshot(path)

    report = doctor_report(store.root)
    kinds = {finding["kind"] for finding in report["recovery"]}
    assert (False, {f"{database}-corrupt"}, before) == (report["healthy"], kinds, snapshot(path))

    first = run(store.root, "search", "invoice")
    if damage in MET_ON_OPEN:
        assert 0 == first.exit_code, first.stdout + first.stderr
        assert f"{database}.db could not be read" in first.stderr
    elif first.exit_code != 0:
        failure = json.loads(first.stdout)
        assert ("ERR_STORAGE_CORRUPT", ["memhtml doctor --fix"]) == (
            failure["code"],
            failure["suggestions"],
        )
    assert 0 == run(store.root, "search", "invoice").exit_code

    assert_recovered(store.root)
    kept = sorted(p.name for p in path.parent.glob(f"{database}.db-corrupt-*"))
    assert 1 <= len(kept), kept
    assert 1 == len(kept) or all(name.endswith(("-wal", "-shm")) for name in kept[1:])
    if database == "state":
        exported = ok(store.root, "state", "export")
        assert (1, False) == (exported["rows"], exported["written"])


def test_state_damage_without_a_sidecar_says_everything_is_lost(tmp_path: Path) -> None:
    """No sidecar was ever exported: the warning says every count is lost, and the store
    still works."""
    store = build_base(tmp_path / "store")
    shutil.rmtree(store.root / ".memhtml" / "state")
    garbage_over_the_header(store.root / ".memhtml" / "state.db")
    result = run(store.root, "list")
    assert 0 == result.exit_code, result.stdout + result.stderr
    assert "no sidecar was ever exported" in result.stderr
