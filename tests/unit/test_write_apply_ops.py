"""Phase 1 of ``apply``: every line checked before anything runs, errors naming the line."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.apply_ops import (
    ArchiveOp,
    LinkOp,
    SessionDefaults,
    WriteOp,
    parse_apply_lines,
)
from memhtml.app.errors import MissingArgument
from memhtml.domain.errors import InvalidInput
from memhtml.domain.write_requests import WriteRequest

WRITE = {"op": "write", "title": "T", "type": "semantic", "claim": "C."}


def _line(**fields: object) -> str:
    return json.dumps(fields)


def test_the_three_ops_parse_in_order_with_line_numbers() -> None:
    """Blank lines are skipped but counted; each op keeps its 1-based line."""
    lines = [
        _line(**WRITE),
        "",
        _line(op="link", src="a.html", rel="supports", dst="b.html"),
        "   ",
        _line(op="archive", path="a.html", reason="done"),
    ]
    assert (
        WriteOp(line=1, request=WriteRequest(title="T", memory_type="semantic", claim="C.")),
        LinkOp(line=3, src="a.html", rel="supports", dst="b.html"),
        ArchiveOp(line=5, path="a.html", reason="done"),
    ) == parse_apply_lines(lines)


def test_write_fields_map_onto_the_request() -> None:
    """Strings-or-arrays, numbers, booleans and normalised instants land in the request."""
    line = _line(
        op="write",
        title="T",
        type="episodic",
        claim="C.",
        body=["b1", "b2"],
        tag="ops",
        entity=["service:a", "team:b"],
        importance=7,
        confidence=0.5,
        path="projects/x/t.html",
        strict_path=True,
        workspace="X",
        event_at="2026-08-30T14:05+02:00",
        valid_from="2026-09-01",
        session_id="own",
    )
    (op,) = parse_apply_lines([line], SessionDefaults(session_id="batch", prompt_id="p"))
    assert (
        WriteOp(
            line=1,
            request=WriteRequest(
                title="T",
                memory_type="episodic",
                claim="C.",
                body=("b1", "b2"),
                tags=("ops",),
                entities=("service:a", "team:b"),
                importance=7,
                confidence=0.5,
                path="projects/x/t.html",
                strict_path=True,
                workspace="X",
                event_at="2026-08-30T12:05:00Z",
                valid_from="2026-09-01",
                session_id="own",
                prompt_id="p",
            ),
        )
        == op
    )


def test_null_reads_as_absent() -> None:
    """``"path": null`` is no path, as an omitted key would be."""
    (op,) = parse_apply_lines([_line(**WRITE, path=None)])
    assert isinstance(op, WriteOp)
    assert None is op.request.path


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        ("[" * 100_000, "line 2: JSON nests deeper than 32 levels"),
        # The line's own object is a level: 32 arrays inside it nest 33 deep, 31 nest 32.
        (_line(**WRITE, tag=json.loads("[" * 32 + "]" * 32)), "line 2: JSON nests deeper"),
        (_line(**WRITE, tag=json.loads("[" * 31 + "]" * 31)), "line 2: tag must be a string"),
        ("[1, 2]", "line 2: each line must be a JSON object"),
        (_line(op="delete", path="a"), "line 2: op must be one of"),
        (_line(title="T"), "line 2: op must be one of"),
        (_line(**WRITE, colour="red"), "line 2: unknown field 'colour'"),
        (_line(**WRITE, importance="7"), "line 2: importance must be an integer"),
        (_line(**WRITE, importance=True), "line 2: importance must be an integer"),
        (_line(**WRITE, importance=11), "line 2: importance must be an integer"),
        (_line(**WRITE, confidence=1.5), "line 2: confidence must be a number"),
        (_line(**WRITE, confidence=10**400), "line 2: confidence must be a number"),
        (_line(**WRITE, tag=["a", 1]), "line 2: tag must be a string or an array"),
        (_line(**WRITE, strict_path="yes"), "line 2: strict_path must be true or false"),
        (_line(**{**WRITE, "type": "arc"}), "line 2: type arc is written by sleep only"),
        (_line(**{**WRITE, "type": "fact"}), "line 2: type must be one of"),
        (_line(**WRITE, article_html="<p>x</p>"), "line 2: give either article_html"),
        (_line(**WRITE, event_at="soon"), "line 2: event_at must be an ISO date"),
        (_line(op="link", src="a", rel="about_person", dst="b"), "line 2: rel must be one of"),
    ],
)
def test_malformed_lines_are_invalid_input_naming_the_line(line: str, message: str) -> None:
    """Bad JSON, unknown op or field, a wrong type or value: InvalidInput (ERR_INVALID_FLAG)."""
    with pytest.raises(InvalidInput, match=message) as caught:
        parse_apply_lines([_line(**WRITE), line])
    assert not isinstance(caught.value, MissingArgument)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"op": "write", "type": "semantic", "claim": "C."}, "line 1: missing field 'title'"),
        ({"op": "write", "title": "T", "claim": "C."}, "line 1: missing field 'type'"),
        ({"op": "write", "title": "T", "type": "semantic"}, "line 1: write needs claim"),
        ({"op": "link", "src": "a", "rel": "supports"}, "line 1: missing field 'dst'"),
        ({"op": "archive", "path": "a"}, "line 1: missing field 'reason'"),
        ({"op": "archive", "path": "a", "reason": "  "}, "line 1: archive needs a non-blank"),
        ({**WRITE, "title": None}, "line 1: missing field 'title'"),
    ],
)
def test_missing_fields_are_missing_argument(fields: dict[str, object], message: str) -> None:
    """An absent (or null) required field: MissingArgument (ERR_MISSING_ARGUMENT)."""
    with pytest.raises(MissingArgument, match=message):
        parse_apply_lines([json.dumps(fields)])


def test_a_bad_last_line_refuses_the_whole_batch() -> None:
    """Phase 1 reads every line first: line 3's error surfaces, nothing is returned."""
    with pytest.raises(InvalidInput, match="line 3"):
        parse_apply_lines([_line(**WRITE), _line(**WRITE), "oops"])


@given(
    lines=st.lists(
        st.one_of(
            st.just(_line(**WRITE)),
            st.sampled_from(["", " ", "\t"]),
            st.just(_line(op="archive", path="a", reason="r")),
        ),
        max_size=8,
    )
)
@example(lines=["", _line(**WRITE), ""])
def test_ops_keep_their_physical_line_numbers(lines: list[str]) -> None:
    """One op per non-blank line, in order, each carrying that line's 1-based number."""
    ops = parse_apply_lines(lines)
    expected = [number for number, line in enumerate(lines, start=1) if line.strip()]
    assert expected == [op.line for op in ops]
