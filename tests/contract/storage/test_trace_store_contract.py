"""The trace plane's port over every backend: marks, extracts, the session fold, the list
filter, transactions, and a rebuild that leaves it alone. Asserted through the port only."""

from __future__ import annotations

from collections.abc import Iterator

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.domain.trace_extract import FileExtract, PromptRow
from memhtml.domain.trace_sessions import SessionQuery
from memhtml.domain.trace_watermarks import Watermark
from memhtml.ports.errors import StorageFailure
from memhtml.ports.storage import Storage
from memhtml.ports.trace_store import FileMark, TraceCounts, TraceWrite
from tests.contract.storage.harness import BACKENDS, DIM, MODEL, NOW, Memory, open_backend, write

AT = "2026-09-14T07:02:11.000Z"
LATER = "2026-09-15T00:00:00.000Z"
MAIN_PATH = "/home/ada/.claude/projects/-home-ada-shop/s1.jsonl"
AGENT_PATH = "/home/ada/.claude/projects/-home-ada-shop/agent-a1.jsonl"
CODEX_PATH = "/home/ada/.codex/sessions/2026/09/14/rollout-x.jsonl"


def _prompt(
    prompt_id: str, ordinal: int, at: str, text: str, agent: str | None = None
) -> PromptRow:
    return PromptRow(
        prompt_id=prompt_id,
        turn_uuid=prompt_id,
        ordinal=ordinal,
        at=at,
        agent_id=agent,
        text_head=text,
    )


MAIN = FileExtract(
    source="claude",
    session_id="s1",
    cwd="/home/ada/shop",
    git_branch="main",
    model="claude-sonnet-4",
    version="1.0.98",
    ai_title="Fix the login test",
    started_at="2026-09-14T07:00:00.000Z",
    ended_at="2026-09-14T07:30:00.000Z",
    turn_count=3,
    prompts=(
        _prompt("p1", 0, "2026-09-14T07:00:01.000Z", "Why does login fail?"),
        _prompt("p2", 1, "2026-09-14T07:20:00.000Z", "Pin the timezone."),
    ),
)
AGENT = FileExtract(
    source="claude",
    session_id="s1",
    sidechain=True,
    agent_id="a1",
    cwd="/home/ada/shop",
    model="claude-haiku",
    started_at="2026-09-14T06:59:00.000Z",
    ended_at="2026-09-14T07:40:00.000Z",
    turn_count=1,
    prompts=(_prompt("q1", 0, "2026-09-14T07:05:00.000Z", "Find naive datetimes.", "a1"),),
)
CODEX = FileExtract(
    source="codex",
    session_id="c1",
    cwd="/home/ada/billing",
    entrypoint="codex_cli_rs",
    model="gpt-5",
    started_at="2026-09-10T08:00:00.000Z",
    ended_at="2026-09-10T08:05:00.000Z",
    turn_count=2,
    prompts=(_prompt("@412", 0, "2026-09-10T08:00:05.000Z", "Move the export."),),
)


def _write(
    path: str,
    extract: FileExtract,
    *,
    size: int = 100,
    mtime_ms: int = 1_757_833_331_123,
    byte_off: int | None = None,
    prompts_from: int = 0,
    previous: str | None = None,
    at: str = AT,
) -> TraceWrite:
    return TraceWrite(
        file_path=path,
        extract=extract,
        watermark=Watermark(
            size=size, mtime_ms=mtime_ms, byte_off=size if byte_off is None else byte_off
        ),
        prompts_from=prompts_from,
        previous_session_id=previous,
        at=at,
    )


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """An empty store of each backend."""
    with open_backend(request.param) as opened:
        yield opened


def test_marks_and_extracts_round_trip(storage: Storage) -> None:
    """The watermark (to the millisecond) and the whole extract come back as written."""
    storage.traces.persist(_write(MAIN_PATH, MAIN, size=7, byte_off=5))
    assert {
        MAIN_PATH: FileMark(
            watermark=Watermark(size=7, mtime_ms=1_757_833_331_123, byte_off=5), session_id="s1"
        )
    } == storage.traces.file_marks([MAIN_PATH, "/not/scanned.jsonl"])
    assert MAIN == storage.traces.stored_extract(MAIN_PATH)
    assert storage.traces.stored_extract("/not/scanned.jsonl") is None


