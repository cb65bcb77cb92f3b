"""The session row folded from its files (the SQL statement's twin) and the list filter."""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.trace_extract import FileExtract, PromptRow
from memhtml.domain.trace_sessions import (
    SessionQuery,
    SessionRow,
    StoredFile,
    StoredPrompt,
    project_slug,
    recent_first,
    session_admitted,
    session_row,
)

MAIN = StoredFile(
    file_path="/t/p/s.jsonl",
    size=10,
    mtime="2026-01-01T00:00:09.000Z",
    extract=FileExtract(
        source="claude",
        session_id="s",
        cwd="/home/ada/shop",
        model=None,
        ai_title="Fix login",
        started_at="2026-01-01T00:00:05.000Z",
        ended_at="2026-01-01T00:00:08.000Z",
        turn_count=2,
    ),
)
AGENT = StoredFile(
    file_path="/t/p/agent-1.jsonl",
    size=4,
    mtime="2026-01-01T00:00:07.000Z",
    extract=FileExtract(
        source="claude",
        session_id="s",
        sidechain=True,
        agent_id="a1",
        cwd="/elsewhere",
        model="haiku",
        started_at="2026-01-01T00:00:01.000Z",
        ended_at="2026-01-01T00:00:09.500Z",
        turn_count=1,
    ),
)


def _prompt(file: StoredFile, ordinal: int, text: str) -> StoredPrompt:
    return StoredPrompt(
        file_path=file.file_path,
        row=PromptRow(
            prompt_id=f"{file.file_path}#{ordinal}",
            turn_uuid="t",
            ordinal=ordinal,
            at="2026-01-01T00:00:06.000Z",
            agent_id=file.extract.agent_id,
            text_head=text,
        ),
    )


PROMPTS = [_prompt(AGENT, 0, "sub task"), _prompt(MAIN, 1, "second"), _prompt(MAIN, 0, "first")]


def test_the_main_transcript_leads_and_times_span_every_file() -> None:
    """Main file first for values and the citation; extremes and sums over all files."""
    row = session_row("s", [AGENT, MAIN], PROMPTS, indexed_at="2026-02-01T00:00:00.000Z")
    assert row is not None
    assert (
        "/home/ada/shop",
        "-home-ada-shop",
        "haiku",
        "2026-01-01T00:00:01.000Z",
        "2026-01-01T00:00:09.500Z",
        3,
        3,
        1,
        "first",
        "first\nFix login",
        (MAIN.file_path, 10, MAIN.mtime),
    ) == (
        row.cwd,
        row.slug,
        row.model,
        row.started_at,
        row.ended_at,
        row.prompt_count,
        row.turn_count,
        row.agent_count,
        row.first_prompt,
        row.search_text,
        (row.file_path, row.file_size, row.file_mtime),
    )


@given(st.permutations([MAIN, AGENT]), st.permutations(PROMPTS))
def test_the_row_does_not_depend_on_input_order(
    files: list[StoredFile], prompts: list[StoredPrompt]
) -> None:
    """Files and prompts are ordered by the fold itself."""
    at = "2026-02-01T00:00:00.000Z"
    assert session_row("s", [MAIN, AGENT], PROMPTS, indexed_at=at) == session_row(
        "s", files, prompts, indexed_at=at
    )


def test_no_files_is_no_row_and_no_cwd_is_an_empty_slug() -> None:
    """A session without files has no row; an unknown cwd gives the empty slug, no prompt and
    no title give empty search text."""
    lone = attrs.evolve(MAIN, extract=attrs.evolve(MAIN.extract, cwd=None, ai_title=None))
    row = session_row("s", [lone], [], indexed_at="x")
    assert row is not None
    assert (None, "", "", "") == (
        session_row("s", [], [], indexed_at="x"),
        row.slug,
        row.first_prompt,
        row.search_text,
    )


def test_project_slug_replaces_everything_but_letters_and_digits() -> None:
    """Claude Code's folder naming."""
    assert "-home-ada-my-app-v2" == project_slug("/home/ada/my_app.v2")


def _row(session_id: str, **changes: str | None) -> SessionRow:
    base = session_row("x", [MAIN], [], indexed_at="2026-03-01T00:00:00.000Z")
    assert base is not None
    return attrs.evolve(base, session_id=session_id, **changes)  # type: ignore[arg-type]


def test_the_filter_matches_a_project_tree_or_slug_and_overlapping_times() -> None:
    """cwd equal or below the project (not a sibling sharing its prefix), or the slug; a
    session qualifies when it was active at or after since and started before until."""
    inside = _row("in", cwd="/home/ada/shop/api")
    sibling = _row("sib", cwd="/home/ada/shopping")
    query = SessionQuery(project="/home/ada/shop")
    by_slug = SessionQuery(project="-home-ada-shop")
    assert (True, False, True) == (
        session_admitted(query, inside),
        session_admitted(query, sibling),
        session_admitted(by_slug, _row("s")),
    )
    ended_before = SessionQuery(since="2026-01-01T00:00:08.001Z")
    starts_at_until = SessionQuery(until="2026-01-01T00:00:05.000Z")
    assert (False, False) == (
        session_admitted(ended_before, _row("s")),
        session_admitted(starts_at_until, _row("s")),
    )
    overlap = SessionQuery(since="2026-01-01T00:00:08.000Z", until="2026-01-01T00:00:05.001Z")
    assert session_admitted(overlap, _row("s"))
    untimed = _row("u", started_at=None, ended_at=None)
    assert (True, False) == (
        session_admitted(SessionQuery(), untimed),
        session_admitted(SessionQuery(since="2000-01-01T00:00:00.000Z"), untimed),
    )


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", "d"]),
            st.one_of(st.none(), st.sampled_from(["2026-01-01", "2026-01-02", "2026-01-03"])),
        ),
        unique_by=lambda pair: pair[0],
    ),
    st.integers(min_value=1, max_value=5),
)
def test_recent_first_orders_by_activity_then_id(
    specs: list[tuple[str, str | None]], limit: int
) -> None:
    """Latest activity (end, else start, else indexed) first; ties by id; at most ``limit``."""
    rows = [_row(sid, ended_at=end, started_at=None) for sid, end in specs]
    ordered = recent_first(rows, limit)
    keys = [(row.ended_at or row.indexed_at, row.session_id) for row in ordered]
    expected = sorted(keys, key=lambda key: key[1])
    expected.sort(key=lambda key: key[0], reverse=True)
    assert (expected[:limit], min(limit, len(rows))) == (keys, len(ordered))
