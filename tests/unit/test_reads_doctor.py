"""doctor over fakes: the format check, freshness against HEAD, coverage, the health verdict."""

from __future__ import annotations

import pytest

from memhtml.adapters.html import parse_memory
from memhtml.app.errors import StoreUnhealthy
from memhtml.app.use_cases.conflicts import ConflictingMemory, FrameConflict
from memhtml.app.use_cases.doctor import DoctorPorts, doctor_with, format_check
from memhtml.app.use_cases.doctor_verdict import concerns, refuse_unhealthy
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.health import ContradictionLink, DanglingLink, FrameClaim, InboxDepths
from tests.fakes.read_plane import FakeProbe
from tests.fakes.write_plane import FAKE_SPACE, FakeStore, fake_store

POOL_KEY = "the pool holds {number} connections"
LOCK_KEY = "the lock holds {duration}"
UNPARSEABLE_FIX = "fix or remove the files listed under detail.unparseable, then commit"
NOTE = WriteRequest(
    title="Ledger lock holds for 40 minutes",
    memory_type="semantic",
    claim="The nightly ledger lock is held for about 40 minutes.",
)


def _ports(store: FakeStore, probe: FakeProbe | None = None, **kw: object) -> DoctorPorts:
    values: dict[str, object] = {
        "git": store.git,
        "parse": parse_memory,
        "indexer": store.index,
        "probe": probe or FakeProbe(),
        "root": "/store",
        "configured_model": FAKE_SPACE,
        "floor": 0.95,
        "embeds": False,
        "has_state": True,
    }
    values.update(kw)
    return DoctorPorts(**values)  # type: ignore[arg-type]


def test_a_clean_indexed_store_is_healthy() -> None:
    """Written, indexed, nothing dangling: healthy, fresh, nothing dirty."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    report = doctor_with(_ports(store))
    assert (True, True, (), ()) == (
        report.healthy,
        report.index_fresh,
        report.dirty,
        report.unparseable,
    )
    assert report.head_sha == report.index_head_sha


def test_a_broken_working_file_is_unparseable_and_dirty() -> None:
    """An untracked file that fails the format is reported with its violation codes."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    store.git.write_file("areas/inbox/broken.html", b"<p>not a memory")
    report = doctor_with(_ports(store))
    assert ["areas/inbox/broken.html"] == [u.path for u in report.unparseable]
    assert ("areas/inbox/broken.html",) == report.dirty
    assert report.healthy is False


def test_a_commit_after_the_last_update_makes_the_index_not_fresh() -> None:
    """doctor compares the watermark with HEAD and does not update the index itself."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    store.index.head_sha = "0" * 40
    report = doctor_with(_ports(store))
    assert (False, False) == (report.index_fresh, report.healthy)


def test_probe_findings_and_crowding_are_reported() -> None:
    """Dangling links, orphans and a crowded inbox come through and make the store unhealthy."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    link = DanglingLink(src_path="a.html", rel="supports", dst_path="b.html", rewrite_to=None)
    probe = FakeProbe(
        dangling=(link,), orphans=("gone.html",), inbox=InboxDepths(memories=21, tasks=10)
    )
    report = doctor_with(_ports(store, probe))
    assert ((link,), ("gone.html",), True, False) == (
        report.dangling,
        report.orphan_access_rows,
        report.inbox_crowded,
        report.inbox_tasks_crowded,
    )
    assert report.healthy is False


def test_low_coverage_counts_only_with_an_embedder() -> None:
    """Coverage under the floor is low (with the remedy) only when the store embeds."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    lexical = doctor_with(_ports(store, floor=1.5))
    embedding = doctor_with(_ports(store, floor=1.5, embeds=True))
    assert (False, True) == (lexical.vector_coverage_low, embedding.vector_coverage_low)
    assert any("memhtml index embed" in w for w in embedding.warnings)


def test_a_missing_state_plane_or_model_mismatch_is_unhealthy() -> None:
    """No state plane, or a stored space other than the configured one, fails the verdict."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    assert doctor_with(_ports(store, has_state=False)).healthy is False
    mismatch = doctor_with(_ports(store, configured_model="other@3"))
    assert (False, False) == (mismatch.embed_model_matches, mismatch.healthy)


