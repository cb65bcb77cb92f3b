"""The budgeted disclosure fold and the recall pack."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.disclosure import (
    ARC_BODY_BUDGET,
    MAX_PER_ENTITY,
    MEMORY_BODY_BUDGET,
    DisclosedEntry,
    DisclosureCandidate,
    DisclosureFold,
    IndexLine,
    budget_for,
    fold_disclosure,
    fold_recall_pack,
)
from memhtml.domain.errors import InvalidInput
from memhtml.domain.text import utf16_len
from tests.strategies import entity_refs

texts = st.text(alphabet="ab 😀é\n", max_size=12)


def cand(
    path: str,
    text: str,
    entities: frozenset[str] = frozenset(),
    memory_type: str = "semantic",
) -> DisclosureCandidate:
    """A candidate whose title and gist are derived from its path."""
    return DisclosureCandidate(
        path=path,
        title=f"title {path}",
        gist=f"gist {path}",
        memory_type=memory_type,
        disclosure_text=text,
        entities=entities,
    )


@st.composite
def candidate_lists(draw: st.DrawFn) -> list[DisclosureCandidate]:
    """Ranked candidates p0, p1, … with colliding entities and mixed types."""
    rows = draw(
        st.lists(st.tuples(texts, entity_refs, st.sampled_from(["semantic", "arc"])), max_size=10)
    )
    return [cand(f"p{i}", text, ents, kind) for i, (text, ents, kind) in enumerate(rows)]


budgets = st.integers(0, 40)


def quoted_paths(fold: DisclosureFold) -> list[str]:
    """Paths of the quotes, in order."""
    return [d.path for d in fold.disclosed]


def test_constants_match_the_seed() -> None:
    """Two quotes per entity, 9,000 units for arcs, 16,000 for memories."""
    assert (2, 9_000, 16_000) == (MAX_PER_ENTITY, ARC_BODY_BUDGET, MEMORY_BODY_BUDGET)


def test_budget_for_picks_the_envelope_by_type() -> None:
    """Arcs get their own envelope whatever the caller asked; others get the caller's or 16,000."""
    expected = (9_000, 9_000, 16_000, 500)
    actual = (
        budget_for("arc"),
        budget_for("arc", 500),
        budget_for("semantic"),
        budget_for("semantic", 500),
    )
    assert expected == actual


def test_a_misfit_becomes_an_index_line_and_the_fold_goes_on() -> None:
    """A long candidate mid-list is listed by path while a shorter one after it is quoted."""
    fold = fold_disclosure([cand("a", "xx"), cand("b", "x" * 10), cand("c", "xxx")], 6)
    expected = DisclosureFold(
        disclosed=(
            DisclosedEntry(
                path="a", title="title a", gist="gist a", memory_type="semantic", body="xx"
            ),
            DisclosedEntry(
                path="c", title="title c", gist="gist c", memory_type="semantic", body="xxx"
            ),
        ),
        index_lines=(IndexLine(path="b", title="title b", gist="gist b", memory_type="semantic"),),
        spent_chars=5,
        truncated=True,
    )
    assert expected == fold


def test_quote_cost_counts_utf16_units() -> None:
    """An astral character costs two units, so "😀😀" does not fit a budget of 3."""
    fold = fold_disclosure([cand("a", "😀😀"), cand("b", "😀")], 3)
    assert (["b"], 2) == (quoted_paths(fold), fold.spent_chars)


def test_an_exact_fit_is_quoted() -> None:
    """A text exactly the size of the remaining budget fits."""
    fold = fold_disclosure([cand("a", "abc")], 3)
    assert (["a"], False) == (quoted_paths(fold), fold.truncated)


def test_entity_cap_allows_two_quotes_per_reference() -> None:
    """The third memory about one entity gets an index line, another entity's is quoted."""
    api = frozenset({"service:api"})
    fold = fold_disclosure(
        [cand("a", "x", api), cand("b", "x", api), cand("c", "x", api), cand("d", "x")], 100
    )
    assert (["a", "b", "d"], ["c"]) == (quoted_paths(fold), [i.path for i in fold.index_lines])


