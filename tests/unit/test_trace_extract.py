"""The extract fold and its tail merger: associative, so a tail lands where a rescan would."""

from __future__ import annotations

from functools import reduce

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.trace_extract import (
    EMPTY_EXTRACT,
    ExtractBuilder,
    FileExtract,
    merge_extracts,
    record_extract,
)
from memhtml.domain.trace_records import TranscriptRecord, parse_line
from tests.strategies import transcript_lines


def _records(lines: list[bytes]) -> list[TranscriptRecord]:
    records, offset = [], 0
    for line in lines:
        records.append(parse_line(line.rstrip(b"\n"), offset))
        offset += len(line)
    return records


def _built(records: list[TranscriptRecord]) -> FileExtract:
    builder = ExtractBuilder()
    for record in records:
        builder.add(record)
    return builder.build()


def _folded(records: list[TranscriptRecord]) -> FileExtract:
    return reduce(merge_extracts, (record_extract(r) for r in records), EMPTY_EXTRACT)


@given(transcript_lines)
def test_the_builder_is_the_fold_of_the_merger(lines: list[bytes]) -> None:
    """Building line by line equals merging every line's own extract, in order."""
    records = _records(lines)
    assert _folded(records) == _built(records)


@given(transcript_lines, st.data())
def test_a_tail_merged_into_its_prefix_equals_the_whole(
    lines: list[bytes], data: st.DataObject
) -> None:
    """For any split, merge(extract(prefix), extract(rest)) == extract(all)."""
    records = _records(lines)
    cut = data.draw(st.integers(min_value=0, max_value=len(records)))
    assert _built(records) == merge_extracts(_built(records[:cut]), _built(records[cut:]))


@given(transcript_lines, transcript_lines, transcript_lines)
def test_merging_is_associative(a: list[bytes], b: list[bytes], c: list[bytes]) -> None:
    """(a·b)·c == a·(b·c), and the empty extract is the identity on both sides."""
    x, y, z = (_built(_records(lines)) for lines in (a, b, c))
    assert merge_extracts(merge_extracts(x, y), z) == merge_extracts(x, merge_extracts(y, z))
    assert (x, x) == (merge_extracts(EMPTY_EXTRACT, x), merge_extracts(x, EMPTY_EXTRACT))


@given(transcript_lines)
def test_prompts_are_distinct_and_numbered_in_order(lines: list[bytes]) -> None:
    """Prompt ids are unique, ordinals run 0..n-1, and the first copy of an id is kept."""
    records = _records(lines)
    extract = _built(records)
    ids = [p.prompt_id for p in extract.prompts]
    first_seen = list(dict.fromkeys(r.prompt.prompt_id for r in records if r.prompt))
    assert (first_seen, list(range(len(ids)))) == (ids, [p.ordinal for p in extract.prompts])


def test_first_and_last_values_and_times_fold_as_documented() -> None:
    """cwd keeps the first value, the branch the last; times keep the extremes, not the ends."""
    stored = FileExtract(
        cwd="/a", git_branch="main", started_at="2026-01-02T00:00:00.000Z", turn_count=2
    )
    tail = FileExtract(
        cwd="/b",
        git_branch="dev",
        started_at="2026-01-01T00:00:00.000Z",
        ended_at="2026-01-01T00:00:00.000Z",
        turn_count=1,
    )
    merged = merge_extracts(stored, tail)
    assert ("/a", "dev", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z", 3) == (
        merged.cwd,
        merged.git_branch,
        merged.started_at,
        merged.ended_at,
        merged.turn_count,
    )