def test_the_session_row_is_folded_from_main_and_subagent_files(storage: Storage) -> None:
    """Main transcript first for values and citation; times span both; prompts of both."""
    storage.traces.persist(_write(AGENT_PATH, AGENT, size=40))
    storage.traces.persist(_write(MAIN_PATH, MAIN, size=100, at=LATER))
    row = storage.traces.session("s1")
    assert row is not None
    assert (
        "claude",
        "-home-ada-shop",
        "claude-sonnet-4",
        "2026-09-14T06:59:00.000Z",
        "2026-09-14T07:40:00.000Z",
        3,
        4,
        1,
        "Why does login fail?",
        "Why does login fail?\nFix the login test",
        (MAIN_PATH, 100, "2025-09-14T07:02:11.123Z"),
        LATER,
    ) == (
        row.source,
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
        row.indexed_at,
    )
    assert ["p1", "q1", "p2"] == [p.prompt_id for p in storage.traces.prompts("s1")]


def test_a_tail_write_adds_only_the_new_prompts(storage: Storage) -> None:
    """With ``prompts_from`` set, earlier ordinals are not rewritten; 0 replaces them."""
    first = attrs.evolve(MAIN, prompts=MAIN.prompts[:1])
    storage.traces.persist(_write(MAIN_PATH, first))
    renamed = attrs.evolve(MAIN.prompts[0], text_head="not rewritten")
    grown = attrs.evolve(MAIN, prompts=(renamed, MAIN.prompts[1]))
    storage.traces.persist(_write(MAIN_PATH, grown, size=200, prompts_from=1))
    heads = [p.text_head for p in storage.traces.prompts("s1")]
    storage.traces.persist(_write(MAIN_PATH, grown, size=200, prompts_from=0))
    assert (
        ["Why does login fail?", "Pin the timezone."],
        ["not rewritten", "Pin the timezone."],
    ) == (heads, [p.text_head for p in storage.traces.prompts("s1")])


def test_a_file_that_changes_session_takes_its_prompts_along(storage: Storage) -> None:
    """Rescanned under another id, the old session loses the file (and, left empty, its row)."""
    storage.traces.persist(_write(MAIN_PATH, MAIN))
    moved = attrs.evolve(MAIN, session_id="s2")
    storage.traces.persist(_write(MAIN_PATH, moved, previous="s1"))
    row = storage.traces.session("s2")
    assert (None, (), 2) == (
        storage.traces.session("s1"),
        storage.traces.prompts("s1"),
        None if row is None else row.prompt_count,
    )
    assert TraceCounts(files=1, sessions=1, prompts=2) == storage.traces.counts()


def test_a_file_without_a_session_keeps_only_its_watermark(storage: Storage) -> None:
    """No session id: the mark is stored, no session row, no prompts."""
    storage.traces.persist(_write("/x/garbage.jsonl", attrs.evolve(MAIN, session_id=None)))
    assert (TraceCounts(files=1, sessions=0, prompts=0), None) == (
        storage.traces.counts(),
        storage.traces.file_marks(["/x/garbage.jsonl"])["/x/garbage.jsonl"].session_id,
    )


def test_a_duplicate_prompt_id_across_files_is_kept_once(storage: Storage) -> None:
    """The first file to store a prompt id keeps it."""
    storage.traces.persist(_write(MAIN_PATH, MAIN))
    copy = attrs.evolve(AGENT, prompts=(attrs.evolve(MAIN.prompts[0], text_head="copy"),))
    storage.traces.persist(_write(AGENT_PATH, copy))
    heads = {p.prompt_id: p.text_head for p in storage.traces.prompts("s1")}
    assert {"p1": "Why does login fail?", "p2": "Pin the timezone."} == heads


def test_a_refused_write_leaves_nothing(storage: Storage) -> None:
    """A watermark outside years 1–9999 fails the write, and nothing of it remains."""
    with pytest.raises(StorageFailure):
        storage.traces.persist(_write(MAIN_PATH, MAIN, mtime_ms=10**15))
    assert TraceCounts(files=0, sessions=0, prompts=0) == storage.traces.counts()