def test_entity_cap_counts_type_and_name_together() -> None:
    """person:sasha and concept:sasha are two entities (docs/decisions.md §10)."""
    person, concept = frozenset({"person:sasha"}), frozenset({"concept:sasha"})
    fold = fold_disclosure(
        [cand("a", "x", person), cand("b", "x", person), cand("c", "x", concept)], 100
    )
    assert ["a", "b", "c"] == quoted_paths(fold)


def test_a_budget_skip_does_not_count_against_the_entity() -> None:
    """A memory that did not fit spends none of its entity's quota."""
    api = frozenset({"service:api"})
    fold = fold_disclosure([cand("a", "x" * 50, api), cand("b", "x", api), cand("c", "x", api)], 10)
    assert ["b", "c"] == quoted_paths(fold)


def test_empty_disclosure_text_is_an_index_line() -> None:
    """A candidate with nothing to quote is listed, never quoted for free."""
    fold = fold_disclosure([cand("a", "")], 10)
    assert ([], ["a"]) == (quoted_paths(fold), [i.path for i in fold.index_lines])


def test_negative_budget_is_refused() -> None:
    """A budget below zero is a caller error."""
    with pytest.raises(InvalidInput):
        fold_disclosure([], -1)


def test_negative_entity_cap_is_refused() -> None:
    """A per-entity cap below zero is a caller error."""
    with pytest.raises(InvalidInput):
        fold_disclosure([], 10, max_per_entity=-1)


def test_recall_pack_folds_arcs_under_their_own_envelope() -> None:
    """A large arc does not consume the memories' budget, and totals add both folds."""
    pack = fold_recall_pack(
        [cand("arc", "a" * 8_000, memory_type="arc"), cand("m", "m" * 100)], budget_chars=100
    )
    assert (["arc"], ["m"], 8_100, False) == (
        quoted_paths(pack.arcs),
        quoted_paths(pack.memories),
        pack.spent_chars,
        pack.truncated,
    )


def test_recall_pack_defaults_the_memory_budget() -> None:
    """Without a caller budget the memories share 16,000 units."""
    pack = fold_recall_pack([cand("a", "x" * 16_000), cand("b", "y")])
    assert (["a"], True) == (quoted_paths(pack.memories), pack.truncated)


def test_recall_pack_keeps_entity_counts_per_fold() -> None:
    """An entity capped among memories can still be quoted among arcs."""
    api = frozenset({"service:api"})
    rows = [cand(f"m{i}", "x", api) for i in range(3)] + [cand("arc", "x", api, "arc")]
    pack = fold_recall_pack(rows)
    assert (["m0", "m1"], ["arc"]) == (quoted_paths(pack.memories), quoted_paths(pack.arcs))


@given(candidate_lists(), budgets)
@example([cand("p0", "", frozenset())], 0)
def test_spent_never_exceeds_budget_and_equals_the_quotes(
    candidates: list[DisclosureCandidate], budget: int
) -> None:
    """The fold spends exactly its quotes' UTF-16 lengths and never more than the budget."""
    fold = fold_disclosure(candidates, budget)
    spent = sum(utf16_len(d.body) for d in fold.disclosed)
    assert (spent, True) == (fold.spent_chars, fold.spent_chars <= budget)


@given(candidate_lists(), budgets)
def test_every_candidate_appears_once_in_rank_order(
    candidates: list[DisclosureCandidate], budget: int
) -> None:
    """Quotes and index lines partition the candidates, each part keeping rank order."""
    fold = fold_disclosure(candidates, budget)
    quoted = set(quoted_paths(fold))
    listed = [i.path for i in fold.index_lines]
    expected = (
        [c.path for c in candidates if c.path in quoted],
        [c.path for c in candidates if c.path not in quoted],
    )
    assert expected == (quoted_paths(fold), listed)


