"""The capability probe families (docs/evaluation.md §A.5), without a store: each probe names
its feature's switch, switching it off removes exactly that, and the scoring needs the target
first and, for known-at, absent without the instant."""

from __future__ import annotations

from memhtml.app.eval.discrimination.capabilities import (
    CAPABILITY_ORDER,
    Capability,
    capability_plan,
    score_capability,
)
from memhtml.app.eval.discrimination.fixture import DEFAULT_EPOCH, resolved_now_ms
from memhtml.app.eval.discrimination.scoring import score_probe, summarize
from memhtml.domain.fusion import selected_arm_names
from memhtml.ports.retrieval import RankingOptions

EPOCH = int(DEFAULT_EPOCH.timestamp() * 1000)
PLAN = capability_plan(EPOCH, resolved_now_ms(None))
PROBES = {probe.family: probe for probe in PLAN.probes}


def test_one_probe_per_family_in_order() -> None:
    """Four families, each once, targets and controls among the planted files."""
    planted = {f.path for f in (*PLAN.initial, *PLAN.later)}
    assert list(CAPABILITY_ORDER) == [p.family for p in PLAN.probes]
    assert all({p.target_path, *p.control_paths} <= planted for p in PLAN.probes)


def test_switches_name_the_feature_and_off_removes_only_it() -> None:
    """On adds the entity or graph arm (or authority) to the default set; off leaves the
    default set without it and authority off."""
    default = selected_arm_names(None)
    base = RankingOptions()
    entity_on = PROBES[Capability.ENTITY_ALIAS].options(base, enabled=True)
    graph_off = PROBES[Capability.FIXES_LINK].options(base, enabled=False)
    authority_on = PROBES[Capability.AUTHORITY].options(base, enabled=True)
    authority_off = PROBES[Capability.AUTHORITY].options(base, enabled=False)
    assert default | {"entity"} == set(entity_on.arms or ())
    assert default - {"graph"} == set(graph_off.arms or ())
    assert (True, None) == (authority_on.authority, authority_on.arms)
    assert (False, set(default)) == (authority_off.authority, set(authority_off.arms or ()))


def test_known_at_fails_when_the_deleted_memory_is_found_today() -> None:
    """Found first at the instant but also found without it: not passed."""
    probe = PROBES[Capability.KNOWN_AT]
    first = [probe.target_path]
    assert score_capability(probe, first, []).passed
    assert not score_capability(probe, first, first).passed
    assert not score_capability(probe, [probe.control_paths[0], *first], []).passed


def test_a_failed_capability_fails_a_passing_gate() -> None:
    """The base probes' verdict holds only when every capability probe passed."""
    score = score_probe(
        query="q", target_path="a", controls=[("b", "x")], hits=["a"], degraded=False
    )
    assert summarize([score], mrr_floor=0.85, lexical=False).passed
    assert not summarize([score], mrr_floor=0.85, lexical=False, capabilities_passed=False).passed