def test_sessions_filter_and_order(storage: Storage) -> None:
    """Project tree or slug, overlapping times, source, limit; newest activity first."""
    storage.traces.persist(_write(MAIN_PATH, MAIN))
    storage.traces.persist(_write(CODEX_PATH, CODEX))

    def ids(**query: object) -> list[str]:
        return [row.session_id for row in storage.traces.sessions(SessionQuery(**query))]  # type: ignore[arg-type]

    assert [
        ["s1", "c1"],
        ["s1"],
        ["c1"],
        ["c1"],
        ["s1"],
        ["s1"],
        [],
    ] == [
        ids(),
        ids(project="/home/ada/shop"),
        ids(project="-home-ada-billing"),
        ids(source="codex"),
        ids(since="2026-09-14T00:00:00.000Z"),
        ids(limit=1),
        ids(project="/home/ada/sho"),
    ]
    assert ["c1"] == ids(until="2026-09-11T00:00:00.000Z")


def test_an_index_rebuild_leaves_the_trace_plane_alone(storage: Storage) -> None:
    """Emptying the memory tables for a rebuild keeps sessions, prompts and marks."""
    write(storage, [Memory(path="areas/inbox/a.html", claim="Alpha.")])
    storage.traces.persist(_write(MAIN_PATH, MAIN))
    before = (storage.traces.counts(), storage.traces.sessions(SessionQuery()))
    storage.index.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
    storage.index.finish_rebuild(embed_model=MODEL)
    assert before == (storage.traces.counts(), storage.traces.sessions(SessionQuery()))
    assert 0 == storage.census.counts().files


# --- the SQL statement and its twin agree on generated write sequences ----------------------

_paths = st.sampled_from(["/t/a.jsonl", "/t/b.jsonl", "/t/c.jsonl"])
_stamps = st.sampled_from([None, "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z"])
_values = st.sampled_from([None, "x", "y"])


@st.composite
def _extracts(draw: st.DrawFn) -> FileExtract:
    ids = draw(st.lists(st.sampled_from(["p1", "p2", "p3", "p4"]), unique=True, max_size=3))
    return FileExtract(
        source=draw(st.sampled_from([None, "claude", "codex"])),
        session_id=draw(st.sampled_from([None, "s1", "s1", "s1", "s2"])),
        sidechain=draw(st.booleans()),
        agent_id=draw(st.sampled_from([None, "a1", "a2"])),
        cwd=draw(st.sampled_from([None, "/w/one", "/w/two"])),
        entrypoint=draw(_values),
        git_branch=draw(_values),
        model=draw(_values),
        version=draw(_values),
        ai_title=draw(_values),
        started_at=draw(_stamps),
        ended_at=draw(_stamps),
        turn_count=draw(st.integers(min_value=0, max_value=5)),
        prompts=tuple(
            _prompt(pid, i, draw(st.sampled_from(["", "2026-01-01T00:00:00.000Z"])), pid)
            for i, pid in enumerate(ids)
        ),
    )


@st.composite
def _write_sequences(draw: st.DrawFn) -> list[TraceWrite]:
    writes: list[TraceWrite] = []
    sessions: dict[str, str | None] = {}
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        path = draw(_paths)
        extract = draw(_extracts())
        size = draw(st.integers(min_value=1, max_value=10**6))
        writes.append(
            _write(
                path,
                extract,
                size=size,
                mtime_ms=draw(st.integers(min_value=0, max_value=2 * 10**12)),
                prompts_from=0,
                previous=sessions.get(path),
            )
        )
        sessions[path] = extract.session_id
    return writes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_write_sequences())
def test_sqlite_and_memory_agree_on_any_write_sequence(writes: list[TraceWrite]) -> None:
    """Every row the port answers is the same over both backends."""
    answers = []
    for kind in BACKENDS:
        with open_backend(kind) as storage:
            for one in writes:
                storage.traces.persist(one)
            t = storage.traces
            paths = ["/t/a.jsonl", "/t/b.jsonl", "/t/c.jsonl"]
            answers.append(
                (
                    t.counts(),
                    t.sessions(SessionQuery(limit=10)),
                    t.file_marks(paths),
                    [t.stored_extract(p) for p in paths],
                    [t.prompts(s) for s in ("s1", "s2")],
                    t.sessions(SessionQuery(project="/w/one")),
                    t.sessions(SessionQuery(since="2026-01-02T00:00:00.000Z")),
                )
            )
    assert answers[0] == answers[1]