@given(candidate_lists(), budgets)
def test_no_entity_is_quoted_more_than_twice(
    candidates: list[DisclosureCandidate], budget: int
) -> None:
    """Each type:name reference appears on at most MAX_PER_ENTITY quotes."""
    by_path = {c.path: c for c in candidates}
    fold = fold_disclosure(candidates, budget)
    counts: dict[str, int] = {}
    for d in fold.disclosed:
        for ref in by_path[d.path].entities:
            counts[ref] = counts.get(ref, 0) + 1
    assert [] == [ref for ref, n in counts.items() if n > MAX_PER_ENTITY]


@given(candidate_lists(), budgets)
def test_after_an_entity_cap_skip_no_later_candidate_of_that_entity_is_quoted(
    candidates: list[DisclosureCandidate], budget: int
) -> None:
    """Once a candidate is skipped because entity E is full, nothing ranked below it with E is
    quoted (the cap never lets a lower-ranked memory of the same entity jump ahead)."""
    fold = fold_disclosure(candidates, budget)
    quoted = set(quoted_paths(fold))
    full: set[str] = set()
    counts: dict[str, int] = {}
    violations = []
    for c in candidates:
        if c.path in quoted:
            violations += [(c.path, ref) for ref in c.entities if ref in full]
            for ref in c.entities:
                counts[ref] = counts.get(ref, 0) + 1
        else:
            full |= {ref for ref in c.entities if counts.get(ref, 0) >= MAX_PER_ENTITY}
    assert [] == violations


@given(candidate_lists(), budgets)
def test_every_index_line_had_a_reason(candidates: list[DisclosureCandidate], budget: int) -> None:
    """A candidate is only listed when capped, empty, or too long for what was left."""
    fold = fold_disclosure(candidates, budget)
    quoted = set(quoted_paths(fold))
    spent = 0
    counts: dict[str, int] = {}
    unexplained = []
    for c in candidates:
        cost = utf16_len(c.disclosure_text)
        if c.path in quoted:
            spent += cost
            for ref in c.entities:
                counts[ref] = counts.get(ref, 0) + 1
            continue
        capped = any(counts.get(ref, 0) >= MAX_PER_ENTITY for ref in c.entities)
        if not (capped or cost == 0 or spent + cost > budget):
            unexplained.append(c.path)
    assert [] == unexplained


@given(candidate_lists())
def test_zero_budget_quotes_nothing(candidates: list[DisclosureCandidate]) -> None:
    """With no budget every candidate is an index line."""
    fold = fold_disclosure(candidates, 0)
    assert ([], len(candidates), bool(candidates)) == (
        quoted_paths(fold),
        len(fold.index_lines),
        fold.truncated,
    )


@given(candidate_lists(), budgets)
def test_truncated_means_at_least_one_index_line(
    candidates: list[DisclosureCandidate], budget: int
) -> None:
    """The truncated flag is exactly "some candidate was not quoted"."""
    fold = fold_disclosure(candidates, budget)
    assert bool(fold.index_lines) == fold.truncated


@given(candidate_lists(), st.one_of(st.none(), budgets))
@example([cand("p0", "aaaa", memory_type="arc"), cand("p1", "bbbb")], 3)
def test_recall_pack_splits_by_type_and_adds_up(
    candidates: list[DisclosureCandidate], budget: int | None
) -> None:
    """Arcs fold apart from memories, each within its envelope, and the totals are the sums."""
    pack = fold_recall_pack(candidates, budget)
    arcs = [c for c in candidates if c.memory_type == "arc"]
    memories = [c for c in candidates if c.memory_type != "arc"]
    expected = (
        fold_disclosure(arcs, ARC_BODY_BUDGET),
        fold_disclosure(memories, MEMORY_BODY_BUDGET if budget is None else budget),
    )
    totals = (
        pack.arcs.spent_chars + pack.memories.spent_chars,
        pack.arcs.truncated or pack.memories.truncated,
    )
    assert (expected, totals) == ((pack.arcs, pack.memories), (pack.spent_chars, pack.truncated))
