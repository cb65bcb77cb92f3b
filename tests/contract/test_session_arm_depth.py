"""The session arm's statement against its pure twin where the session cut matters (issue 13).

The fused-statement twin test draws at most eight memories over two session ids, so it never
holds more sessions than the arm reads (``SESSION_DEPTH``). Here up to thirty memories spread
over up to nine sessions, live and archived, and scopes that leave some sessions without an
admitted member: the statement must skip those sessions before it cuts to the best few, as
``session_ranking`` does.
"""

from __future__ import annotations

from typing import Final

from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.fused_search import run_fusion
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan
from memhtml.adapters.sqlite.scope_sql import assemble_scope
from memhtml.domain.fts_query import fts_query_forms
from memhtml.domain.fusion import RANK_ARMS
from memhtml.domain.rrf import fuse
from memhtml.domain.scope import SearchScope, scope_admits
from memhtml.domain.session_documents import SESSION_DEPTH
from tests.fakes.retrieval_rows import MemoryRow, load_rows, open_index, scope_facts
from tests.fakes.session_twin import session_order

VOCAB: Final = ("cache", "drain", "vip", "deploy", "merge")
SESSIONS: Final = tuple(f"chat-{n}" for n in range(9))
FOLDERS: Final = ("areas/", "projects/ws-a/", "projects/ws-b/", "archive/2025/")
STAMPS: Final = ("2026-01-01T00:00:00Z", "2026-03-01T12:00:00Z", "2026-09-14T07:02:11Z")
SESSION_ARM: Final = tuple(arm for arm in RANK_ARMS if arm.name == "session")
WITH_FTS: Final = tuple(arm for arm in RANK_ARMS if arm.name in ("fts", "session"))
"""Beside the fts arm under the any-term form, the session arm reads the fts arm's matches."""
NOW: Final = "2026-10-01T00:00:00Z"


@st.composite
def conversations(draw: st.DrawFn) -> tuple[MemoryRow, ...]:
    """Up to thirty memories, mostly episodic turns of one of nine sessions."""
    count = draw(st.integers(0, 30))
    rows = []
    for index in range(count):
        folder = draw(st.sampled_from(FOLDERS))
        words = draw(st.lists(st.sampled_from(VOCAB), max_size=4))
        rows.append(
            MemoryRow(
                path=f"{folder}m{index}.html",
                memory_type=draw(st.sampled_from(["episodic", "episodic", "episodic", "semantic"])),
                fts_text=" ".join(words),
                body_text=" ".join(words),
                workspace=folder.split("/")[1] if folder.startswith("projects/") else None,
                created_at=draw(st.sampled_from(STAMPS)),
                event_at=draw(st.one_of(st.none(), st.sampled_from(STAMPS))),
                session_id=draw(st.one_of(st.none(), st.sampled_from(SESSIONS))),
            )
        )
    return tuple(rows)


scopes = st.sampled_from(
    (
        SearchScope(),
        SearchScope(include_archived=True),
        SearchScope(workspace="ws-a"),
        SearchScope(workspace="ws-b", include_archived=True),
        SearchScope(memory_types=("episodic",)),
        SearchScope(memory_types=("semantic",)),
    )
)


@settings(max_examples=150, deadline=None)
@given(
    rows=conversations(),
    scope=scopes,
    query_words=st.lists(st.sampled_from([*VOCAB, "absent"]), min_size=1, max_size=3),
    arm_limit=st.sampled_from([40, 7, 3, 1]),
)
def test_session_arm_equals_its_twin(
    rows: tuple[MemoryRow, ...], scope: SearchScope, query_words: list[str], arm_limit: int
) -> None:
    """Same paths in the same order, sessions beyond the cut and out of scope included; and the
    same session ranks when the arm reads the fts arm's matches instead of its own."""
    db = open_index(state=False)
    load_rows(db, rows)
    any_match = fts_query_forms(" ".join(query_words)).any
    admitted = [row for row in rows if scope_admits(scope, scope_facts(row))]
    plan = FusionPlan(arms=SESSION_ARM, now=NOW)
    actual = run_fusion(
        db, plan, assemble_scope(scope), match=any_match, vector=None, limit=50, arm_limit=arm_limit
    )
    expected = fuse({"session": session_order(db, rows, admitted, any_match, arm_limit)}, limit=50)
    assert [(f.path, f.ranks) for f in actual] == [(f.path, f.ranks) for f in expected]
    beside = run_fusion(
        db,
        FusionPlan(arms=WITH_FTS, now=NOW),
        assemble_scope(scope),
        match=any_match,
        vector=None,
        limit=100,
        arm_limit=arm_limit,
    )
    session_ranks = {f.path: dict(f.ranks)["session"] for f in beside if "session" in dict(f.ranks)}
    assert session_ranks == {f.path: dict(f.ranks)["session"] for f in expected}


def test_sessions_without_an_admitted_member_do_not_use_up_the_depth() -> None:
    """Seven sessions match; two hold only out-of-scope memories; the other five are read."""
    rows = tuple(
        MemoryRow(
            path=f"projects/{'ws-b' if n < 2 else 'ws-a'}/m{n}.html",
            memory_type="episodic",
            fts_text="cache " * (7 - n) + "drain",
            workspace="ws-b" if n < 2 else "ws-a",
            session_id=f"chat-{n}",
        )
        for n in range(7)
    )
    db = open_index(state=False)
    load_rows(db, rows)
    plan = FusionPlan(arms=SESSION_ARM, now=NOW)
    scope = assemble_scope(SearchScope(workspace="ws-a"))
    found = run_fusion(db, plan, scope, match="cache", vector=None, limit=50, arm_limit=40)
    assert SESSION_DEPTH == 5
    assert {f.path for f in found} == {f"projects/ws-a/m{n}.html" for n in range(2, 7)}
