"""A state plane that did not exist (a plain ``git clone``'s, or a deleted ``state.db``) starts
from the committed sidecar, so the next ``state export`` does not commit the store's access
counts away; a fill killed part-way is redone by the next command."""

from __future__ import annotations

from pathlib import Path

from tests.faults.harness import build_base, git, ok, run_killed_at

SIDECAR = Path(".memhtml/state/access.jsonl")


def cloned(tmp_path: Path) -> tuple[Path, bytes]:
    """A plain git clone of a store with an exported sidecar, and that sidecar's bytes."""
    base = build_base(tmp_path / "base", memories=4)
    into = tmp_path / "clone"
    done = git(tmp_path, "clone", "--quiet", str(base.root), str(into))
    assert 0 == done.returncode, done.stderr
    return into, (base.root / SIDECAR).read_bytes()


def test_a_fresh_clone_keeps_the_committed_counts_on_export(tmp_path: Path) -> None:
    root, sidecar = cloned(tmp_path)
    assert not (root / ".memhtml" / "state.db").exists()
    exported = ok(root, "state", "export")
    rows = sidecar.count(b"\n")
    assert rows >= 1
    assert (False, rows) == (exported["written"], exported["rows"])
    assert sidecar == (root / SIDECAR).read_bytes()


def test_a_deleted_state_plane_is_filled_again(tmp_path: Path) -> None:
    base = build_base(tmp_path / "base", memories=4)
    sidecar = (base.root / SIDECAR).read_bytes()
    (base.root / ".memhtml" / "state.db").unlink()
    exported = ok(base.root, "state", "export")
    assert (False, sidecar.count(b"\n")) == (exported["written"], exported["rows"])


def test_a_fill_killed_part_way_is_redone_by_the_next_command(tmp_path: Path) -> None:
    root, sidecar = cloned(tmp_path)
    run_killed_at(root, "state.batch", ["list"])
    pending = root / ".memhtml" / "state.db-restore-pending"
    assert pending.exists()
    exported = ok(root, "state", "export")
    assert (False, sidecar.count(b"\n")) == (exported["written"], exported["rows"])
    assert not pending.exists()
