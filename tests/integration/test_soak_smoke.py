"""The soak of ``make bench`` at smoke size: real processes, nothing lost, nothing unexplained.

Two writers and one reader for three seconds against one store, through the same module
``make bench`` runs for 120 s; it exits 0 only when every acknowledged write is in HEAD, the
working tree and the index, ``git fsck`` is clean and no call failed with ``ERR_UNKNOWN``.
"""

from __future__ import annotations

import pytest

from bench import bench_soak


def test_a_short_soak_loses_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 0, and the report says so: no lost write, fsck clean, no failure of any code."""
    status = bench_soak.main(
        ["--seconds", "3", "--writers", "2", "--readers", "1", "--seed-memories", "20"]
    )
    report = capsys.readouterr().out
    assert 0 == status, report
    assert "lost: 0; git fsck: clean" in report
    assert "| — | — | no failures | 0 |" in report
