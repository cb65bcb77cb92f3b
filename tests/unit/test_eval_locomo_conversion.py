"""Reading LoCoMo-shaped data, building queries and converting a conversation into ``apply``
ops (docs/evaluation.md §B.1–B.3), over a small conversation invented here."""

from __future__ import annotations

import datetime as dt
import html
from typing import Any

import pytest

from memhtml.app.apply_ops import WriteOp
from memhtml.app.eval.locomo.conversion import convert, session_path, turn_path
from memhtml.app.eval.locomo.dataset import (
    LocomoDataInvalid,
    parse_dataset,
    parse_session_date,
)
from memhtml.app.eval.locomo.queries import build_queries


def invented_conversation() -> dict[str, Any]:
    """Two speakers, a dated session without turns, two sessions with turns, five questions."""
    return {
        "sample_id": "conv-7",
        "conversation": {
            "speaker_a": "Renée Voss",
            "speaker_b": "Tomasz",
            "session_1_date_time": "9:05 am on 2 March, 2023",
            "session_1": [
                {"speaker": "Renée Voss", "dia_id": "D1:1", "text": "I repotted the fig <3"},
                {
                    "speaker": "Tomasz",
                    "dia_id": "D1:2",
                    "text": "Nice & green!",
                    "blip_caption": "a photo of a fig tree",
                    "img_url": ["https://example.invalid/fig.jpg"],
                },
            ],
            "session_2_date_time": "11:40 pm on 30 April, 2023",
            "session_2": [{"speaker": "Renée Voss", "dia_id": "D2:1", "text": "Take care!"}],
            "session_3_date_time": "1:00 pm on 1 May, 2023",
        },
        "qa": [
            {"question": "What did Renée repot?", "evidence": ["D1:1"], "category": 4},
            {"question": "When?", "evidence": ["D2:1; D1:2"], "category": 2},
            {"question": "Why?", "evidence": [], "category": 3},
            {"question": "Who?", "evidence": ["D1:9"], "category": 1},
            {"question": "What did Tomasz repot?", "evidence": ["D1:2"], "category": 5},
        ],
    }


def test_parse_reads_sessions_with_turns_in_number_order() -> None:
    """A date key without turns is no session; turns keep ids, speakers and captions."""
    (conversation,) = parse_dataset([invented_conversation()])
    assert "conv-7" == conversation.sample_id
    assert [1, 2] == [session.number for session in conversation.sessions]
    assert ["D1:1", "D1:2", "D2:1"] == [turn.dia_id for turn in conversation.turns]
    assert "a photo of a fig tree" == conversation.turns[1].blip_caption
    assert conversation.turns[0].blip_caption is None
    assert dt.datetime(2023, 4, 30, 23, 40, tzinfo=dt.UTC) == conversation.last_session_at


def test_session_dates_parse_as_utc_with_twelve_hour_clock() -> None:
    """``12:09 am`` is just after midnight; the instant is aware and UTC."""
    assert dt.datetime(2023, 9, 13, 0, 9, tzinfo=dt.UTC) == parse_session_date(
        "12:09 am on 13 September, 2023"
    )
    with pytest.raises(LocomoDataInvalid, match="does not match"):
        parse_session_date("2023-09-13 00:09")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda raw: raw["conversation"]["session_1"][1].update(dia_id="D1:3"), "has id"),
        (lambda raw: raw["qa"][0].update(category=6), "category"),
        (lambda raw: raw["qa"][0].update(category=True), "category"),
        (lambda raw: raw["conversation"].pop("session_2_date_time"), "date_time"),
        (lambda raw: raw["conversation"]["session_2"][0].update(text=" "), "text"),
        (lambda raw: raw["qa"][1].update(evidence=[3]), "non-string"),
    ],
)
def test_damaged_data_is_refused_naming_the_place(damage: Any, message: str) -> None:
    """Out-of-order ids, unknown categories, missing dates, empty turns, odd evidence fail."""
    raw = invented_conversation()
    damage(raw)
    with pytest.raises(LocomoDataInvalid, match=message):
        parse_dataset([raw])


def test_not_a_list_of_conversations_is_refused() -> None:
    """An object or an empty array is not LoCoMo."""
    not_lists: tuple[object, ...] = ({}, [])
    for raw in not_lists:
        with pytest.raises(LocomoDataInvalid, match="array"):
            parse_dataset(raw)


def test_queries_keep_gold_in_order_and_exclude_items_without_any() -> None:
    """Gold is normalised; an item whose gold is empty is excluded and counted, not scored."""
    (conversation,) = parse_dataset([invented_conversation()])
    query_set = build_queries(conversation)
    assert [0, 1, 4] == [query.qa_index for query in query_set.queries]
    assert (2, 3) == query_set.excluded_no_gold
    when = query_set.queries[1]
    assert ("D2:1", "D1:2") == when.gold_turns
    assert (2, 1) == when.gold_sessions
    assert [1, 3] == [item.qa_index for item in query_set.fixed]


def test_turn_store_writes_one_episodic_memory_per_turn() -> None:
    """Path, title, claim, caption body, entity slug, tag and ordered event times per B.2."""
    (conversation,) = parse_dataset([invented_conversation()])
    converted = convert(conversation, "turn")
    assert [1, 2, 3] == [op.line for op in converted.ops]
    requests = [op.request for op in converted.ops if isinstance(op, WriteOp)]
    first, second, third = requests
    assert "areas/locomo/conv-7/s01/t001.html" == first.path == turn_path("conv-7", 1, 1)
    assert first.strict_path
    assert "Renée Voss, session 1 turn 1" == first.title
    assert "episodic" == first.memory_type
    assert "I repotted the fig <3" == first.claim
    assert () == first.body
    assert ("Shared a photo: a photo of a fig tree.",) == second.body
    assert ("person:renee-voss",) == first.entities
    assert ("locomo",) == first.tags
    assert ["2023-03-02T09:05:00Z", "2023-03-02T09:05:01Z", "2023-04-30T23:40:00Z"] == [
        request.event_at for request in requests
    ]
    assert "areas/locomo/conv-7/s02/t001.html" == third.path
    by_path = converted.by_path()
    assert "D1:2" == by_path[str(second.path)].dia_id
    assert 2 == by_path[str(third.path)].session


def test_session_store_lists_every_turn_under_a_dated_claim() -> None:
    """One memory per session: claim, a time paragraph, one escaped list item per turn."""
    (conversation,) = parse_dataset([invented_conversation()])
    converted = convert(conversation, "session")
    assert 2 == len(converted.ops)
    op = converted.ops[0]
    assert isinstance(op, WriteOp)
    request = op.request
    assert session_path("conv-7", 1) == request.path
    article = str(request.article_html)
    assert article.startswith(
        "<p><mark>Session 1 between Renée Voss and Tomasz on 2 March 2023.</mark></p>"
    )
    assert '<time datetime="2023-03-02T09:05:00Z">' in article
    assert f"<li>Tomasz: {html.escape('Nice & green!')}</li>" in article
    assert "<li>Renée Voss: I repotted the fig &lt;3</li>" in article
    assert ("person:renee-voss", "person:tomasz") == request.entities
    assert [None, None] == [item.dia_id for item in converted.items]
    assert [1, 2] == [item.session for item in converted.items]
