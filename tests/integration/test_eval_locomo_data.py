"""The facts docs/evaluation.md §B.1 and B.3 assert about the real ``locomo10.json``, read where it
lies (it is CC BY-NC and never copied here); skipped when the file is absent."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Final

import pytest

from memhtml.app.eval.locomo.data_path import resolve_data_path
from memhtml.app.eval.locomo.dataset import EXPECTED_SHA256, Dataset, load_dataset
from memhtml.app.eval.locomo.queries import ADVERSARIAL_CATEGORY, SCORED_CATEGORIES, build_queries
from memhtml.domain.errors import NotFound

DATA: Final = Path("/work/shared/data/locomo/locomo10.json")


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    """The real file, or a skip when this machine does not have it."""
    if not DATA.is_file():
        pytest.skip(f"{DATA} is absent (CC BY-NC data, not shipped)")
    return load_dataset(DATA)


def test_shape_matches_b1(dataset: Dataset) -> None:
    """10 conversations, 272 sessions with turns, 5,882 turns ≤ 454 chars, the pinned sha256."""
    assert EXPECTED_SHA256 == dataset.sha256
    assert 10 == len(dataset.conversations)
    assert "conv-26" == dataset.conversations[0].sample_id
    assert "conv-50" == dataset.conversations[-1].sample_id
    assert 19 == len(dataset.conversations[0].sessions)
    assert 272 == sum(len(c.sessions) for c in dataset.conversations)
    turns = [turn for c in dataset.conversations for turn in c.turns]
    assert 5882 == len(turns)
    assert 454 == max(len(turn.text) for turn in turns)
    years = {s.started_at.year for c in dataset.conversations for s in c.sessions}
    assert {2022, 2023, 2024} == years


def test_question_categories_match_b1(dataset: Dataset) -> None:
    """1,986 QA items: 282 / 321 / 96 / 841 / 446 over categories 1–5."""
    counts = Counter(item.category for c in dataset.conversations for item in c.qa)
    assert {1: 282, 2: 321, 3: 96, 4: 841, 5: 446} == counts


def test_queries_and_qrels_match_b3(dataset: Dataset) -> None:
    """1,536 scored queries; turn qrels 882/375/208/895 and session qrels 755/353/162/842;
    category 5: 446 queries, 460 turn and 446 session qrels; 4 items excluded without gold."""
    sets = [(c.sample_id, build_queries(c)) for c in dataset.conversations]
    queries = [q for _, query_set in sets for q in query_set.queries]
    scored = [q for q in queries if q.category in SCORED_CATEGORIES]
    adversarial = [q for q in queries if q.category == ADVERSARIAL_CATEGORY]
    turn_qrels: Counter[int] = Counter()
    session_qrels: Counter[int] = Counter()
    for q in queries:
        turn_qrels[q.category] += len(q.gold_turns)
        session_qrels[q.category] += len(q.gold_sessions)
    assert 1536 == len(scored)
    assert 2360 == sum(turn_qrels[c] for c in SCORED_CATEGORIES)
    assert {1: 882, 2: 375, 3: 208, 4: 895, 5: 460} == turn_qrels
    assert 2112 == sum(session_qrels[c] for c in SCORED_CATEGORIES)
    assert {1: 755, 2: 353, 3: 162, 4: 842, 5: 446} == session_qrels
    assert 446 == len(adversarial)
    excluded = [(sample, index) for sample, qs in sets for index in qs.excluded_no_gold]
    assert [("conv-26", 30), ("conv-26", 46), ("conv-50", 39), ("conv-50", 42)] == excluded


def test_the_nine_malformed_strings_are_fixed(dataset: Dataset) -> None:
    """The B.3 list, by conversation and item: nine malformed strings, plus one repeated id."""
    fixed = {
        (sample, item.qa_index): [fix.kind for fix in item.fixes]
        for sample, qs in ((c.sample_id, build_queries(c)) for c in dataset.conversations)
        for item in qs.fixed
    }
    assert {
        ("conv-26", 37): ["split"],
        ("conv-43", 18): ["rewritten"],
        ("conv-49", 31): ["split"],
        ("conv-49", 38): ["split"],
        ("conv-49", 46): ["split"],
        ("conv-50", 69): ["rewritten"],
        ("conv-42", 88): ["unparseable"],
        ("conv-42", 58): ["absent"],
        ("conv-47", 38): ["absent"],
        ("conv-50", 5): ["duplicate"],
    } == fixed


def test_default_path_is_found_from_the_working_directory(tmp_path: Path) -> None:
    """``../shared/data/locomo/locomo10.json`` from the working directory comes first."""
    project = tmp_path / "project"
    project.mkdir()
    data = tmp_path / "shared" / "data" / "locomo" / "locomo10.json"
    data.parent.mkdir(parents=True)
    data.write_text("[]", encoding="utf-8")
    assert data.resolve() == resolve_data_path(None, cwd=project)


def test_a_missing_data_file_says_where_to_get_it(tmp_path: Path) -> None:
    """``--data`` naming nothing raises NotFound naming the source and the licence."""
    with pytest.raises(NotFound, match=r"snap-research/LoCoMo.*CC BY-NC"):
        resolve_data_path(str(tmp_path / "absent.json"))