def test_format_check_reports_in_path_order() -> None:
    """Refused files come back sorted by path, each with a non-empty reason."""
    refused, _ = format_check(parse_memory, {"b.html": b"x", "a.html": b"y"})
    assert ["a.html", "b.html"] == [r.path for r in refused]
    assert all(r.reason for r in refused)


def test_frame_conflicts_and_contradictions_are_findings() -> None:
    """Claims on one key with other values, and a live ``contradicts`` link, are reported with
    their gists without making the store unhealthy; claims that only restate each other are
    not reported."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    fifty = FrameClaim(frame_key=POOL_KEY, path="b.html", gist="The pool holds 50 connections.")
    eighty = FrameClaim(frame_key=POOL_KEY, path="a.html", gist="The pool holds 80 connections.")
    same = FrameClaim(frame_key=LOCK_KEY, path="c.html", gist="The lock holds 40 minutes.")
    again = FrameClaim(frame_key=LOCK_KEY, path="d.html", gist="The lock holds 40 min.")
    link = ContradictionLink(src_path="a.html", src_gist="A.", dst_path="e.html", dst_gist="E.")
    report = doctor_with(
        _ports(store, FakeProbe(frames=(fifty, eighty, same, again), contradictions=(link,)))
    )
    expected = FrameConflict(
        frame_key=POOL_KEY,
        memories=(
            ConflictingMemory(path="a.html", gist=eighty.gist),
            ConflictingMemory(path="b.html", gist=fifty.gist),
        ),
    )
    assert ((expected,), (link,), True) == (
        report.frame_conflicts,
        report.contradictions,
        report.healthy,
    )
    assert () == concerns(report)


def test_a_healthy_report_passes_the_verdict() -> None:
    """No concern, nothing raised: a healthy doctor exits 0 with its report."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    report = doctor_with(_ports(store))
    assert () == concerns(report)
    refuse_unhealthy(report, {"healthy": True})


def test_each_unhealthy_condition_is_a_concern_with_its_fix() -> None:
    """Every condition folded into healthy is named once, with the command that addresses it,
    and the failure carries the report it was given as detail."""
    store = fake_store()
    write_memory(store.deps, NOTE)
    store.git.write_file("areas/inbox/broken.html", b"<p>not a memory")
    dangling = DanglingLink(src_path="a.html", rel="supports", dst_path="b.html", rewrite_to=None)
    contradiction = ContradictionLink(
        src_path="a.html", src_gist="A holds.", dst_path="c.html", dst_gist="A does not hold."
    )
    probe = FakeProbe(
        dangling=(dangling, dangling), orphans=("gone.html",), contradictions=(contradiction,)
    )
    report = doctor_with(_ports(store, probe, configured_model="other@1", has_state=False))
    assert [
        ("2 dangling links", "memhtml doctor --fix"),
        ("1 orphan access row", "memhtml doctor --fix"),
        ("1 memory file failing the format", UNPARSEABLE_FIX),
        ("the index holds another model's vectors", "memhtml index rebuild --embed"),
        ("no state plane", "memhtml state import"),
    ] == [(c.what, c.fix) for c in concerns(report)]
    with pytest.raises(StoreUnhealthy) as caught:
        refuse_unhealthy(report, {"healthy": False})
    assert (
        "the store needs attention: 2 dangling links; 1 orphan access row; 1 memory file "
        "failing the format; the index holds another model's vectors; no state plane",
        (
            "memhtml doctor --fix",
            UNPARSEABLE_FIX,
            "memhtml index rebuild --embed",
            "memhtml state import",
        ),
        {"healthy": False},
    ) == (str(caught.value), caught.value.suggestions, caught.value.detail)
