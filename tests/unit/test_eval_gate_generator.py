"""The fixture generator: deterministic, the promised shape, no dangling link, sound controls."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.app.eval.discrimination.controls import PREDICATES, qualifiers_of
from memhtml.app.eval.discrimination.fixture import (
    DAY_MS,
    Fixture,
    epoch_ms_of,
    resolved_now_ms,
)
from memhtml.app.eval.discrimination.generator import build_fixture
from memhtml.app.eval.discrimination.probes import query_of
from memhtml.app.eval.discrimination.texts import letter_code
from memhtml.domain.polarity import is_negated

DEFAULT_SEED = 20260802
gate_settings = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
small_fixtures = st.builds(
    build_fixture,
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    size=st.integers(min_value=1, max_value=90),
    probes=st.integers(min_value=1, max_value=20),
    now_ms=st.none() | st.integers(min_value=400 * DAY_MS, max_value=30_000 * DAY_MS),
)


@cache
def default_fixture() -> Fixture:
    """The default seed at the default size and probe count."""
    return build_fixture(DEFAULT_SEED, 200, 36, None)


def test_same_inputs_same_fixture() -> None:
    """Two builds of one (seed, size, probes, now) are equal values."""
    assert build_fixture(7, 120, 20, 1_780_000_000_000) == build_fixture(
        7, 120, 20, 1_780_000_000_000
    )


def test_default_fixture_has_the_promised_shape() -> None:
    """Within ±10% of 304 files, 36 probes, all three families, 4 people, 200 base memories."""
    fixture = default_fixture()
    roles = Counter(f.role for f in fixture.files)
    families = fixture.family_counts()
    assert 274 <= len(fixture.files) <= 334
    assert (36, 4, 200) == (len(fixture.probes), roles["person"], roles["base"])
    assert all(count > 0 for count in families.values())
    assert {"negation": 36, "numeric": 18, "variant": 36} == families


def test_seed_changes_the_jitter_not_the_shape() -> None:
    """Another seed moves metas and numbers but keeps paths and probe count."""
    a, b = default_fixture(), build_fixture(DEFAULT_SEED + 1, 200, 36, None)
    assert a.paths("base") == b.paths("base")
    assert a.files != b.files
    assert len(a.probes) == len(b.probes)


@gate_settings
@given(fixture=small_fixtures)
def test_paths_are_unique_and_no_link_dangles(fixture: Fixture) -> None:
    """Every path is written once and every link targets a generated file."""
    paths = [f.path for f in fixture.files]
    targets = {link.target for f in fixture.files for link in f.links}
    assert len(paths) == len(set(paths))
    assert set() == targets - set(paths)


@gate_settings
@given(fixture=small_fixtures)
def test_controls_are_validated_twins_of_their_target(fixture: Fixture) -> None:
    """Each control holds its family's predicate, shares the target's folder, and is a day newer."""
    by_path = {f.path: f for f in fixture.files}
    for probe in fixture.probes:
        target = by_path[probe.target_path]
        assert probe.query == query_of(probe.target_claim)
        for control in probe.controls:
            file = by_path[control.path]
            assert PREDICATES[control.family](probe.target_claim, control.claim)
            assert control.path.rsplit("/", 1)[0] == probe.target_path.rsplit("/", 1)[0]
            assert file.inputs.created_at > target.inputs.created_at
            assert () == file.links


@gate_settings
@given(fixture=small_fixtures)
def test_targets_are_affirmative_unqualified_semantic_or_procedural(fixture: Fixture) -> None:
    """Probe claims are marker-free; semantic ones carry one number, procedural ones none."""
    by_path = {f.path: f for f in fixture.files}
    for probe in fixture.probes:
        kind = by_path[probe.target_path].inputs.memory_type
        digits = sum(token.isdigit() for token in probe.target_claim.replace(".", " ").split())
        assert kind in {"semantic", "procedural"}
        assert (False, frozenset()) == (
            is_negated(probe.target_claim),
            qualifiers_of(probe.target_claim),
        )
        assert (1 if kind == "semantic" else 0) == digits


@gate_settings
@given(fixture=small_fixtures)
def test_archived_copies_live_under_archive_and_are_superseded(fixture: Fixture) -> None:
    """Each archived copy is under archive/, names its live memory, which supersedes it."""
    by_path = {f.path: f for f in fixture.files}
    for copy in (f for f in fixture.files if f.role == "archived"):
        assert copy.path.startswith("archive/")
        assert copy.superseded_by is not None
        live = by_path[copy.superseded_by]
        assert ("supersedes", copy.path) in [tuple(link) for link in live.links]
    assert all(not p.target_path.startswith("archive/") for p in fixture.probes)


@gate_settings
@given(fixture=small_fixtures)
def test_salience_rows_are_query_blind_and_well_formed(fixture: Fixture) -> None:
    """Rows only for people and base memories; counts, outcomes and stamps in range."""
    allowed = set(fixture.paths("person")) | set(fixture.paths("base"))
    for row in fixture.access_rows:
        assert row.path in allowed
        assert 1 <= row.access_count
        assert 0 <= row.reinforcement_count <= row.access_count
        assert 0.0 <= row.outcome_score <= 0.6
        assert row.last_accessed_at is not None
        assert row.last_accessed_at == row.updated_at
        assert (row.reinforcement_count > 0) == (row.last_reinforced_at is not None)
        accessed = dt.datetime.strptime(row.last_accessed_at, "%Y-%m-%dT%H:%M:%SZ")
        day = (int(accessed.replace(tzinfo=dt.UTC).timestamp() * 1000) - fixture.epoch_ms) // DAY_MS
        assert 240 <= day <= 259


def test_base_titles_are_unique_so_no_two_share_topic_type_noun_environment() -> None:
    """A base title spells (topic, type, noun, environment); none repeats across 4,140 memories."""
    titles = [f.inputs.title for f in build_fixture(1, 4140, 1, None).files if f.role == "base"]
    assert len(titles) == len(set(titles))


@given(now=st.integers(min_value=400 * DAY_MS, max_value=30_000 * DAY_MS))
def test_now_fixes_the_epoch_three_hundred_days_before_its_day(now: int) -> None:
    """The epoch is floor(now / day) − 300 days; without --now, now is epoch + 300 days."""
    assert (now // DAY_MS - 300) * DAY_MS == epoch_ms_of(now)
    assert epoch_ms_of(None) + 300 * DAY_MS == resolved_now_ms(None)
    assert now == resolved_now_ms(now)


def test_bodies_carry_the_letter_code_and_no_digit() -> None:
    """Each base article ends its first paragraph with its code; no digit outside the claim."""
    for i, file in enumerate(f for f in default_fixture().files if f.role == "base"):
        article = file.inputs.article_html or ""
        prose = article.split("</mark>", 1)[1]
        text_only = "".join(part.split(">", 1)[-1] for part in prose.split("<"))
        assert f"reference {letter_code(i)}." in article
        assert not any(ch.isdigit() for ch in text_only), file.path
